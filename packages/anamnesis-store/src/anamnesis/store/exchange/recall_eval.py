"""Recall you can measure: Recall@k and MRR of a store's search over a set of cases.

Cases are JSONL, one per line: ``{"qid", "query", "relevant": [ids], "project": str|null,
"approved": bool, "kind": str}`` (``approved`` defaults to true; ``qid``, ``project`` and
``kind`` are optional). A result counts as a hit when it is a relevant note or a note that
supersedes one, directly or through a chain: superseded notes are hidden from search, so
their replacement is the right answer.

A corpus (notes JSONL with local ids such as ``n001``) loads into a throw-away sandbox
store, so any corpus can be measured without touching the user's notes::

    with sandbox("notes.jsonl") as (store, ids):
        report = recall_at_k(store, load_cases("queries.jsonl"), id_map=ids)
        print(report.recall[8], report.mrr)
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anamnesis.store.errors import StoreError
from anamnesis.store.exchange.bounded_json import load_json
from anamnesis.store.note.ids import derived_id, is_valid_id
from anamnesis.store.note.model import Memory
from anamnesis.store.record import Record
from anamnesis.store.store import MemoryStore

if TYPE_CHECKING:
    from anamnesis.store.vectors.embedding import Embedder

DEFAULT_KS = (1, 3, 5, 8)


class InvalidEvalFile(StoreError):
    """A cases or notes file cannot be used; the message names the file and line."""


class EvalCase(Record):
    """One query and the notes that answer it."""

    __slots__ = ("approved", "kind", "project", "qid", "query", "relevant")

    def __init__(
        self,
        qid: str,
        query: str,
        relevant: tuple[str, ...],
        project: str | None = None,
        approved: bool = True,
        kind: str = "",
    ) -> None:
        self.qid = qid
        self.query = query
        self.relevant = relevant
        self.project = project
        self.approved = approved
        self.kind = kind


class CaseResult(Record):
    """How one case went: the rank of the first hit (None: no hit in the top k)."""

    __slots__ = ("kind", "qid", "query", "rank", "retrieved")

    def __init__(
        self, qid: str, query: str, kind: str, rank: int | None, retrieved: tuple[str, ...]
    ) -> None:
        self.qid = qid
        self.query = query
        self.kind = kind
        self.rank = rank
        self.retrieved = retrieved


class RecallReport(Record):
    """Recall@k for each k, MRR (over the top ``max(ks)``), and every case's result."""

    __slots__ = ("cases", "mode", "mrr", "recall", "results")

    def __init__(
        self,
        mode: str,
        cases: int,
        recall: dict[int, float],
        mrr: float,
        results: tuple[CaseResult, ...],
    ) -> None:
        self.mode = mode
        self.cases = cases
        self.recall = recall
        self.mrr = mrr
        self.results = results

    def by_kind(self) -> dict[str, RecallReport]:
        """The same figures for each kind of case (symptom, keyword, date, ...)."""
        kinds = sorted({result.kind for result in self.results})
        ks = tuple(sorted(self.recall))
        return {
            kind: _summarize(self.mode, [r for r in self.results if r.kind == kind], ks)
            for kind in kinds
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "cases": self.cases,
            "recall": {str(k): round(v, 4) for k, v in sorted(self.recall.items())},
            "mrr": round(self.mrr, 4),
        }


