"""UTC timestamps in the one canonical form notes use: 2026-06-24T18:33:07+00:00, and the
rules about time that rank notes: recency is never later than now.

Canonical timestamps compare as text (four-digit years, one offset), so the index orders
and compares them without parsing them again.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from anamnesis.store.errors import InvalidNote

_CANONICAL = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00")

# How far past now a note's date may be before the doctor calls its machine's clock wrong.
# Clocks synced by NTP agree within seconds; a laptop waking from sleep, a VM restored from
# a snapshot or a machine without NTP drifts by a minute or two before it is corrected.
# Five minutes passes that ordinary skew and still catches a clock set hours or days ahead
# (or a wrong time zone taken as UTC), which is what makes a note outrank newer ones.
CLOCK_SKEW_TOLERANCE = timedelta(minutes=5)


def utc_now() -> str:
    """Now, in UTC, to the second, in canonical form."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def normalize_timestamp(value: object, field: str = "timestamp") -> str:
    """Canonical UTC form of a timestamp given as text, datetime or date; "" stays "".

    Hand-edited files hold all sorts: unquoted YAML timestamps, ``Z`` suffixes, a space
    instead of ``T``, lower-case ``t`` and ``z``, fractions of a second, other offsets. A
    naive time is taken as UTC.
    """
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        text = value.strip()
        try:  # ISO-8601 letters may be lower case (2026-06-24t18:33:07z); Python wants T, Z
            parsed = datetime.fromisoformat(text.upper())
        except ValueError:  # also the canonical shape holding no date: 2026-02-30, hour 25
            raise InvalidNote(
                field,
                f"{value!r} is not an ISO-8601 timestamp (expected e.g. 2026-06-24T18:33:07+00:00)",
            ) from None
        if _CANONICAL.fullmatch(text):
            return text
        return in_utc(parsed, field)
    if isinstance(value, datetime):
        return in_utc(value, field)
    if isinstance(value, date):
        return in_utc(datetime(value.year, value.month, value.day), field)
    raise InvalidNote(field, f"expected a timestamp, got {type(value).__name__} {value!r}")


def in_utc(moment: datetime, field: str = "timestamp") -> str:
    """``moment`` (naive: taken as UTC) in canonical UTC form; :class:`InvalidNote` when
    it has no such form.

    Years 1 to 9999 are all Python's dates hold: ``9999-12-31T23:59:59-01:00`` is in the
    year 10000 in UTC, ``0001-01-01T00:00:00+05:00`` in the year 0. Such a note used to
    raise ``OverflowError`` out of every read, on every machine that pulled it; as an
    invalid note it is a broken file (reported, skipped), like any other.
    """
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        moment = moment.astimezone(UTC)
    except OverflowError:
        raise InvalidNote(
            field,
            f"{moment.isoformat()!r} is outside the years 1 to 9999 once converted to UTC",
        ) from None
    return moment.replace(microsecond=0).isoformat(timespec="seconds")


def ranking_time(updated_at: str, now: str, file_mtime_ns: int | None = None) -> str:
    """When a note ranks by recency: its ``updated_at``, but never later than ``now`` (the
    moment it is indexed) nor than the moment this machine wrote its file, when known.

    A machine whose clock runs ahead dates its notes in the future; ranked as dated, a note
    of 2999 would come first in every listing and SessionStart block for ever, above every
    note written after it. Ranked as when this store got it (the file's mtime: a pull
    writes the file then; its ``updated_at`` for every note not dated ahead), it is as new
    as it really is, and notes written later rank above it. The file time keeps a full
    reindex from moving such a note back to the top; ``now`` bounds a file time that is
    itself ahead.
    """
    written = None if file_mtime_ns is None else utc_from_ns(file_mtime_ns)
    return min(updated_at, now) if written is None else min(updated_at, written, now)


def utc_from_ns(epoch_ns: int) -> str | None:
    """A file time (nanoseconds since the epoch) in canonical form; None when it is outside
    the years 1 to 9999 (a file system may hold any 64-bit time)."""
    try:
        moment = datetime.fromtimestamp(epoch_ns // 1_000_000_000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="seconds")


def skew_limit(now: datetime | None = None) -> str:
    """The latest date a note may carry before it counts as dated in the future:
    :data:`CLOCK_SKEW_TOLERANCE` past ``now`` (default: the current time)."""
    moment = (now or datetime.now(UTC)) + CLOCK_SKEW_TOLERANCE
    return moment.astimezone(UTC).replace(microsecond=0).isoformat(timespec="seconds")
