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
        if _CANONICAL.fullmatch(text):
            return text
        try:  # ISO-8601 letters may be lower case (2026-06-24t18:33:07z); Python wants T, Z
            parsed = datetime.fromisoformat(text.upper())
        except ValueError:
            raise InvalidNote(
                field,
                f"{value!r} is not an ISO-8601 timestamp (expected e.g. 2026-06-24T18:33:07+00:00)",
            ) from None
        return _canonical(parsed)
    if isinstance(value, datetime):
        return _canonical(value)
    if isinstance(value, date):
        return _canonical(datetime(value.year, value.month, value.day))
    raise InvalidNote(field, f"expected a timestamp, got {type(value).__name__} {value!r}")


def _canonical(moment: datetime) -> str:
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0).isoformat(timespec="seconds")
