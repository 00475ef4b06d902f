"""Files to rows: indexing one note file, a whole rebuild, and reading rows back as notes.

The markdown files are the truth. Every row records the stat (size, mtime) of the file it
came from: a read whose stat still matches uses the row (no YAML), a read whose stat
changed re-parses the file and refreshes the row. Two files holding one id are ranked
(:class:`~.note_files.Copy`): the index shows one, and the other is recorded as a
duplicate (:mod:`.broken_files`), tried again when the shown one goes away. Every method
that takes a connection runs inside the caller's write transaction.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.config import resolve_machine_id
from anamnesis.store.errors import MalformedNote
from anamnesis.store.index import db as ix
from anamnesis.store.index import file_format
from anamnesis.store.index.broken_files import broken_entries, clear_broken, record_broken
from anamnesis.store.index.folder_marks import mark_scanned, watched_folders
from anamnesis.store.index.note_files import (
    Copy,
    NoteFile,
    load,
    note_files,
    parse,
    read_text,
    stat_matches,
    stat_or_none,
)
from anamnesis.store.note.model import NOTE_TYPES, AdoptedFile, Memory, ReindexReport, SkippedFile

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable

    from anamnesis.store.files.layout import StoreLayout

    Progress = Callable[[int, int], None]


class Indexer:
    """Keeps the rows of one store's index in step with its note files."""

    def __init__(self, layout: StoreLayout) -> None:
        self.layout = layout
        # Plain strings for the per-row stat on hot read paths: pathlib costs ~10x more.
        self._tree_prefix = {scope: f"{tree}{os.sep}" for tree, scope in layout.trees()}

    def row_path(self, row: ix.NoteRow) -> Path:
        return self.layout.tree(row.memory.scope) / row.body_path

    # -- reading rows as the files say now -------------------------------------------

    def current_all(
        self, conn: sqlite3.Connection, rows: list[ix.NoteRow], include_body: bool
    ) -> tuple[list[Memory], bool]:
        """The notes for these rows as the files say now; True if any file had changed."""
        notes: list[Memory] = []
        changed = False
        for row in rows:
            unchanged = stat_matches(self._tree_prefix[row.memory.scope] + row.body_path, row)
            if unchanged and row.complete:
                notes.append(row.memory)
                continue
            changed = changed or not unchanged
            mem = self.current(conn, row, strict=False)
            if mem is not None:
                notes.append(mem if include_body else mem.replace(body=""))
        return notes, changed

    def settled(
        self, conn: sqlite3.Connection, fetch: Callable[[], list[ix.NoteRow]], include_body: bool
    ) -> list[Memory]:
        """The rows ``fetch`` gives (run in a read transaction) as their files say now. If
        a file had changed since its row was made, the answer is asked for again (a hand
        edit may change the order or the ranking), at most three times in all."""
        notes: list[Memory] = []
        for _attempt in range(3):
            with ix.read_transaction(conn):
                rows = fetch()
            notes, refreshed = self.current_all(conn, rows, include_body)
            if not refreshed:
                break
        return notes

    def current(self, conn: sqlite3.Connection, row: ix.NoteRow, *, strict: bool) -> Memory | None:
        """The note behind a row, re-read if its file changed; None if gone or broken.

        With ``strict``, a file that no longer parses raises :class:`MalformedNote`.
        """
        path = self.row_path(row)
        if not stat_matches(path, row):
            with ix.write_transaction(conn, self.layout.db_path):
                problem = self.index_file(conn, NoteFile(path, row.memory.scope, row.body_path))
                fresh = ix.rows_by_id(conn, [row.memory.id]).get(row.memory.id)
            if problem is not None and strict:
                raise MalformedNote(problem.path, problem.reason)
            if fresh is None:
                return None
            row = fresh
        if row.complete:
            return row.memory
        # The row cannot hold this note's extra keys exactly: read them from the file.
        try:
            return parse(read_text(path)[0], str(path), row.memory.scope)
        except (OSError, UnicodeDecodeError, MalformedNote):
            if strict:
                raise
            return None

    # -- one file --------------------------------------------------------------------

    def index_file(
        self, conn: sqlite3.Connection, note: NoteFile, *, fts: bool = True
    ) -> SkippedFile | None:
        """(Re)index one file; a problem is recorded and returned instead of raised. A
        vanished file has its rows removed."""
        try:
            loaded = load(note)
        except FileNotFoundError:
            self.unindex_path(conn, note.scope, note.rel, fts=fts)
            clear_broken(conn, note.scope, note.rel)
            return None
        if isinstance(loaded, str):
            self.unindex_path(conn, note.scope, note.rel, fts=fts)
            return record_broken(conn, note, stat_or_none(note.path), loaded)
        mem, stat = loaded
        holder = conn.execute(
            "SELECT scope, body_path, type, updated_at FROM memories WHERE id = ?", (mem.id,)
        ).fetchone()
        if holder is not None and (holder[0], holder[1]) != (note.scope, note.rel):
            other = NoteFile(self.layout.tree(holder[0]) / holder[1], holder[0], holder[1])
            other_stat = stat_or_none(other.path)
            if other_stat is not None:
                mine = Copy(note, mem.id, mem.type, mem.updated_at, stat.st_mtime_ns)
                theirs = Copy(other, mem.id, holder[2], holder[3], other_stat.st_mtime_ns)
                loser, winner = (theirs, note) if mine.beats(theirs) else (mine, other)
                problem = record_broken(
                    conn,
                    loser.note,
                    stat if loser is mine else other_stat,
                    f"duplicate id {mem.id}: also in {winner.path}",
                    mem.id,
                )
                if loser is mine:
                    return problem
        # A file may have been given another id by hand: drop what the path held before.
        previous = conn.execute(
            "SELECT id FROM memories WHERE scope = ? AND body_path = ?", (note.scope, note.rel)
        ).fetchone()
        if previous is not None and previous[0] != mem.id:
            ix.delete(conn, previous[0], fts=fts)
        ix.upsert(conn, mem, note.rel, stat.st_size, stat.st_mtime_ns, fts=fts)
        clear_broken(conn, note.scope, note.rel)
        if previous is not None and previous[0] != mem.id:
            self._revive(conn, previous[0], fts=fts)
        return None

    def index_paths(self, conn: sqlite3.Connection, paths: list[str | Path]) -> ReindexReport:
        """Bring the rows of these files up to date: a file that is gone loses its row,
        a path outside the note trees is reported as skipped, hidden names and files that
        are not ``.md`` are passed over."""
        indexed = removed = 0
        skipped: list[SkippedFile] = []
        for raw in paths:
            path = Path(raw)
            if path.suffix != ".md" or path.name.startswith("."):
                continue
            located = self.layout.locate(path)
            if located is None:
                skipped.append(SkippedFile(str(raw), "not inside memory/ or local/"))
                continue
            scope, rel = located
            note = NoteFile(self.layout.tree(scope) / rel, scope, rel)
            if note.path.exists():
                problem = self.index_file(conn, note)
                if problem is None:
                    indexed += 1
                else:
                    skipped.append(problem)
            elif self.unindex_path(conn, scope, rel):
                removed += 1
        return ReindexReport(indexed=indexed, removed=removed, skipped=tuple(skipped))

    def unindex_path(
        self, conn: sqlite3.Connection, scope: str, rel: str, *, fts: bool = True
    ) -> bool:
        """Drop the row of the file at this path (gone or broken); True if there was one."""
        row = conn.execute(
            "SELECT id FROM memories WHERE scope = ? AND body_path = ?", (scope, rel)
        ).fetchone()
        if row is None or not ix.delete(conn, row[0], fts=fts):
            return False
        self._revive(conn, row[0], fts=fts)
        return True

    def duplicates_of(self, conn: sqlite3.Connection, memory_id: str) -> list[NoteFile]:
        """Files set aside as duplicate copies of this id."""
        return [
            entry.note(self.layout)
            for entry in broken_entries(conn)
            if entry.duplicate_of == memory_id
        ]

    def _revive(self, conn: sqlite3.Connection, memory_id: str, *, fts: bool = True) -> None:
        """The indexed file of this id is gone: index a copy that was set aside for it.

        Without this a copy reported as a duplicate would stay hidden until its own file
        changed or a full reindex ran (a note moved by hand, copy then delete, vanished).
        """
        for note in self.duplicates_of(conn, memory_id):
            # The first copy takes the id; each later one is compared with it, so the winner
            # is the one a full reindex would pick.
            self.index_file(conn, note, fts=fts)

    # -- every file ------------------------------------------------------------------

    def rebuild(self, conn: sqlite3.Connection, progress: Progress | None) -> ReindexReport:
        """Rebuild the whole index from the files in one write transaction, then give the
        pages it no longer uses back to the disk."""
        with ix.write_transaction(conn, self.layout.db_path):
            ix.recreate_schema(conn)
            report = self.fill(conn, progress)
            ix.mark_current(conn)
        file_format.give_back_free_pages(conn)
        return report

    def fill(self, conn: sqlite3.Connection, progress: Progress | None) -> ReindexReport:
        """Index every note file into empty tables."""
        folders = watched_folders(self.layout)
        files = list(note_files(self.layout))
        skipped: list[SkippedFile] = []
        adopted: list[AdoptedFile] = []
        # id -> the copy indexed. Not its stat: 100,000 of those held 60 MB through a
        # rebuild; a duplicate's (rare) is read again when it is reported.
        holders: dict[str, Copy] = {}
        for done, note in enumerate(files, start=1):
            try:
                loaded: tuple[Memory, os.stat_result] | str | None = load(note)
                if isinstance(loaded, str) and self._adopt(note, holders):
                    loaded = load(note)
                    if isinstance(loaded, tuple):
                        adopted.append(AdoptedFile(str(note.path), loaded[0].id))
            except FileNotFoundError:
                loaded = None  # removed while we were scanning
            if isinstance(loaded, str):
                skipped.append(record_broken(conn, note, stat_or_none(note.path), loaded))
            elif isinstance(loaded, tuple):
                mem, stat = loaded
                mine = Copy(note, mem.id, mem.type, mem.updated_at, stat.st_mtime_ns)
                theirs = holders.get(mem.id)
                if theirs is not None:
                    if not mine.beats(theirs):
                        reason = f"duplicate id {mem.id}: also in {theirs.note.path}"
                        skipped.append(record_broken(conn, note, stat, reason, mem.id))
                        continue
                    reason = f"duplicate id {mem.id}: also in {note.path}"
                    their_stat = stat_or_none(theirs.note.path)
                    skipped.append(record_broken(conn, theirs.note, their_stat, reason, mem.id))
                    ix.delete(conn, mem.id, fts=False)
                holders[mem.id] = mine
                ix.upsert(
                    conn,
                    mem,
                    note.rel,
                    stat.st_size,
                    stat.st_mtime_ns,
                    new=theirs is None,
                    fts=False,
                )
            if progress is not None:
                progress(done, len(files))
        ix.create_indexes(conn)  # after the fill, in one pass: far cheaper than row by row
        for folder in folders:
            mark_scanned(conn, folder)
        return ReindexReport(indexed=len(holders), skipped=tuple(skipped), adopted=tuple(adopted))

    def _adopt(self, note: NoteFile, holders: dict[str, Copy]) -> bool:
        """Give a hand-written note without an id one (see :mod:`.adoption`); ``holders``
        are the ids indexed so far (a file named after one of them gets a new id)."""
        # Only for a file without an id: adoption writes it back through the YAML codec.
        from anamnesis.store.files.adoption import adopt

        def taken(memory_id: str) -> bool:
            # Ids of files not indexed yet are not known: a file named after one of them
            # would come out as a duplicate, so only a name no other file has is used.
            canonical = (
                self.layout.note_path(scope, note_type, memory_id)
                for _tree, scope in self.layout.trees()
                for note_type in NOTE_TYPES
            )
            return memory_id in holders or any(
                path != note.path and path.exists() for path in canonical
            )

        machine = resolve_machine_id(self.layout.root)
        return adopt(note.path, note.rel, note.scope, machine, taken) is not None