def _read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidEvalFile(f"cannot read {path}: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = load_json(line)
        except ValueError as exc:
            raise InvalidEvalFile(f"{path}:{number}: not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise InvalidEvalFile(f"{path}:{number}: expected a JSON object")
        yield number, row


def load_cases(path: Path | str) -> list[EvalCase]:
    """Read a cases JSONL file; a bad line raises :class:`InvalidEvalFile` naming it."""
    source = Path(path)
    cases: list[EvalCase] = []
    for number, row in _read_jsonl(source):
        query, relevant = row.get("query"), row.get("relevant")
        if not isinstance(query, str) or not query.strip():
            raise InvalidEvalFile(f"{source}:{number}: 'query' must be non-empty text")
        if isinstance(relevant, str):
            relevant = [relevant]
        if (
            not isinstance(relevant, list)
            or not relevant
            or not all(isinstance(item, str) and item for item in relevant)
        ):
            raise InvalidEvalFile(f"{source}:{number}: 'relevant' must be a list of note ids")
        project = row.get("project")
        if project is not None and not isinstance(project, str):
            raise InvalidEvalFile(f"{source}:{number}: 'project' must be text or null")
        cases.append(
            EvalCase(
                qid=str(row.get("qid") or f"line{number}"),
                query=query,
                relevant=tuple(relevant),
                project=project or None,
                approved=row.get("approved", True) is not False,
                kind=str(row.get("kind") or ""),
            )
        )
    return cases


def load_notes(store: MemoryStore, path: Path | str, *, namespace: str = "") -> dict[str, str]:
    """Write a notes JSONL file into ``store``; return {id in the file: id in the store}.

    Ids that are already ULIDs are kept; others (``n001``) get a ULID derived from
    ``namespace`` and the id, so loading the same file twice gives the same ids.
    ``supersedes`` may name one id or a list, in the file's own ids.
    """
    source = Path(path)
    rows = list(_read_jsonl(source))
    ids: dict[str, str] = {}
    for number, row in rows:
        local = row.get("id")
        if not isinstance(local, str) or not local:
            raise InvalidEvalFile(f"{source}:{number}: every note needs a text 'id'")
        if local in ids:
            raise InvalidEvalFile(f"{source}:{number}: id {local!r} appears twice")
        ids[local] = local if is_valid_id(local) else derived_id(f"{namespace}/{local}")
    for number, row in rows:
        supersedes = row.get("supersedes") or []
        if isinstance(supersedes, str):
            supersedes = [supersedes]
        try:
            mapped = [ids[item] for item in supersedes]
        except (KeyError, TypeError):
            raise InvalidEvalFile(
                f"{source}:{number}: 'supersedes' names an id not in the file"
            ) from None
        try:
            store.put(
                Memory(
                    id=ids[row["id"]],
                    type=row.get("type", "semantic"),
                    title=row.get("title", ""),
                    body=row.get("body", ""),
                    project=row.get("project") or "global",
                    tags=list(row.get("tags") or []),
                    supersedes=mapped,
                )
            )
        except StoreError as exc:
            raise InvalidEvalFile(f"{source}:{number}: {exc}") from None
    return ids


@contextmanager
def sandbox(
    notes: Path | str | None = None, *, embedder: Embedder | None = None
) -> Iterator[tuple[MemoryStore, dict[str, str]]]:
    """A temporary store (deleted afterwards), loaded with a notes JSONL file if given.

    ``embedder``: the one vector searches use (say, the user's configured model); by
    default the environment's.
    """
    root = Path(tempfile.mkdtemp(prefix="anamnesis-eval-"))
    try:
        with MemoryStore(root, embedder=embedder) as store:
            ids = load_notes(store, notes, namespace=Path(notes).stem) if notes else {}
            yield store, ids
    finally:
        shutil.rmtree(root, ignore_errors=True)


def recall_at_k(
    store: MemoryStore,
    cases: Iterable[EvalCase],
    ks: Sequence[int] = DEFAULT_KS,
    *,
    mode: str | None = None,
    id_map: dict[str, str] | None = None,
    use_project: bool = False,
    approved_only: bool = True,
) -> RecallReport:
    """Run every case through ``store.search`` and score it.

    ``id_map`` translates the cases' ids into store ids (what :func:`load_notes` returns).
    ``use_project`` applies each case's project as a search filter (off by default, as in
    the spec's baseline). ``mode`` is passed to search (None: the store's default).
    """
    if not ks or any(k < 1 for k in ks):
        raise ValueError("ks must be positive whole numbers")
    ks = tuple(sorted(set(ks)))
    depth = ks[-1]
    superseders = store.superseders()
    results: list[CaseResult] = []
    for case in cases:
        if approved_only and not case.approved:
            continue
        relevant = {id_map.get(item, item) if id_map else item for item in case.relevant}
        accepted = _with_superseders(relevant, superseders)
        project = case.project if use_project else None
        hits = store.search(case.query, project=project, k=depth, mode=mode)
        retrieved = tuple(hit.id for hit in hits)
        rank = next((i for i, memory_id in enumerate(retrieved, 1) if memory_id in accepted), None)
        results.append(CaseResult(case.qid, case.query, case.kind, rank, retrieved))
    used_mode = mode or store.default_search_mode()
    return _summarize(used_mode, results, ks)


def _with_superseders(relevant: set[str], superseders: dict[str, list[str]]) -> set[str]:
    """The relevant ids plus every note that supersedes one of them, transitively."""
    accepted = set(relevant)
    todo = list(relevant)
    while todo:
        for newer in superseders.get(todo.pop(), ()):
            if newer not in accepted:
                accepted.add(newer)
                todo.append(newer)
    return accepted


def _summarize(mode: str, results: list[CaseResult], ks: Sequence[int]) -> RecallReport:
    count = len(results)
    recall = {
        k: (sum(1 for r in results if r.rank is not None and r.rank <= k) / count if count else 0.0)
        for k in ks
    }
    mrr = sum(1 / r.rank for r in results if r.rank is not None) / count if count else 0.0
    return RecallReport(mode, count, recall, mrr, tuple(results))
