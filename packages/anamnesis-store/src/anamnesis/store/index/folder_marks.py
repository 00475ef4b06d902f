"""Folder mtimes the index last saw: how the store notices files added or removed by hand.

Each note tree and its direct subfolders (the type folders) are watched: ``index_meta``
keeps one ``dir:<scope>:<path in tree>`` entry with the folder's mtime when it was last
scanned. A folder whose mtime moved on is rescanned (:mod:`.catch_up`). This module is
the only place that spells the key out.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.index import db as ix
from anamnesis.store.index.note_files import mtime_or_none
from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3

    from anamnesis.store.files.layout import StoreLayout

_PREFIX = "dir:"


class WatchedFolder(Record):
    """A watched folder: where it is, its tree, its path in the tree ("" for the tree
    itself) and its mtime now."""

    __slots__ = ("mtime_ns", "path", "rel", "scope")

    def __init__(self, path: Path, scope: str, rel: str, mtime_ns: int) -> None:
        self.path = path
        self.scope = scope
        self.rel = rel
        self.mtime_ns = mtime_ns


def watched_folders(layout: StoreLayout) -> list[WatchedFolder]:
    """Each tree and its direct subfolders, with their mtimes now."""
    out: list[WatchedFolder] = []
    for tree, scope in layout.trees():
        mtime = mtime_or_none(tree)
        if mtime is None:
            continue
        out.append(WatchedFolder(tree, scope, "", mtime))
        try:
            entries = list(os.scandir(tree))
        except OSError:
            continue
        for entry in entries:
            # A linked folder is never entered: its notes would come from outside.
            if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                continue
            sub_mtime = mtime_or_none(entry.path)
            if sub_mtime is not None:
                out.append(WatchedFolder(Path(entry.path), scope, entry.name, sub_mtime))
    return out


def changed_folders(conn: sqlite3.Connection, folders: list[WatchedFolder]) -> list[WatchedFolder]:
    """The folders whose mtime is not the one recorded when they were last scanned."""
    seen = ix.get_meta(conn, _PREFIX)
    return [f for f in folders if seen.get(_key(f.scope, f.rel)) != str(f.mtime_ns)]


def mark_scanned(conn: sqlite3.Connection, folder: WatchedFolder) -> None:
    """Record the mtime the folder had when its scan began (inside a write transaction):
    a change made during the scan is then seen next time."""
    ix.set_meta(conn, _key(folder.scope, folder.rel), str(folder.mtime_ns))


def note_own_change(
    conn: sqlite3.Connection, scope: str, folder: str, before: int | None, directory: Path
) -> None:
    """After our own write or removal in ``folder`` (a path in the tree: a type folder,
    or "" for the tree itself), move its recorded mtime along, but only if it was up to
    date before: our writes then cost no rescan on the next read, while a change someone
    else made in between is still noticed."""
    after = mtime_or_none(directory)
    if before is not None and after is not None:
        conn.execute(
            "UPDATE index_meta SET value = ? WHERE key = ? AND value = ?",
            (str(after), _key(scope, folder), str(before)),
        )


def _key(scope: str, rel: str) -> str:
    return f"{_PREFIX}{scope}:{rel}"
