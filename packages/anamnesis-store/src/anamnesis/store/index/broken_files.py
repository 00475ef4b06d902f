"""The index's record of note files it could not use, and why.

A file that does not parse (or is a duplicate copy of an id another file holds) has no
row; instead ``index_meta`` keeps one ``broken:<scope>:<path in tree>`` entry for it, with
the reason and the stat the file had. ``problems()`` reports them, a read that asks for
the id explains itself with the reason, and catch-up retries a file once its stat changes.
This module is the only place that spells the key out.
"""

from __future__ import annotations

import json

from anamnesis.store.errors import MalformedNote
from anamnesis.store.index import db as ix
from anamnesis.store.index.note_files import NoteFile
from anamnesis.store.note.model import NOTE_TYPES, SkippedFile
from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import os
    import sqlite3
    from typing import Any

    from anamnesis.store.files.layout import StoreLayout

_PREFIX = "broken:"


class BrokenEntry(Record):
    """One file the index set aside: where it is, why, and its stat at the time."""

    __slots__ = ("duplicate_of", "mtime_ns", "reason", "rel", "scope", "size")

    def __init__(
        self,
        scope: str,
        rel: str,
        reason: str,
        size: int,
        mtime_ns: int,
        duplicate_of: str | None,
    ) -> None:
        self.scope = scope
        self.rel = rel
        self.reason = reason
        self.size = size
        self.mtime_ns = mtime_ns
        self.duplicate_of = duplicate_of

    def note(self, layout: StoreLayout) -> NoteFile:
        return NoteFile(layout.tree(self.scope) / self.rel, self.scope, self.rel)


def broken_entries(conn: sqlite3.Connection) -> list[BrokenEntry]:
    """Every file recorded as unusable, sorted by scope and path."""
    out = []
    for key, value in sorted(ix.get_meta(conn, _PREFIX).items()):
        scope, rel = key[len(_PREFIX) :].split(":", 1)
        record: dict[str, Any] = json.loads(value)
        out.append(
            BrokenEntry(
                scope, rel, record["reason"], record["size"], record["mtime_ns"], record.get("id")
            )
        )
    return out


def skipped_files(conn: sqlite3.Connection, layout: StoreLayout) -> list[SkippedFile]:
    """Every file the index could not use, with its reason (``MemoryStore.problems``)."""
    entries = broken_entries(conn)
    return [SkippedFile(str(entry.note(layout).path), entry.reason) for entry in entries]


def record_broken(
    conn: sqlite3.Connection,
    note: NoteFile,
    stat: os.stat_result | None,
    reason: str,
    duplicate_of: str | None = None,
) -> SkippedFile:
    """Record a file that cannot be indexed (inside a write transaction). ``duplicate_of``
    names the id a duplicate copy holds: when that id's indexed file goes away, the copy
    is tried again."""
    record: dict[str, object] = {
        "reason": reason,
        "size": stat.st_size if stat else -1,
        "mtime_ns": stat.st_mtime_ns if stat else -1,
    }
    if duplicate_of is not None:
        record["id"] = duplicate_of
    ix.set_meta(conn, _key(note.scope, note.rel), json.dumps(record))
    _log().warning("skipped %s: %s", note.path, reason)
    return SkippedFile(str(note.path), reason)


def clear_broken(conn: sqlite3.Connection, scope: str, rel: str) -> None:
    """The file at this path is fine now, or gone."""
    ix.set_meta(conn, _key(scope, rel), None)


def raise_if_broken(conn: sqlite3.Connection, layout: StoreLayout, memory_id: str) -> None:
    """A note file for this id exists at a canonical path but does not parse: raise
    :class:`MalformedNote` saying why."""
    entries = {(entry.scope, entry.rel): entry for entry in broken_entries(conn)}
    for tree, scope in layout.trees():
        for note_type in NOTE_TYPES:
            entry = entries.get((scope, layout.rel_path(note_type, memory_id)))
            if entry is not None:
                raise MalformedNote(str(tree / entry.rel), entry.reason)


def _key(scope: str, rel: str) -> str:
    return f"{_PREFIX}{scope}:{rel}"


def _log() -> Any:
    import logging  # only when a file breaks: logging costs the hooks' hot path an import

    return logging.getLogger("anamnesis.store")
