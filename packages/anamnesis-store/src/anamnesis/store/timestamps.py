"""UTC timestamps in the one canonical form notes use: 2026-06-24T18:33:07+00:00."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from anamnesis.store.errors import InvalidNote

_CANONICAL = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00")

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


def utc_from_ns(epoch_ns: int) -> str | None:
    """A file time (nanoseconds since the epoch) in canonical form; None when it is outside
    the years 1 to 9999 (a file system may hold any 64-bit time)."""
    try:
        moment = datetime.fromtimestamp(epoch_ns // 1_000_000_000, UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="seconds")

