"""Reflection's ``supersedes`` through merge's gate (:class:`.merge_gate.RetirementGate`).

A reflection note that supersedes a durable note hides it from search and from the session
start's block, so a reply naming every durable note it was sent would make a project's
procedures disappear. Each supersede is judged on its own, in the reply's order: the note
it retires must have its facts (numbers, URLs, paths, identifiers, code spans, commands) in
the reflection note, and searches that found it must still find it or the reflection note.
A supersede that fails is dropped, with its reason; the reflection note is still written
(it is the episodes' knowledge, which the check does not judge), beside the note it did not
replace.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from anamnesis.reflect.merge_gate import RetirementGate, Verdict
from anamnesis.store import NoteNotFound

if TYPE_CHECKING:
    from anamnesis.store import EvalCase, Memory, MemoryStore


def gate_supersedes(
    store: MemoryStore, notes: Sequence[Memory], cases: Sequence[EvalCase] = ()
) -> tuple[list[Memory], list[str]]:
    """``notes`` (new reflection notes) with every supersede the gate refused taken out,
    and one line for each refused: which note, which note it did not replace, why."""
    retiring = {sid for note in notes for sid in note.supersedes}
    if not retiring:
        return list(notes), []
    current = {}
    for sid in retiring:
        try:  # as it is now, not as the plan showed it: it is what would disappear
            current[sid] = store.get(sid)
        except NoteNotFound:
            pass  # deleted since: nothing to hide, nothing to keep
    gated: list[Memory] = []
    refused: list[str] = []
    with RetirementGate(store, cases, current.values()) as gate:
        for note in notes:
            kept: list[str] = []
            for sid in note.supersedes:
                if sid not in current:
                    continue
                trial = note.replace(supersedes=[*kept, sid])
                verdict = gate.judge([trial], [current[sid]], new_text=False)
                if verdict.kept:
                    kept.append(sid)
                else:
                    refused.append(_refusal(note, current[sid], verdict))
            gated.append(note.replace(supersedes=kept))
    return gated, refused


def _refusal(note: Memory, old: Memory, verdict: Verdict) -> str:
    lost = f": {', '.join(str(loss) for loss in verdict.losses)}" if verdict.losses else ""
    return f"{note.title!r} does not supersede {old.id} ({old.title!r}): {verdict.reason}{lost}"
