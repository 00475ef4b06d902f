"""`anamnesis eval run`: Recall@k and MRR of search over a set of cases, for each mode.

The cases run against the user's store (their ids are store ids) or, given a notes file,
against a throw-away sandbox loaded from it, so any corpus can be measured without touching
the user's notes. Every note is embedded before the first vector search: left to the
searches, each would embed a few notes and the vector figures would depend on the order of
the cases.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anamnesis.cli import console
from anamnesis.cli.context import current_home, open_store
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.store import (
    SEARCH_MODES,
    EvalCase,
    MemoryStore,
    RecallReport,
    VectorsUnavailable,
    VectorsUnavailableWarning,
    default_embedder,
    load_notes,
    recall_at_k,
    sandbox,
    vector_support,
)

if TYPE_CHECKING:
    from anamnesis.store import Embedder

ALL_MODES = "all"
MAX_K = 1000  # the store's limit on one search


@dataclass(slots=True)
class Subject:
    """The store the cases run against, how their ids map into it, and why vectors cannot
    run on it (None: as far as can be told without loading the model, they can)."""

    store: MemoryStore
    ids: dict[str, str] = field(default_factory=dict)
    vectors_problem: str | None = None
    sandbox: bool = False


def parse_ks(text: str) -> tuple[int, ...]:
    """``"1,3,5,8"`` as sorted, distinct cut-offs; a usage error for anything else."""
    values: set[int] = set()
    for part in text.split(","):
        word = part.strip()
        if not word:
            continue
        try:
            value = int(word)
        except ValueError:
            raise UsageError(
                f"--k takes whole numbers separated by commas, like 1,3,5,8; got {text!r}"
            ) from None
        if not 1 <= value <= MAX_K:
            raise UsageError(f"--k values must be from 1 to {MAX_K}, got {value}")
        values.add(value)
    if not values:
        raise UsageError("--k needs at least one cut-off, like 1,3,5,8")
    return tuple(sorted(values))


def check_mode_choice(mode: str) -> str:
    if mode != ALL_MODES and mode not in SEARCH_MODES:
        choices = ", ".join([*SEARCH_MODES, ALL_MODES])
        raise UsageError(f"--mode must be one of {choices}, got {mode!r}")
    return mode


@contextmanager
def subject(notes: Path | None) -> Iterator[Subject]:
    """The user's store, or a sandbox loaded from ``notes`` and deleted afterwards."""
    if notes is None:
        with open_store() as store:
            status = store.embedding_status()
            yield Subject(store, vectors_problem=None if status["available"] else _why(status))
        return
    embedder, problem = _users_embedder()
    with sandbox(embedder=embedder) as (store, _none):
        with console.spinner("Loading notes"):
            ids = load_notes(store, notes, namespace=notes.stem)
        yield Subject(store, ids, problem, sandbox=True)


def _users_embedder() -> tuple[Embedder | None, str | None]:
    """The model the user's own store would use (their settings and their downloaded copy:
    a sandbox's own defaults would download the model again into a temporary folder), or
    why vectors cannot run."""
    support = vector_support()
    if not support.available:
        return None, _why({"reason": support.reason, "fix": support.fix})
    try:
        return default_embedder(current_home().root), None
    except VectorsUnavailable as exc:  # e.g. embed_model_path names a folder without a model
        return None, str(exc)


def _why(status: dict[str, Any]) -> str:
    reason, fix = str(status.get("reason") or "unknown"), str(status.get("fix") or "")
    return f"{reason} ({fix})" if fix else reason


def modes_to_run(requested: str, vectors_problem: str | None) -> list[str]:
    """The modes to measure: ``all`` is every mode that can run here (keyword alone, with a
    notice, when vectors cannot); a vector mode asked for by name that cannot run is an
    error rather than keyword figures under its name."""
    if vectors_problem is None:
        return list(SEARCH_MODES) if requested == ALL_MODES else [requested]
    if requested == ALL_MODES:
        console.warn(f"vector search cannot run, measuring keyword search only: {vectors_problem}")
        return [name for name, mode in SEARCH_MODES.items() if not mode.needs_vectors]
    if SEARCH_MODES[requested].needs_vectors:
        raise CliError(
            f"--mode {requested} needs vector search, which cannot run: {vectors_problem}"
        )
    return [requested]


def embed_all(target: Subject, requested: str, modes: list[str]) -> list[str]:
    """Embed every note lacking a vector (a bar on a terminal) when a mode needs vectors;
    the modes that can run afterwards."""
    if not any(SEARCH_MODES[mode].needs_vectors for mode in modes):
        return modes

    failure: str | None = None
    with warnings.catch_warnings(record=True) as caught:
        try:
            with console.progress("Embedding") as progress:
                target.store.embed_missing(progress=progress)
        except VectorsUnavailable as exc:  # the model itself cannot load
            failure = str(exc)
    for item in caught:  # the store's "searching by keywords only" is said below, in eval's terms
        if not issubclass(item.category, VectorsUnavailableWarning):
            warnings.showwarning(item.message, item.category, item.filename, item.lineno)
    return modes if failure is None else modes_to_run(requested, failure)


def missing_ids(target: Subject, cases: Sequence[EvalCase]) -> list[str]:
    """Relevant ids that name no note in the store: their cases can never be found."""
    known = {note.id for note in target.store.list(include_body=False)}
    wanted = {item for case in cases if case.approved for item in case.relevant}
    return sorted(item for item in wanted if target.ids.get(item, item) not in known)


def evaluate(
    target: Subject,
    cases: Sequence[EvalCase],
    ks: Sequence[int],
    modes: Sequence[str],
    *,
    use_project: bool,
) -> list[RecallReport]:
    with console.spinner("Searching"):
        return [
            recall_at_k(
                target.store, cases, ks, mode=mode, id_map=target.ids or None,
                use_project=use_project,
            )
            for mode in modes
        ]  # fmt: skip


def as_data(reports: Sequence[RecallReport], target: Subject) -> dict[str, Any]:
    """The JSON form: figures per mode, per kind of case, and each case's rank."""
    local = {store_id: own for own, store_id in target.ids.items()}
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for report in reports:
        for kind, part in report.by_kind().items():
            by_kind.setdefault(kind, []).append(part.to_dict())
    return {
        "modes": [report.to_dict() for report in reports],
        "by_kind": by_kind,
        "results": {
            report.mode: [
                {
                    "qid": result.qid,
                    "kind": result.kind,
                    "rank": result.rank,
                    "retrieved": [local.get(i, i) for i in result.retrieved],
                }
                for result in report.results
            ]
            for report in reports
        },
    }


def print_tables(reports: Sequence[RecallReport], ks: Sequence[int]) -> None:
    # The figures are whole, always; only a kind's name may be cut to the terminal.
    columns = [Column(header) for header in ["mode", "cases", *(f"R@{k}" for k in ks), "MRR"]]
    show(columns, [_figures(report.mode, report, ks) for report in reports])
    kinds: dict[str, list[RecallReport]] = {}
    for report in reports:
        for kind, part in report.by_kind().items():
            kinds.setdefault(kind, []).append(part)
    if not any(kinds):  # the cases name no kinds: the table above says it all
        return
    console.say()
    rows = [
        [kind or "(none)", *_figures(part.mode, part, ks)]
        for kind, parts in sorted(kinds.items())
        for part in parts
    ]
    show([Column("kind", cut=1), *columns], rows, title="by kind")


def _figures(mode: str, report: RecallReport, ks: Sequence[int]) -> list[object]:
    return [mode, report.cases, *(f"{report.recall[k]:.3f}" for k in ks), f"{report.mrr:.3f}"]
