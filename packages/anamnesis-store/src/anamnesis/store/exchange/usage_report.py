"""What was used, with the notes it was: ``anamnesis stats`` and the dashboard's usage page
show this one report (:func:`usage_report`).

The log (:class:`~anamnesis.store.UsageLog`) knows ids and counts; this puts titles to the
notes used most and finds the notes nothing used: the durable notes (facts, procedures) of
the store, current (not superseded), older than the window and used by no session within
it. Those are suggestions for a person's review, never removed or hidden: a note that no
session needed may still be right, or may be what the next one needs.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from anamnesis.store.errors import StoreError
from anamnesis.store.exchange.note_pages import every_note
from anamnesis.store.note.model import DURABLE_TYPES, Memory
from anamnesis.store.record import Record
from anamnesis.store.usage.usage_log import DAY_S, EVENTS, NoteUse, RunCount, UsageCounts

if TYPE_CHECKING:
    from anamnesis.store.store import MemoryStore

DEFAULT_DAYS = 30
DEFAULT_LIMIT = 10


class UsedNote(Record):
    """A note used in the window: its uses by event (``use``) and the note, or None when
    it is no longer in the store (deleted, or not yet synced here)."""

    __slots__ = ("use", "note")

    def __init__(self, use: NoteUse, note: Memory | None) -> None:
        self.use = use
        self.note = note

    def to_dict(self) -> dict[str, Any]:
        note = self.note
        return {
            "id": self.use.id,
            "title": note.title if note else None,
            "project": note.project if note else None,
            "type": note.type if note else None,
            "uses": self.use.total,
            **{event: self.use.counts.get(event, 0) for event in EVENTS},
            "last_used": _stamp(self.use.last_used),
        }


class UsageReport(Record):
    """The last ``days`` days of use: each event's runs (``events``), the notes used most
    (``most_used``, at most the report's limit), the notes never used (``never_used``, at
    most the limit, oldest first; ``never_used_count`` all of them), how many notes a
    search returned were fetched afterwards, and ``problem`` when the log could not be
    read."""

    __slots__ = (
        "days", "since", "events", "most_used", "never_used", "never_used_count",
        "fetched_after_search", "problem",
    )  # fmt: skip

    def __init__(
        self,
        days: int,
        since: int,
        events: dict[str, RunCount],
        most_used: list[UsedNote],
        never_used: list[Memory],
        never_used_count: int,
        fetched_after_search: int,
        problem: str = "",
    ) -> None:
        self.days = days
        self.since = since
        self.events = events
        self.most_used = most_used
        self.never_used = never_used
        self.never_used_count = never_used_count
        self.fetched_after_search = fetched_after_search
        self.problem = problem

    @property
    def prompt_recall(self) -> RunCount:
        """Prompts recalled for, and how many of them found a note."""
        return self.events["recalled"]

    def to_dict(self) -> dict[str, Any]:
        """The report as ``stats --json`` prints it."""
        return {
            "days": self.days,
            "since": _stamp(self.since),
            "events": {event: count.to_dict() for event, count in self.events.items()},
            "prompt_recall": self.prompt_recall.to_dict(),
            "fetched_after_search": self.fetched_after_search,
            "most_used": [used.to_dict() for used in self.most_used],
            "never_used": [_unused(note) for note in self.never_used],
            "never_used_count": self.never_used_count,
            "problem": self.problem or None,
        }


def usage_report(
    store: MemoryStore,
    *,
    days: int = DEFAULT_DAYS,
    limit: int = DEFAULT_LIMIT,
    now: float | None = None,
) -> UsageReport:
    """What this machine used in the last ``days`` days, from ``store``'s usage log and
    notes; at most ``limit`` notes in each list."""
    at = time.time() if now is None else now
    counts = store.usage.counts(days, now=at)
    most = [UsedNote(use, _note(store, use.id)) for use in counts.most_used(limit)]
    unused = never_used(store, days=days, counts=counts, now=at)
    return UsageReport(
        days, counts.since, counts.runs, most, unused[:limit], len(unused),
        counts.fetched_after_search, counts.problem,
    )  # fmt: skip


def never_used(
    store: MemoryStore,
    *,
    days: int = DEFAULT_DAYS,
    counts: UsageCounts | None = None,
    now: float | None = None,
) -> list[Memory]:
    """The current durable notes created more than ``days`` days ago that no session used
    in those days, oldest first (without bodies). A note younger than the window has not
    had its chance yet, and is never listed."""
    at = time.time() if now is None else now
    used = (counts or store.usage.counts(days, now=at)).notes
    born_by = _stamp(int(at - days * DAY_S))
    unused = [
        note
        for note in every_note(
            store, type=DURABLE_TYPES, include_superseded=False, include_body=False
        )
        if note.id not in used and note.created_at <= born_by
    ]
    return sorted(unused, key=lambda note: (note.created_at, note.id))


def _unused(note: Memory) -> dict[str, str]:
    return {
        "id": note.id,
        "title": note.title,
        "project": note.project,
        "type": note.type,
        "created_at": note.created_at,
    }


def _note(store: MemoryStore, note_id: str) -> Memory | None:
    """The note, or None: gone from the store, or unreadable now (counted all the same)."""
    try:
        return store.get(note_id)
    except StoreError:
        return None


def _stamp(seconds: int) -> str:
    """Unix seconds in the notes' timestamp form."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")
