"""The fleet page: what each machine wrote (from the notes' metadata and the commits that
changed notes) and when it last synced (from the authors of the store's git history)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from anamnesis.store import Memory


@dataclass
class MachineSummary:
    machine_id: str
    notes: int = 0
    by_type: Counter[str] = field(default_factory=Counter)
    by_project: Counter[str] = field(default_factory=Counter)
    last_write: str = ""  # canonical UTC timestamp (notes' form), "" when never
    commits: int = 0
    last_commit: int | None = None  # unix seconds of its newest commit in our history
    local_notes: int = 0  # machine-local notes (only ever this machine's own)
    routes: Counter[str] = field(default_factory=Counter)  # its portable notes by remote


def summarize(
    notes: Iterable[Memory],
    commits: dict[str, tuple[int, int]],
    this_machine: str,
    note_writes: dict[str, int] | None = None,
    route: Callable[[Memory], str] | None = None,
) -> list[MachineSummary]:
    """One summary per machine id seen in notes or commits, this machine first, then the
    most recently active. ``notes`` are read once, as they come (a page at a time from
    ``every_note``: a whole store need not be in memory).

    A machine's last write is the newest of its own notes' ``updated_at`` and its newest
    commit that changed a note (``note_writes``): a note keeps the id of the machine that
    created it, so a machine that only edited others' notes is known by its commits
    alone (it used to read "never").

    ``route`` names the remote a portable note goes to (``views.fleet_remotes``): each
    machine's notes are counted by it (machine-local notes go nowhere)."""
    machines: dict[str, MachineSummary] = {}

    def of(machine_id: str) -> MachineSummary:
        return machines.setdefault(machine_id, MachineSummary(machine_id))

    for note in notes:
        summary = of(note.machine_id)
        summary.notes += 1
        summary.by_type[note.type] += 1
        summary.by_project[note.project] += 1
        summary.last_write = max(summary.last_write, note.updated_at)
        if note.scope == "machine-local":
            summary.local_notes += 1
        elif route is not None:
            summary.routes[route(note)] += 1
    for machine_id, (count, last) in commits.items():
        summary = of(machine_id)
        summary.commits, summary.last_commit = count, last
    for machine_id, seconds in (note_writes or {}).items():
        summary = of(machine_id)
        summary.last_write = max(summary.last_write, _canonical(seconds))
    of(this_machine)
    return sorted(
        machines.values(),
        key=lambda s: (s.machine_id != this_machine, -(s.last_commit or 0), s.machine_id),
    )


def _canonical(seconds: int) -> str:
    """A commit's time in the notes' timestamp form (canonical UTC text compares as time);
    "" for a time no calendar holds (a commit's time is whatever its author wrote)."""
    try:
        return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")
    except (OverflowError, OSError, ValueError):
        return ""
