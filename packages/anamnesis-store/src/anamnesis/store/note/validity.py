"""Validity in time: when a note stops being true (``valid_until``) and when it asks to be
looked at again (``review_after``), and the moment a question about time is asked at.

Both fields hold a date (``2027-01-31``) or a timestamp, kept as written (a timestamp in
canonical UTC form, :mod:`.timestamps`). A date means the whole of that day in UTC: a
note ``valid_until: 2027-01-31`` is still valid on the 31st and expired from the 1st of
February; a note ``review_after: 2027-03-01`` is due from the 1st of March.

Every comparison is between canonical timestamps, as text (they sort as time): the index
stores each note's bounds (:func:`expiry_bound`, :func:`due_bound`) and a search compares
them with one :func:`moment`.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from anamnesis.store.errors import InvalidNote
from anamnesis.store.note.timestamps import in_utc, normalize_timestamp

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.note.model import Memory

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def check_when(value: object, field: str) -> str:
    """A ``valid_until`` / ``review_after`` / ``--as-of`` value, checked: "" stays "", a
    date stays the date, a timestamp becomes canonical UTC. Raises :class:`InvalidNote`
    naming ``field`` and the forms it takes."""
    if value is None or value == "":
        return ""
    if isinstance(value, datetime):
        return normalize_timestamp(value, field)
    if isinstance(value, date):
        return value.isoformat()
    if not isinstance(value, str):
        raise InvalidNote(field, f"expected a date or timestamp, got {type(value).__name__}")
    text = value.strip()
    if _DATE.fullmatch(text):
        try:
            date.fromisoformat(text)
        except ValueError:
            raise InvalidNote(field, f"{text!r} is not a date on the calendar") from None
        return text
    try:
        return normalize_timestamp(text, field)
    except InvalidNote:
        raise InvalidNote(
            field,
            f"{text[:60]!r} is neither a date (2027-01-31) nor an ISO-8601 timestamp"
            " (2027-01-31T18:00:00+00:00)",
        ) from None


def _start_of(day: str, days_later: int = 0) -> str:
    moment = datetime.combine(date.fromisoformat(day), datetime.min.time(), UTC)
    try:
        return in_utc(moment + timedelta(days=days_later))
    except OverflowError:  # 9999-12-31 + 1 day: the end of time, as text
        return "9999-12-31T23:59:59+00:00"


def expiry_bound(valid_until: str) -> str:
    """The first moment a note with this ``valid_until`` is expired ("" for none)."""
    if not valid_until:
        return ""
    return _start_of(valid_until, 1) if _DATE.fullmatch(valid_until) else valid_until


def due_bound(review_after: str) -> str:
    """The first moment a note with this ``review_after`` is due ("" for none)."""
    if not review_after:
        return ""
    return _start_of(review_after) if _DATE.fullmatch(review_after) else review_after


def moment(as_of: str | None = None, now: str | None = None) -> str:
    """The moment a search or listing is evaluated at, as the first instant it does NOT
    cover: notes created before it exist, a note whose expiry bound is after it... is valid.

    ``as_of`` (checked by :func:`check_when`): a date covers that whole day, a timestamp
    covers up to and including its second. Without it, now (to the second) is covered.
    """
    if as_of:
        if _DATE.fullmatch(as_of):
            return _start_of(as_of, 1)
        base = datetime.fromisoformat(as_of)
    else:
        base = datetime.fromisoformat(now) if now else datetime.now(UTC).replace(microsecond=0)
    try:
        return in_utc(base + timedelta(seconds=1))
    except OverflowError:
        return "9999-12-31T23:59:59+00:00"


def is_expired(mem: Memory, now: str | None = None) -> bool:
    """Whether ``mem`` is past its ``valid_until`` at ``now`` (default: the current time)."""
    bound = expiry_bound(mem.valid_until)
    return bool(bound) and bound < moment(now=now)


def is_due(mem: Memory, now: str | None = None) -> bool:
    """Whether ``mem`` has reached its ``review_after`` at ``now`` (default: the current time).
    A note a person confirmed after that moment is not due."""
    bound = due_bound(mem.review_after)
    if not bound or bound >= moment(now=now):
        return False
    return not (mem.reviewed_at and mem.reviewed_at >= bound)
