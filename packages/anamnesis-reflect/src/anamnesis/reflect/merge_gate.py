"""The gate a note passes to retire others: merge's ``keep`` and ``synthesize``, and
reflection's ``supersedes``. A retirement is kept only when nothing the retired notes said,
and nothing a search found them by, is lost; everything is tried on a throw-away copy of the
store (the user's store is only read).

First the facts (:func:`lost_facts`): every number, URL, path, identifier, code span and
command of a retired note (compaction's mechanical check, :mod:`.fact_check`; words aside,
a note restated by another need not keep its wording) must be in the note that replaces it,
and a note a model wrote for the occasion (a synthesis) may hold no such fact that none of
the retired notes had.

Then recall, at 8 results (:data:`GATE_K`), in keyword mode (:data:`GATE_MODE`:
deterministic, and no embedding model is loaded for a gate):

* the user's approved eval cases, as ``anamnesis eval run`` runs them (whole store);
* two self-probes for every note a retirement touches, searched within the note's project:
  its title, and its three rarest words (fewest notes holding them). A probe hits when it
  finds the note or a note that supersedes it, as eval cases do.

Only a loss counts: a case or probe that hit on the untouched copy and misses after the
retirement. Retirements are tried one after another on the same copy, each on top of the
ones kept so far, and every measurement is against the untouched copy: so the retirements
kept, together, lose nothing, and one that would break what an earlier one relied on is the
one refused. :class:`RetirementGate` runs both steps; merge and reflection go through it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis.reflect.fact_check import check_facts, note_text
from anamnesis.reflect.merge_candidates import document_frequencies, rarest_terms, raw_words
from anamnesis.reflect.prompting import redact_prompt
from anamnesis.store import (
    EvalCase,
    Memory,
    MemoryStore,
    NoteNotFound,
    StoreLayout,
    recall_at_k,
)

GATE_K = 8
GATE_MODE = "keyword"
RARE_TERMS = 3
TITLE_PROBE = "title probe"
# The word the masking leaves where a secret was ("[REDACTED]"): says nothing of a note.
MASK_WORDS = frozenset({"redacted"})
RARE_PROBE = "rare-terms probe"


@dataclass(frozen=True)
class GateLoss:
    """A case or probe that found its note before a merge and does not after it."""

    kind: str  # "case", TITLE_PROBE or RARE_PROBE
    qid: str
    query: str

    def __str__(self) -> str:
        return f"{self.kind} {self.qid}: {self.query!r}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "qid": self.qid, "query": self.query}


def probes_for(notes: Iterable[Memory], frequency: Counter[str]) -> list[EvalCase]:
    """The self-probes of ``notes``: title, and rarest words by ``frequency`` (document
    frequencies over the store). A note without words gets no probe of that kind.

    Probes are made from the masked text: a secret left in a note file by hand is the
    rarest word there is, and no merged note can hold it (the store masks every write),
    so a probe for it would refuse every merge of that note."""
    probes: list[EvalCase] = []
    for note in notes:
        title = redact_prompt(note.title)
        if raw_words(title) - MASK_WORDS:
            probes.append(
                EvalCase(f"{note.id}:title", title, (note.id,), note.project, True, TITLE_PROBE)
            )
        masked = redact_prompt(f"{note.title}\n{note.body}")
        terms = rarest_terms(masked, frequency, RARE_TERMS + 1)  # one may be the mask
        terms = [term for term in terms if term not in MASK_WORDS][:RARE_TERMS]
        if terms:
            query = " ".join(terms)
            probes.append(
                EvalCase(f"{note.id}:rare", query, (note.id,), note.project, True, RARE_PROBE)
            )
    return probes


class Sandbox:
    """A copy of a store's note trees in a temporary folder, open as a store of its own
    (its index is built from the copies). Close it to delete the folder."""

    def __init__(self, source: MemoryStore) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="anamnesis-merge-gate-"))
        try:
            copy = StoreLayout(self.root)
            for tree, target in (
                (source.memory_dir, copy.memory_dir),
                (source.local_dir, copy.local_dir),
            ):
                if tree.is_dir():
                    # Links stay links: the copy reads exactly what the store reads. The git
                    # history and temp files of interrupted writes are not notes.
                    shutil.copytree(
                        tree, target, symlinks=True, ignore=shutil.ignore_patterns(".git", ".*.tmp")
                    )
            self.store = MemoryStore(self.root)
        except BaseException:
            shutil.rmtree(self.root, ignore_errors=True)
            raise

    def close(self) -> None:
        self.store.close()
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class RecallGate:
    """Tries merges on a sandbox and keeps those that lose no hit (see the module doc).

    ``cases``: the user's eval cases (unapproved ones are ignored); ``probes``: the probes
    of every note any merge of this run touches, measured once up front on the untouched
    copy."""

    def __init__(
        self, sandbox: MemoryStore, cases: Sequence[EvalCase], probes: Sequence[EvalCase]
    ) -> None:
        self._store = sandbox
        self._cases = [case for case in cases if case.approved]
        self._cases_before = self._hits(self._cases, use_project=False)
        # Probe qids are "<note id>:title" and "<note id>:rare": unique within a run.
        hits = self._hits(probes, use_project=True)
        self._probe_before = {probe.qid: hit for probe, hit in zip(probes, hits, strict=True)}
        self._watched: list[EvalCase] = []

    def try_merge(self, writes: Sequence[Memory], probes: Sequence[EvalCase]) -> list[GateLoss]:
        """Write ``writes`` to the sandbox and measure. No loss: they stay (and ``probes``
        are watched from now on). A loss: the sandbox is put back and the losses returned."""
        previous = {note.id: self._current(note.id) for note in writes}
        self._store.put_many(writes)
        losses = self._losses([*self._watched, *probes])
        if losses:
            for memory_id, note in previous.items():
                if note is None:
                    self._store.delete(memory_id)
                else:
                    self._store.put(note)
            return losses
        self._watched.extend(probes)
        return []

    def _losses(self, probes: Sequence[EvalCase]) -> list[GateLoss]:
        losses = [
            GateLoss("case", case.qid, case.query)
            for case, before, after in zip(
                self._cases,
                self._cases_before,
                self._hits(self._cases, use_project=False),
                strict=True,
            )
            if before and not after
        ]
        after_probes = self._hits(probes, use_project=True)
        losses += [
            GateLoss(probe.kind, probe.qid, probe.query)
            for probe, after in zip(probes, after_probes, strict=True)
            if self._probe_before.get(probe.qid, False) and not after
        ]
        return losses

    def _hits(self, cases: Sequence[EvalCase], *, use_project: bool) -> list[bool]:
        """Whether each case finds a relevant note (or its superseder) in the top 8."""
        if not cases:
            return []
        report = recall_at_k(
            self._store,
            cases,
            (GATE_K,),
            mode=GATE_MODE,
            use_project=use_project,
            approved_only=False,
        )
        return [result.rank is not None for result in report.results]

    def _current(self, memory_id: str) -> Memory | None:
        try:
            return self._store.get(memory_id)
        except NoteNotFound:
            return None


def lost_facts(retired: Sequence[Memory], replacement: Memory, *, new_text: bool) -> str:
    """Why ``replacement`` may not retire ``retired`` on their facts ("" when it may): a
    retired note's fact it lacks and, with ``new_text`` (a model wrote it), a fact none of
    them has. Masked texts on both sides: a note is stored masked."""
    text = _fact_text(replacement)
    reasons = []
    for note in retired:
        check = check_facts(_fact_text(note), text, min_words_kept=0.0)
        if not check.ok:
            reasons.append(f"{note.id}'s facts are not all in the note replacing it: "
                           f"{check.describe()}")  # fmt: skip
    if new_text and retired:
        sources = "\n\n".join(_fact_text(note) for note in retired)
        check = check_facts(sources, text, min_words_kept=0.0, both_ways=True)
        if check.added_kinds:
            reasons.append(f"the new note says what none of them did: {check.describe_added()}")
    return "; ".join(reasons)


def _fact_text(note: Memory) -> str:
    return redact_prompt(note_text(note.title, note.body))


@dataclass(frozen=True)
class Verdict:
    """What the gate made of one retirement: kept (``reason`` empty), or why not, with the
    searches it would have broken."""

    reason: str = ""
    losses: tuple[GateLoss, ...] = ()

    @property
    def kept(self) -> bool:
        return not self.reason


class RetirementGate:
    """Judges retirements in turn (see the module doc): :meth:`judge` each, in the order
    they are to be written; what it keeps stays on the sandbox under the next one.

    ``watched``: every note any retirement of the run may retire or rewrite; their probes
    are measured once, on the untouched copy, before the first retirement is tried.
    ``visible``: the store's notes that are not superseded, when the caller has them
    already (the probes' word frequencies come from them). The sandbox is only made when a
    retirement gets past the facts; close the gate (or use it in ``with``) to delete it."""

    def __init__(
        self,
        store: MemoryStore,
        cases: Sequence[EvalCase],
        watched: Iterable[Memory],
        visible: Sequence[Memory] | None = None,
    ) -> None:
        self._store = store
        self._cases = cases
        notes = {note.id: note for note in watched}
        frequency = document_frequencies(
            store.list(include_superseded=False) if visible is None else visible
        )
        self._probes = {
            memory_id: probes_for([note], frequency) for memory_id, note in notes.items()
        }
        self._sandbox: Sandbox | None = None
        self._recall: RecallGate | None = None

    def judge(
        self, writes: Sequence[Memory], retired: Sequence[Memory], *, new_text: bool
    ) -> Verdict:
        """Try ``writes`` (the note replacing ``retired`` first, superseding them): its
        facts, then recall. ``new_text``: a model wrote that note for this retirement. A
        refused retirement leaves the sandbox as it was."""
        reason = lost_facts(retired, writes[0], new_text=new_text)
        if reason:
            return Verdict(reason)
        touched = dict.fromkeys([*(note.id for note in retired), *(note.id for note in writes)])
        probes = [probe for memory_id in touched for probe in self._probes.get(memory_id, ())]
        losses = self._recall_gate().try_merge(writes, probes)
        if losses:
            return Verdict(f"{len(losses)} search(es) would stop finding their note", tuple(losses))
        return Verdict()

    def _recall_gate(self) -> RecallGate:
        if self._recall is None:
            self._sandbox = Sandbox(self._store)
            every_probe = [probe for probes in self._probes.values() for probe in probes]
            self._recall = RecallGate(self._sandbox.store, self._cases, every_probe)
        return self._recall

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox, self._recall = None, None

    def __enter__(self) -> RetirementGate:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
