"""keep-both: turn the local side of a conflicting note into a new note that supersedes
the remote one, without importing the store (sync depends on dulwich alone).

The store writes frontmatter as simple ``key: value`` lines; this edits those lines: a
fresh id, ``supersedes`` gains the old id, ``tags`` gains ``conflict``. A file that is not a
note (no frontmatter) is kept beside the original under a ``.conflict-<machine>`` name.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable

# (path, our bytes, their bytes) -> (new path, new bytes) for our side.
Fork = Callable[[str, bytes, bytes], tuple[str, bytes]]

_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_ULID = re.compile(r"[0-7][0-9A-HJKMNP-TV-Z]{25}")


def new_ulid() -> str:
    """A ULID (48-bit millisecond time, 80 random bits) in Crockford base32."""
    value = (int(time.time() * 1000) << 80) | int.from_bytes(os.urandom(10), "big")
    return "".join(_CROCKFORD[(value >> shift) & 31] for shift in range(125, -1, -5))


def fork_note(path: str, ours: bytes, theirs: bytes, *, machine_id: str) -> tuple[str, bytes]:
    """Our version of ``path`` as a new note superseding the remote version."""
    del theirs  # the remote version stays where it is, untouched
    text = ours.decode("utf-8", errors="surrogateescape")
    if text.startswith("---\n") and "\n---\n" in text[3:]:
        front, body = text[4:].split("\n---\n", 1)
        lines = front.split("\n")
        old_id = _value(lines, "id")
        if old_id and _ULID.fullmatch(old_id):
            fresh = new_ulid()
            lines = _set_scalar(lines, "id", fresh)
            lines = _add_to_list(lines, "supersedes", old_id, before="created_at")
            lines = _add_to_list(lines, "tags", "conflict", before=None)
            directory = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
            new_text = "---\n" + "\n".join(lines) + "\n---\n" + body
            return f"{directory}{fresh}.md", new_text.encode("utf-8", errors="surrogateescape")
    stem, dot, suffix = path.rpartition(".")
    label = re.sub(r"[^A-Za-z0-9._-]", "-", machine_id) or "local"
    renamed = (
        f"{stem}.conflict-{label}.{suffix}"
        if dot and "/" not in suffix
        else f"{path}.conflict-{label}"
    )
    return renamed, ours


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
