"""Tombstones: the trace a note leaves on a remote it moved away from.

Moving a note off a remote (``share``, ``remote check --apply``) deletes it there and
writes ``.anamnesis/moved/<id>`` in the same commit (``moved <id> to <name>``). A machine
that pulls the deletion reads the tombstone: with the target remote it re-pins the note
there and keeps its file; without it, it deletes its copy (it no longer has access).
Ids never change, so the tombstone names the note by its id alone.

``default`` names a different remote on each machine (each person's own), so a note
moved to ``default`` also records a mark of that remote (``remote:``, a short hash of its
URL, credentials hidden first): only a machine whose default remote is the same one
keeps the note; a teammate's machine, whose default is its own, deletes its copy.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anamnesis.ops.remotes.config import DEFAULT
from anamnesis.store import utc_now

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home
    from anamnesis.ops.remotes.routing import Router

MOVED_DIR = ".anamnesis/moved"
_ID = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
_LINE = re.compile(r"(moved-to|at|by|remote): *(\S.*)")


@dataclass(frozen=True, slots=True)
class Tombstone:
    note_id: str
    moved_to: str
    at: str
    by: str
    remote: str = ""  # the mark of the default remote it moved to (see the module)


def tombstone_path(note_id: str) -> str:
    """Its path inside a synced folder (a checked id: ids never become paths unchecked)."""
    if not _ID.fullmatch(note_id):
        raise ValueError(f"not a note id: {note_id!r}")
    return f"{MOVED_DIR}/{note_id}"


def remote_mark(url: str) -> str:
    """A short mark of a remote's URL (credentials hidden first), never the URL itself."""
    from anamnesis.sync import redact_url

    return hashlib.sha256(redact_url(url).strip().rstrip("/").encode()).hexdigest()[:16]


def tombstone_bytes(home: Home, moved_to: str) -> bytes:
    text = f"moved-to: {moved_to}\nat: {utc_now()}\nby: {home.machine_id}\n"
    if moved_to == DEFAULT and home.remote is not None:
        text += f"remote: {remote_mark(home.remote)}\n"
    return text.encode()


def has_target(home: Home, router: Router, stone: Tombstone) -> bool:
    """Whether this machine has the remote the note moved to (so keeps the note)."""
    if stone.moved_to not in router.names:
        return False
    if stone.moved_to != DEFAULT or not stone.remote:
        return True
    return home.remote is not None and remote_mark(home.remote) == stone.remote


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
    return Tombstone(
        note_id,
        fields["moved-to"],
        fields.get("at", ""),
        fields.get("by", ""),
        fields.get("remote", ""),
    )


def move_message(note_id: str, moved_to: str) -> str:
    return f"anamnesis: moved {note_id} to {moved_to}"
