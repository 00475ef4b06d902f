"""Tombstones: the trace a note leaves on a remote it moved away from.

Moving a note off a remote (``share``, ``remote check --apply``) deletes it there and
writes ``.anamnesis/moved/<id>`` in the same commit (``moved <id> to <name>``). A machine
that pulls the deletion reads the tombstone: with the target remote it re-pins the note
there and keeps its file; without it, it deletes its copy (it no longer has access).
Ids never change, so the tombstone names the note by its id alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from anamnesis.store import utc_now

MOVED_DIR = ".anamnesis/moved"
_ID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
_LINE = re.compile(r"(moved-to|at|by): *(\S.*)")


@dataclass(frozen=True, slots=True)
class Tombstone:
    note_id: str
    moved_to: str
    at: str
    by: str


def tombstone_path(note_id: str) -> str:
    """Its path inside a synced folder (a checked id: ids never become paths unchecked)."""
    if not _ID.fullmatch(note_id):
        raise ValueError(f"not a note id: {note_id!r}")
    return f"{MOVED_DIR}/{note_id}"


def tombstone_bytes(moved_to: str, machine_id: str) -> bytes:
    return f"moved-to: {moved_to}\nat: {utc_now()}\nby: {machine_id}\n".encode()


def read_tombstone(path: str, data: bytes) -> Tombstone | None:
    """The tombstone at ``path`` (inside a synced folder), or None when it is not one."""
    prefix = MOVED_DIR + "/"
    note_id = path[len(prefix) :] if path.startswith(prefix) else ""
    if not _ID.fullmatch(note_id):
        return None
    fields: dict[str, str] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        found = _LINE.fullmatch(line.strip())
        if found:
            fields[found.group(1)] = found.group(2).strip()
    if "moved-to" not in fields:
        return None
    return Tombstone(note_id, fields["moved-to"], fields.get("at", ""), fields.get("by", ""))


def move_message(note_id: str, moved_to: str) -> str:
    return f"anamnesis: moved {note_id} to {moved_to}"
