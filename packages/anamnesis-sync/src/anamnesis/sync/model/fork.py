"""keep-both: both versions of a conflicting note stay, as two notes that name each other,
without importing the store (sync depends on dulwich alone).

Neither supersedes the other: both stay visible in search until the user supersedes one
or merges them. Our side becomes a new note (a fresh id); the remote's keeps its id and
path. Both gain the tag ``conflict`` and a ``conflict_with`` key naming the other's id
(a list when a note was in conflict before). The store writes frontmatter as simple
``key: value`` lines; this edits those lines. A file that is not a note (no frontmatter)
is kept beside the original under a ``.conflict-<machine>`` name, and the remote's version
is left as it is.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable
from typing import NamedTuple

# The frontmatter key naming the other version of a note kept by keep-both. The store
# does not know it, so it keeps it as an extra key, unchanged.
CONFLICT_KEY = "conflict_with"
CONFLICT_TAG = "conflict"


class Forked(NamedTuple):
    """What keep-both makes of a conflicting file: ``ours`` goes to the new ``path``;
    ``theirs`` (the remote's version) stays at the original path, rewritten to name ours
    (or unchanged, when it is not a note)."""

    path: str
    ours: bytes
    theirs: bytes


# (path, our bytes, their bytes) -> both sides as keep-both keeps them.
Fork = Callable[[str, bytes, bytes], Forked]

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")


def new_ulid() -> str:
    """A ULID (48-bit millisecond time, 80 random bits) in Crockford base32."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def fork_note(path: str, ours: bytes, theirs: bytes, *, machine_id: str) -> Forked:
    """Keep both sides of ``path``: ours as a new note, theirs in place, naming each other."""
    mine = _split(ours)
    old_id = _value(mine[0], "id") if mine is not None else None
    if mine is not None and old_id and _ULID.fullmatch(old_id):
        other = _split(theirs)
        their_id = _value(other[0], "id") if other is not None else None
        fresh = new_ulid()
        lines = _set_scalar(mine[0], "id", fresh)
        lines = _mark(lines, their_id or old_id)
        kept = theirs
        if other is not None and their_id:
            kept = _join(_mark(other[0], fresh), other[1])
        directory = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        return Forked(f"{directory}{fresh}.md", _join(lines, mine[1]), kept)
    stem, dot, suffix = path.rpartition(".")
    label = re.sub(r"[^A-Za-z0-9._-]", "-", machine_id) or "local"
    renamed = (
        f"{stem}.conflict-{label}.{suffix}"
        if dot and "/" not in suffix
        else f"{path}.conflict-{label}"
    )
    return Forked(renamed, ours, theirs)


def _split(data: bytes) -> tuple[list[str], str] | None:
    """(frontmatter lines, body) of a note's text; None for a file without frontmatter."""
    text = data.decode("utf-8", errors="surrogateescape")
    if not (text.startswith("---\n") and "\n---\n" in text[3:]):
        return None
    front, body = text[4:].split("\n---\n", 1)
    return front.split("\n"), body


def _join(lines: list[str], body: str) -> bytes:
    return ("---\n" + "\n".join(lines) + "\n---\n" + body).encode("utf-8", errors="surrogateescape")


def _mark(lines: list[str], other_id: str) -> list[str]:
    """Tag ``conflict`` and name ``other_id`` under :data:`CONFLICT_KEY`."""
    lines = _add_to_list(lines, "tags", CONFLICT_TAG, before=None)
    if not any(line.startswith(f"{CONFLICT_KEY}:") for line in lines):
        return [*lines, f"{CONFLICT_KEY}: {other_id}"]  # one id: a scalar, like supersedes
    return _add_to_list(lines, CONFLICT_KEY, other_id, before=None)


def _value(lines: list[str], key: str) -> str | None:
    for line in lines:
        if line.startswith(f"{key}:"):
            return line[len(key) + 1 :].strip().strip("'\"") or None
    return None


def _set_scalar(lines: list[str], key: str, value: str) -> list[str]:
    return [f"{key}: {value}" if line.startswith(f"{key}:") else line for line in lines]


def _add_to_list(lines: list[str], key: str, item: str, *, before: str | None) -> list[str]:
    """Add ``item`` to a list key, whether it is absent, a scalar or a block list."""
    items: list[str] = []
    out: list[str] = []
    position: int | None = None
    skipping = False
    for line in lines:
        if skipping and line.startswith("- "):
            items.append(line[2:].strip().strip("'\""))
            continue
        skipping = False
        if line.startswith(f"{key}:"):
            position = len(out)
            rest = line[len(key) + 1 :].strip()
            if rest.startswith("[") and rest.endswith("]"):
                items.extend(
                    part.strip().strip("'\"") for part in rest[1:-1].split(",") if part.strip()
                )
            elif rest:
                items.append(rest.strip("'\""))
            skipping = True
            continue
        out.append(line)
    if item not in items:
        items.append(item)
    block = [f"{key}:", *(f"- {value}" for value in items)]
    if position is None:
        anchor = next(
            (i for i, line in enumerate(out) if before and line.startswith(f"{before}:")), len(out)
        )
        position = anchor
    return out[:position] + block + out[position:]
