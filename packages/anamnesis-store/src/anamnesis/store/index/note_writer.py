"""Writing and removing note files together with their index rows.

A note file is written while holding the index write lock, so file and row change
together: no other process can see (or write) a second file for the id in between, and if
the row cannot be written the disk is put back. Every note is masked for secrets on the
way in (:mod:`.secret_scan`): this is the one place that does it for every writer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from anamnesis.store.errors import InvalidNote, NoteNotFound, StorageError
from anamnesis.store.files import batch_journal
from anamnesis.store.files.atomic import Staged, atomic_write_bytes, stage
from anamnesis.store.index import db as ix
from anamnesis.store.index.broken_files import clear_broken
from anamnesis.store.index.folder_marks import note_own_change
from anamnesis.store.index.note_files import NoteFile, mtime_or_none, read_bytes, salvage, serialize
from anamnesis.store.note.limits import NoteLimits
from anamnesis.store.note.model import NOTE_TYPES, Memory
from anamnesis.store.note.timestamps import utc_now
from anamnesis.store.note.validation import check_limits, validate_note
from anamnesis.store.secrets.secret_scan import mask_note

if TYPE_CHECKING:
    import sqlite3
    from pathlib import Path

    from anamnesis.store.index.connection import IndexConnection
    from anamnesis.store.index.indexer import Indexer


class NoteWriter:
    """Saves and deletes the notes of one store (see the module docstring)."""

    def __init__(self, index: IndexConnection, indexer: Indexer, *, mask_secrets: bool) -> None:
        self.index = index
        self.indexer = indexer
        self.layout = indexer.layout
        self.mask_secrets = mask_secrets
        self._known_dirs: set[Path] = set()

    def prepare(self, mem: Memory, *, capture_digest: bool = False) -> Memory:
        """A validated copy of the note with its secrets masked: what :meth:`save` writes.
        ``capture_digest``: with the digest of its title and body as masked, which says
        the note is still capture's (:mod:`.capture_digest`). Raises
        :class:`~.errors.InvalidNote` for a note that breaks a rule or a limit (checked
        again once masked: the limits are on what is stored), or whose file would be too
        large to read back."""
        checked = validate_note(mem)
        if self.mask_secrets:
            masked = mask_note(checked)
            if masked is not checked:  # a masked secret can be longer than the secret
                check_limits(masked, masked=True)
            checked = masked
        if capture_digest:
            from anamnesis.store.note.capture_digest import CAPTURE_DIGEST_KEY, content_digest

            digest = content_digest(checked.title, checked.body)
            checked = checked.replace(extra={**checked.extra, CAPTURE_DIGEST_KEY: digest})
            check_limits(checked)  # the digest is one more value in extra
        _check_file_size(checked)
        return checked

    def save(self, mem: Memory, *, new: bool = False, capture_digest: bool = False) -> Memory:
        """Validate and mask (:meth:`prepare`), then write (:meth:`save_prepared`)."""
        return self.save_prepared(self.prepare(mem, capture_digest=capture_digest), new=new)

    def save_prepared(self, mem: Memory, *, new: bool = False) -> Memory:
        """Write a note :meth:`prepare` made, its file and its index row together.

        The file is staged in a temp file and flushed in the background while the row is
        written; it is renamed into place once flushed, before the row commits. If the note
        changed type or scope its old file is removed last, still under the lock. If the
        row cannot be written the disk is put back: no new file, or the previous content of
        the file this write replaced. ``new`` says the id was just minted, so there is no
        older file or row to look for. Missing timestamps are set to now (on ``mem``: the
        copy :meth:`prepare` made, never a caller's note).
        """
        if not mem.created_at or not mem.updated_at:
            now = utc_now()
            mem.created_at = mem.created_at or now
            mem.updated_at = mem.updated_at or now
        text = serialize(mem)
        target = self.layout.note_path(mem.scope, mem.type, mem.id)
        rel = self.layout.rel_path(mem.type, mem.id)

        def action() -> Memory:
            conn = self.index.connection()
            with ix.write_transaction(conn, self.layout.db_path):
                old_row = None
                if not new:
                    old_row = ix.rows_by_id(conn, [mem.id], with_body=False).get(mem.id)
                moved_from = None
                if old_row is not None and self.indexer.row_path(old_row) != target:
                    moved_from = NoteFile(
                        self.indexer.row_path(old_row), old_row.memory.scope, old_row.body_path
                    )
                previous = None if new else read_bytes(target)
                before = mtime_or_none(target.parent)
                staged = self._stage(target, text)
                # The file is flushed in the background while its row is written (an
                # fsync holds no GIL while it waits); the rename waits for the flush.
                flushing = staged.start_sync()
                published = False
                try:
                    ix.upsert(conn, mem, rel, staged.size, staged.mtime_ns, new=old_row is None)
                    flushing.wait()
                    staged.publish()
                    published = True
                    if moved_from is not None:  # type or scope changed
                        self._remove_file(conn, moved_from)
                except BaseException:
                    if not published:  # the target was never touched
                        staged.discard()
                    elif previous is None:
                        target.unlink(missing_ok=True)
                    else:
                        atomic_write_bytes(target, previous)
                    raise
                if not new:  # a file reported broken at this path was just replaced
                    clear_broken(conn, mem.scope, rel)
                note_own_change(conn, mem.scope, mem.type, before, target.parent)
            return mem

        try:
            return self.index.run(action)
        except OSError as exc:
            raise StorageError(
                f"cannot write {target}: {exc.strerror or exc}; "
                "check free disk space and permissions"
            ) from None

    def save_all(self, mems: list[Memory]) -> list[Memory]:
        """Save several notes all or nothing (see :mod:`.batch_journal`): every file is
        staged and flushed and every row written before the first file is renamed into
        place, all under one index write lock. Raises before anything is visible when a
        note is invalid, two notes share an id, or a file cannot be staged."""
        prepared = []
        for mem in mems:
            try:
                prepared.append(self.prepare(mem))
            except InvalidNote as exc:  # say which note of the batch
                raise exc.naming(mem.id) from None
        if len({mem.id for mem in prepared}) != len(prepared):
            raise InvalidNote("id", "a batch holds two notes with the same id")
        now = utc_now()
        for mem in prepared:
            mem.created_at = mem.created_at or now
            mem.updated_at = mem.updated_at or now

        def action() -> list[Memory]:
            conn = self.index.connection()
            staged: list[Staged] = []
            with ix.write_transaction(conn, self.layout.db_path):
                try:
                    moved = []
                    for mem in prepared:
                        target = self.layout.note_path(mem.scope, mem.type, mem.id)
                        rel = self.layout.rel_path(mem.type, mem.id)
                        old_row = ix.rows_by_id(conn, [mem.id], with_body=False).get(mem.id)
                        if old_row is not None and self.indexer.row_path(old_row) != target:
                            path = self.indexer.row_path(old_row)
                            moved.append(NoteFile(path, old_row.memory.scope, old_row.body_path))
                        one = self._stage(target, serialize(mem))
                        staged.append(one)
                        ix.upsert(conn, mem, rel, one.size, one.mtime_ns, new=old_row is None)
                        clear_broken(conn, mem.scope, rel)
                    for one in staged:
                        one.sync()
                    renames = [(one.tmp, one.target) for one in staged]
                    batch_journal.write_journal(self.layout, renames)
                except BaseException:
                    for one in staged:
                        one.discard()
                    raise
                batch_journal.finish(self.layout)  # a crash in here: the next open does it
                for note in moved:
                    self._remove_file(conn, note)
            return prepared

        try:
            return self.index.run(action)
        except OSError as exc:
            raise StorageError(
                f"cannot write the batch of {len(prepared)} notes: {exc.strerror or exc}; "
                "nothing of it was written; check free disk space and permissions"
            ) from None

    def delete(self, memory_id: str) -> Memory:
        """Remove every file known to hold the id (the indexed one, any at the id's
        canonical paths, even one that no longer parses, and duplicate copies) and its
        rows; return the note as it was."""

        def action() -> Memory:
            conn = self.index.connection()
            with ix.write_transaction(conn, self.layout.db_path):
                row = ix.rows_by_id(conn, [memory_id]).get(memory_id)
                copies = self._files_holding(conn, memory_id, row)
                if not copies and row is None:
                    raise NoteNotFound(memory_id)
                gone = row.memory if row is not None else salvage(copies[0], memory_id)
                for note in copies:
                    self._remove_file(conn, note)
                ix.delete(conn, memory_id)
                return gone

        return self.index.run(action)

    def _files_holding(
        self, conn: sqlite3.Connection, memory_id: str, row: ix.NoteRow | None
    ) -> list[NoteFile]:
        """Existing files that hold (or, at a canonical path, claim) this id."""
        found: dict[Path, NoteFile] = {}
        if row is not None:
            path = self.indexer.row_path(row)
            found[path] = NoteFile(path, row.memory.scope, row.body_path)
        for tree, scope in self.layout.trees():
            for note_type in NOTE_TYPES:
                rel = self.layout.rel_path(note_type, memory_id)
                found.setdefault(tree / rel, NoteFile(tree / rel, scope, rel))
        for note in self.indexer.duplicates_of(conn, memory_id):
            found.setdefault(note.path, note)
        return [note for note in found.values() if note.path.exists()]

    def _remove_file(self, conn: sqlite3.Connection, note: NoteFile) -> None:
        """Unlink one note file inside a write transaction, keeping the bookkeeping exact."""
        before = mtime_or_none(note.path.parent)
        try:
            note.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StorageError(
                f"cannot delete {note.path}: {exc.strerror or exc}; check its permissions"
            ) from None
        clear_broken(conn, note.scope, note.rel)
        folder, _, _name = note.rel.rpartition("/")
        if "/" not in folder:  # only a tree and its direct subfolders are watched
            note_own_change(conn, note.scope, folder, before, note.path.parent)

    def _stage(self, target: Path, text: str) -> Staged:
        if target.parent not in self._known_dirs:
            target.parent.mkdir(parents=True, exist_ok=True)
            self._known_dirs.add(target.parent)
        try:
            return stage(target, text)
        except FileNotFoundError:  # the folder was removed behind our back
            self._known_dirs.discard(target.parent)
            target.parent.mkdir(parents=True, exist_ok=True)
            return stage(target, text)


def _check_file_size(mem: Memory) -> None:
    """Raise :class:`~.errors.InvalidNote` when the note's file, as :meth:`NoteWriter.save`
    would write it, is over the size a reindex reads back (:mod:`.safe_files`): a note
    the store accepted must never be one it later drops. The field limits keep a file
    far under it (:mod:`.limits`); this measures the file itself."""
    if not mem.created_at or not mem.updated_at:  # as save fills them: the same length
        now = utc_now()
        mem = mem.replace(created_at=mem.created_at or now, updated_at=mem.updated_at or now)
    size = len(serialize(mem).encode("utf-8"))
    if size > NoteLimits.FILE_BYTES:
        raise InvalidNote(
            "note",
            f"its file would be {size:,} bytes, over the {NoteLimits.FILE_BYTES:,} bytes a "
            "note file may have to be read back; shorten the body or the frontmatter",
        )
