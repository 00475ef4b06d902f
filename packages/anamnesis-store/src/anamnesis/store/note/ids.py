"""Note ids: ULIDs, validated before they ever become part of a path."""

from __future__ import annotations

import re

from anamnesis.store.errors import InvalidNote

# 26 Crockford base32 characters; the first is at most 7 because a ULID is 128 bits.
# Upper case only: ids name files, and two spellings of one id would collide on
# case-insensitive file systems.
_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")


def is_valid_id(value: object) -> bool:
    """True when ``value`` is a canonical (upper-case) ULID string."""
    return isinstance(value, str) and _ULID.fullmatch(value) is not None


def check_id(value: object, field: str = "id") -> str:
    """Return ``value`` if it is a canonical ULID, else raise :class:`InvalidNote`."""
    if is_valid_id(value):
        return value  # type: ignore[return-value]  # is_valid_id proved it is a str
    hint = ""
    if isinstance(value, str) and is_valid_id(value.upper()):
        hint = f" (write it in upper case: {value.upper()})"
    raise InvalidNote(
        field,
        f"{value!r} is not a ULID: expected 26 characters of Crockford base32 "
        f"(0-9, A-Z without I, L, O, U){hint}",
    )


# A prefix shorter than this names too many notes to be a reference (git asks for 4; ids
# made in the same second share their first 8 characters, so 6 is already short).
MIN_PREFIX = 6
_ID_CHARACTERS = frozenset("0123456789ABCDEFGHJKMNPQRSTVWXYZ")


def check_prefix(value: object) -> str:
    """``value`` as an upper-case id prefix of at least :data:`MIN_PREFIX` characters, else
    :class:`InvalidNote` saying what is wrong: the characters no id has, or that it is
    too short or too long. Ids are case-insensitive when typed. A prefix that no id can start
    with (``Z...``: ids start with 0-7) is a prefix still: no note is found by it."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidNote("id", "give a note's id, or the first 6 or more of its characters")
    typed = value.strip()
    prefix = typed.upper()
    foreign = [c for c in dict.fromkeys(typed) if c.upper() not in _ID_CHARACTERS]
    if foreign:
        named = ", ".join(repr(char) for char in foreign[:5])
        raise InvalidNote(
            "id",
            f"{typed!r} is not a note id: ids have no {named} "
            "(only 0-9 and A-Z without I, L, O, U)",
        )
    if len(prefix) > 26:
        raise InvalidNote("id", f"{typed!r} is longer than a note id (26 characters)")
    if len(prefix) < MIN_PREFIX:
        raise InvalidNote(
            "id",
            f"{typed!r} is too short: give at least {MIN_PREFIX} characters of the id",
        )
    return prefix


def could_start_an_id(prefix: str) -> bool:
    """Whether some id could start with ``prefix`` (a checked one): its first character
    is at most 7, since an id is 128 bits."""
    return _PREFIX.fullmatch(prefix) is not None


_PREFIX = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{0,25}")


def new_id() -> str:
    """A fresh ULID. python-ulid is imported here, not at module load: it costs ~100 ms
    and the read-only hot paths (inject) never create notes."""
    from ulid import ULID

    return str(ULID())


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def derived_id(key: str, *, time_ms: int = 0) -> str:
    """A ULID fixed by ``key``: the same key always gives the same id.

    The 80 random bits come from a hash of ``key``; the 48 time bits from ``time_ms``
    (say, when a session started), so ids still sort roughly by time. Re-importing or
    re-capturing the same thing therefore updates one note instead of adding another.
    """
    import hashlib  # a capture's id, never an inject's: kept off the hooks' hot path

    entropy = int.from_bytes(hashlib.sha256(key.encode("utf-8")).digest()[:10], "big")
    value = ((time_ms & (2**48 - 1)) << 80) | entropy
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))
