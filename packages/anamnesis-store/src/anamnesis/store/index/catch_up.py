"""Noticing changes made behind the store's back: a hand-made note, a git checkout.

Before each read the store asks :meth:`CatchUp.run` to index files added, removed or
renamed since the last look. The common case costs a few stat calls: if none of the
watched folders (:mod:`.folder_marks`) and none of the files known to be broken
(:mod:`.broken_files`) changed since the last full check, nothing else runs.

A read never waits for another process's write to catch up. A folder that changed while
another process holds the write lock was most often changed by that very write (which
moves the folder's mark along as it commits); the read goes on with the index as
committed, as a read a moment earlier would have, and the next read looks again. Waiting
made every session's hooks queue behind every other session's writes: under twenty
sessions at once, a third of the prompt hooks waited 50-650 ms here, on a lock held by a
write at background priority.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.index import db as ix
from anamnesis.store.index.broken_files import broken_entries
from anamnesis.store.index.folder_marks import changed_folders, mark_scanned, watched_folders
from anamnesis.store.index.note_files import NoteFile, mtime_or_none, stat_key

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3

    from anamnesis.store.index.indexer import Indexer


class CatchUp:
    """Remembers what the last look saw, so the next one costs a few stats."""

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer
        self.layout = indexer.layout
        # The folders and broken files the last look checked, and their stats then.
        self._probe_paths: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._last_probe: object = None

    def run(self, conn: sqlite3.Connection) -> None:
        """Index what changed on disk since the last look (under the store's lock)."""
        probe = self._probe()
        if probe is not None and probe == self._last_probe:
            return
        watched = watched_folders(self.layout)
        if changed_folders(conn, watched) or self._broken_files_changed(conn):
            with ix.write_transaction_if_free(conn) as free:
                if not free:  # another process is writing: look again next read
                    return
                # Looked at again under the lock, where no store writes: the folders as they
                # are now, against marks another reader may have just brought up to date
                # (sessions that waited for the lock together rescan once, not once each,
                # and none records an mtime that a write it waited for has since moved on).
                watched = watched_folders(self.layout)
                for folder in changed_folders(conn, watched):
                    self._rescan(conn, folder.path, folder.scope, folder.rel)
                    mark_scanned(conn, folder)
                for note in self._broken_files_changed(conn):
                    self.indexer.index_file(conn, note)
        # What to stat next time: the folders just checked and the files still broken. The
        # mtimes were taken before the check, so a change made meanwhile is seen next time.
        broken = {
            str(self.layout.tree(entry.scope) / entry.rel): (entry.size, entry.mtime_ns)
            for entry in broken_entries(conn)
        }
        self._probe_paths = (tuple(str(folder.path) for folder in watched), tuple(broken))
        self._last_probe = (tuple(folder.mtime_ns for folder in watched), tuple(broken.values()))

    def _probe(self) -> tuple[tuple[int | None, ...], tuple[tuple[int, int] | None, ...]] | None:
        if self._probe_paths is None:
            return None
        folders, broken = self._probe_paths
        return (
            tuple(mtime_or_none(path) for path in folders),
            tuple(stat_key(path) for path in broken),
        )

    def _broken_files_changed(self, conn: sqlite3.Connection) -> list[NoteFile]:
        """Broken files edited (or removed) since they failed: worth another try."""
        out: list[NoteFile] = []
        for entry in broken_entries(conn):
            note = entry.note(self.layout)
            try:
                stat = note.path.stat()
            except OSError:
                out.append(note)  # gone: drop the record
                continue
            if (stat.st_size, stat.st_mtime_ns) != (entry.size, entry.mtime_ns):
                out.append(note)
        return out

    def _rescan(self, conn: sqlite3.Connection, directory: Path, scope: str, rel: str) -> None:
        """Make the rows of one folder's files match the folder (not its subfolders)."""
        prefix = f"{rel}/" if rel else ""
        on_disk: dict[str, os.DirEntry[str]] = {}
        try:
            for entry in os.scandir(directory):
                if entry.name.endswith(".md") and not entry.name.startswith("."):
                    on_disk[prefix + entry.name] = entry
        except FileNotFoundError:
            pass
        if rel:
            rows = conn.execute(
                "SELECT body_path, file_size, file_mtime_ns FROM memories"
                " WHERE scope = ? AND body_path >= ? AND body_path < ?",
                (scope, prefix, f"{rel}0"),  # '0' is the character after '/'
            ).fetchall()
        else:
            rows = conn.execute(
                "SELECT body_path, file_size, file_mtime_ns FROM memories"
                " WHERE scope = ? AND instr(body_path, '/') = 0",
                (scope,),
            ).fetchall()
        indexed = {
            path: (size, mtime) for path, size, mtime in rows if "/" not in path[len(prefix) :]
        }
        for path in indexed.keys() - on_disk.keys():
            self.indexer.unindex_path(conn, scope, path)
        for path, entry in on_disk.items():
            try:
                stat = entry.stat(follow_symlinks=False)  # a link is reported, not followed
            except OSError:
                continue
            if indexed.get(path) != (stat.st_size, stat.st_mtime_ns):
                self.indexer.index_file(conn, NoteFile(Path(entry.path), scope, path))
