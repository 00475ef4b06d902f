"""Numbers in an address's query string (``?page=``, ``?k=``), read in one place.

A query string is typed, pasted and edited by hand: ``int()`` alone takes ``1_000`` and
non-ASCII digits, and a number past what SQLite holds (``?page=99999999999999999999``)
once ended as a 500 from deep inside the store. Every numeric parameter of every page is
read here instead, and a malformed or out-of-range one raises :class:`BadQuery`, which the
app answers with a 400 that says what to send.
"""

from __future__ import annotations

from collections.abc import Mapping


class BadQuery(ValueError):
    """A query parameter this page cannot use; its message says what would do."""


def query_number(params: Mapping[str, str], name: str, default: int, *, low: int, high: int) -> int:
    """The whole number ``name`` from ``params`` (``default`` when absent or empty), which
    must be plain ASCII digits from ``low`` to ``high``; raises :class:`BadQuery`."""
    raw = params.get(name, "").strip()
    if not raw:
        return default
    wanted = f"{name} must be a whole number from {low:,} to {high:,}"
    # Digits only, and no more of them than ``high`` has: a 5,000-digit number is refused
    # before int() spends time on it (or refuses it with its own message).
    if not (raw.isascii() and raw.isdigit()) or len(raw.lstrip("0")) > len(str(high)):
        shown = raw if len(raw) <= 24 else raw[:21] + "..."
        raise BadQuery(f"{wanted}, got {shown!r}")
    value = int(raw)
    if not low <= value <= high:
        raise BadQuery(f"{wanted}, got {value:,}")
    return value
