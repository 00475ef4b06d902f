"""The list page's one-line status ("142 notes · synced 3 min ago · 1 warning"), which
opens the status page: the list stays about notes, the checks' detail lives there.

"Synced" is this machine's newest commit in the store's history, the same measure the
fleet page shows as its "last sync seen": every sync that sends something commits first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from anamnesis.ops import FAIL, WARN, Check

MINUTE, HOUR, DAY = 60, 3600, 86400


@dataclass(frozen=True, slots=True)
class StatusLine:
    notes: int
    remote: bool  # a remote is configured (else the notes stay here: nothing to sync)
    last_sync: int | None  # unix seconds of this machine's newest commit, None: never
    warnings: int
    failures: int
    conflicts: int  # notes kept both ways whose other version is still in force
    unchecked: str  # why the checks did not answer, else ""

    def sync_phrase(self, now: float) -> str:
        if not self.remote:
            return "no remote: notes stay on this machine"
        if self.last_sync is None:
            return "never synced"
        return f"synced {ago(now - self.last_sync)}"

    @property
    def checks_phrase(self) -> str:
        if self.unchecked:
            return "checks unavailable"
        parts = [counted(self.failures, "failure"), counted(self.warnings, "warning")]
        shown = [part for part in parts if part]
        return ", ".join(shown) if shown else "all checks ok"

    @property
    def severity(self) -> str:
        """The worst verdict, for the line's colour: fail, warn or ok."""
        if self.failures or self.unchecked:
            return "fail"
        return "warn" if self.warnings or self.conflicts else "ok"


def status_line(
    notes: int,
    *,
    remote: bool,
    last_sync: int | None,
    checks: Sequence[Check],
    conflicts: int,
    unchecked: str = "",
) -> StatusLine:
    statuses = [check.status for check in checks]
    return StatusLine(
        notes=notes,
        remote=remote,
        last_sync=last_sync,
        warnings=statuses.count(WARN),
        failures=statuses.count(FAIL),
        conflicts=conflicts,
        unchecked=unchecked,
    )


def counted(n: int, noun: str) -> str:
    """``1 warning``, ``2 warnings``; "" for none."""
    if not n:
        return ""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"


def ago(seconds: float) -> str:
    """How long ago, in the largest unit that fits: "just now", "3 min ago", "5 h ago",
    "2 days ago". A time ahead of this clock (another machine's clock) is "just now"."""
    if seconds < MINUTE:
        return "just now"
    if seconds < HOUR:
        return f"{int(seconds // MINUTE)} min ago"
    if seconds < DAY:
        return f"{int(seconds // HOUR)} h ago"
    days = int(seconds // DAY)
    return "1 day ago" if days == 1 else f"{days:,} days ago"
