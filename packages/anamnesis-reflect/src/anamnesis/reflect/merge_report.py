"""What a merge run reports: each project's call, each group's fate, the ids written.

Statuses are plain strings, so the CLI prints them as they are and ``--json`` carries them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from anamnesis.reflect.merge_candidates import CandidateGroup
from anamnesis.reflect.merge_gate import GateLoss

# MergeCall.status
PLANNED = "planned"  # a dry run: this call would be made
ANSWERED = "answered"
INVALID_REPLY = "invalid reply"
OVER_MAX_CALLS = "skipped: over max_calls"
TOO_BIG = "skipped: no candidate group fits the token budget"
# GroupOutcome.status
APPLIED = "applied"
REFUSED_BY_VALIDATION = "refused by validation"
REFUSED_BY_GATE = "refused by the gate"


@dataclass(frozen=True)
class MergeCall:
    """One provider call of a project: what it holds (candidate groups, notes, groups left
    out over the budget, estimated tokens, and whether its notes are machine-local: a
    project's groups holding one go in a call of their own) and how it went."""

    project: str
    groups: int
    notes: int
    left_out: int
    tokens: int
    status: str
    reason: str = ""
    excerpt: str = ""  # the start of an invalid reply
    scope: str = "portable"  # machine-local: the call holds machine-local notes

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GroupOutcome:
    """What became of one group of a reply; ``note_id`` is the note written (the kept one
    or the new one), ``losses`` what made the gate refuse it."""

    project: str
    ids: tuple[str, ...]
    action: str
    status: str
    reason: str = ""
    losses: tuple[GateLoss, ...] = ()
    note_id: str = ""
    title: str = ""

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)  # the losses too, as dicts
        out["ids"] = list(self.ids)
        out["losses"] = [loss.to_dict() for loss in self.losses]
        return out


@dataclass
class MergeReport:
    """A merge run: candidates, calls, each group's fate, and the ids written (none in a
    dry run). ``vectors`` is "" when vector similarity was used, else why not."""

    apply: bool
    provider: str
    model: str
    project: str | None
    vectors: str
    candidates: list[CandidateGroup] = field(default_factory=list)
    calls: list[MergeCall] = field(default_factory=list)
    groups: list[GroupOutcome] = field(default_factory=list)
    written: list[str] = field(default_factory=list)
    # The live notes a written note may contradict: {"note": ID, "id", "title", "differs"}.
    possible_contradictions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """False when a reply could not be read (refused groups are the gate working)."""
        return all(call.status != INVALID_REPLY for call in self.calls)

    @property
    def tokens(self) -> int:
        """Estimated input tokens of the calls made (or, in a dry run, to be made)."""
        return sum(call.tokens for call in self.calls if call.status in (PLANNED, ANSWERED))

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "apply": self.apply,
            "provider": self.provider,
            "model": self.model,
            "project": self.project,
            "vectors": self.vectors or "used",
            "tokens": self.tokens,
            "candidates": [group.to_dict() for group in self.candidates],
            "calls": [call.to_dict() for call in self.calls],
            "groups": [group.to_dict() for group in self.groups],
            "written": list(self.written),
            "possible_contradictions": list(self.possible_contradictions),
        }
