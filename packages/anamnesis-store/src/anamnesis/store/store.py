"""MemoryStore: markdown notes on disk, kept in step with a derived SQLite index.

The markdown files are the truth. Every index row records the stat (size, mtime) of the
file it came from: a read whose stat still matches uses the row (no YAML), a read whose
stat changed re-parses the file and refreshes the row. Folder mtimes tell the store when
files were added or removed behind its back (a hand-made note, a git checkout), so those
are picked up without an explicit reindex. The index can be deleted at any time.
"""

from __future__ import annotations

import builtins
import json
import os
import sqlite3
import time
import warnings
from _thread import RLock  # what threading.RLock is; importing threading costs more
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from types import TracebackType

from anamnesis.store import index as ix
from anamnesis.store.atomic import Staged, atomic_write_bytes, stage
from anamnesis.store.config import resolve_home
from anamnesis.store.errors import (
    AmbiguousId,
    IndexRebuiltWarning,
    IndexUnavailable,
    InvalidNote,
    InvalidQuery,
    MalformedNote,
    NoteNotFound,
    StorageError,
    StoreError,
)
from anamnesis.store.ids import check_id, check_prefix, new_id
from anamnesis.store.layout import StoreLayout
from anamnesis.store.model import (
    NOTE_TYPES,
    AdoptedFile,
    Memory,
    MemoryType,
    ReindexReport,
    Scope,
    SearchHit,
    SearchResult,
    SkippedFile,
    StoreStats,
)
from anamnesis.store.query import NOT_SUPERSEDED, Filters, Ranker, query_tokens
from anamnesis.store.record import Record
from anamnesis.store.safe_files import UnsafeFile, read_regular
from anamnesis.store.search_modes import SEARCH_MODE_ENV, SEARCH_MODES, configured_search_mode
from anamnesis.store.timestamps import utc_now

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:  # typing costs an import; the hooks' hot path does without it
    from typing import Any, Self, TypeVar

    from anamnesis.store.embedding import Embedder
    from anamnesis.store.leftovers import LeftoverFile
    from anamnesis.store.secret_scan import MaskedFile
    from anamnesis.store.vectors import StoreVectors

    T = TypeVar("T")

Progress = Callable[[int, int], None]

_DIR_KEY = "dir:"
_DB_SUFFIXES = ("", "-wal", "-shm")
_BROKEN_KEY = "broken:"
MAX_K = 1000
# A search embeds at most this many notes that lack a vector (about a second): more wait
# for a reindex or the MCP server's background pass.
SEARCH_EMBED_LIMIT = 64


class _ForeignIndex(Exception):
    """index.db is another program's SQLite database: move it aside, never rebuild in it."""


def _refuse_foreign(conn: sqlite3.Connection) -> None:
    kind = ix.foreign_kind(conn)
    if kind is not None:  # not ours: never drop another program's tables
        raise _ForeignIndex(kind)


class _NoteFile(Record):
    __slots__ = ("path", "rel", "scope")

    def __init__(self, path: Path, scope: str, rel: str) -> None:
        self.path = path
        self.scope = scope
        self.rel = rel


class _Copy(Record):
    """One file holding a note's id, ranked against another file holding the same id."""

    __slots__ = ("key", "note")

    def __init__(
        self, note: _NoteFile, memory_id: str, note_type: str, updated_at: str, mtime_ns: int
    ) -> None:
        self.note = note
        canonical = note.rel == StoreLayout.rel_path(note_type, memory_id)
        self.key = (canonical, updated_at, mtime_ns, note.scope == "portable")

    def beats(self, other: _Copy) -> bool:
        """Which copy the index shows, the same whichever was seen first: the one at its
        canonical path, then the newer ``updated_at``, then the newer file, then the synced
        tree, then the smaller path."""
        if self.key != other.key:
            return self.key > other.key
        return str(self.note.path) < str(other.note.path)


# The class defines a method named ``list`` (the spec's name), which hides the builtin in
# annotations inside the class body: those spell it ``builtins.list``.
class MemoryStore:
    """File-first memory store with a rebuildable SQLite FTS5 index.

    Thread-safe: one connection, used under a lock. Process-safe: WAL, a busy timeout and
    ``BEGIN IMMEDIATE`` writers; a note file is written while holding the index write lock,
    so file and row change together.
    """

    def __init__(self, root: Path | str | None = None, *, embedder: Embedder | None = None) -> None:
        """Open (or create) the store at ``root`` (default: ``$ANAMNESIS_HOME``).

        ``embedder`` is used by vector and hybrid search; by default the vectors extra's
        fastembed model is used when the extra is installed (see :mod:`.embedding`).
        """
        self.layout = StoreLayout(Path(root).expanduser() if root is not None else resolve_home())
        self._lock = RLock()
        self._embedder = embedder
        self._vector_state: StoreVectors | None = None
        # How many notes lacking a vector a search embeds before ranking (about a second);
        # a process that embeds in the background (the MCP server) sets 0.
        self.search_embed_limit = SEARCH_EMBED_LIMIT
        self._mode_cache: tuple[tuple[str, tuple[int, int] | None], str | None] | None = None
        # (data_version, total_changes, model) when the last embedding pass found nothing
        # left to do: searches skip the check until the index changes.
        self._embedded_at: tuple[int, int, str] | None = None
        self._conn: sqlite3.Connection | None = None
        self._known_dirs: set[Path] = set()
        self._ranker_cache: Ranker | None = None
        # The folders and broken files the last catch-up looked at, and their stats then.
        self._probe_paths: tuple[tuple[str, ...], tuple[str, ...]] | None = None
        self._last_probe: object = None
        # Plain strings for the per-row stat on hot read paths: pathlib costs ~10x more.
        self._tree_prefix = {scope: f"{tree}{os.sep}" for tree, scope in self.layout.trees()}
        try:
            self.layout.memory_dir.mkdir(parents=True, exist_ok=True)
            self.layout.local_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StorageError(
                f"cannot create the store at {self.layout.root}: {exc.strerror or exc}; "
                "check the path and its permissions, or set ANAMNESIS_HOME"
            ) from None
        self._conn = self._open()

    # -- paths -----------------------------------------------------------------------

    @property
    def root(self) -> Path:
        return self.layout.root

    @property
    def memory_dir(self) -> Path:
        return self.layout.memory_dir

    @property
    def local_dir(self) -> Path:
        return self.layout.local_dir

    @property
    def db_path(self) -> Path:
        return self.layout.db_path

    def path_of(self, mem: Memory) -> Path:
        """Where the store writes a note's file: ``<tree>/<type>/<id>.md``. A note written
        by hand may live elsewhere until it is next saved: :meth:`file_of` says where."""
        return self.layout.note_path(mem.scope, mem.type, mem.id)

    def file_of(self, memory_id: str) -> Path:
        """The file that holds this note now (a hand-written note keeps the name its
        author gave it until the store next saves it); raises :class:`NoteNotFound`."""
        check_id(memory_id)

        def action() -> Path:
            self._catch_up()
            row = ix.rows_by_id(self._connection(), [memory_id], with_body=False).get(memory_id)
            if row is None:
                raise NoteNotFound(memory_id)
            return self._row_path(row)

        return self._run(action)

    def __repr__(self) -> str:
        return f"MemoryStore({str(self.layout.root)!r})"

    # -- lifecycle -------------------------------------------------------------------

    def close(self) -> None:
        """Close the index connection. The store is unusable afterwards."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------

    def write(
        self,
        *,
        type: MemoryType,
        title: str,
        body: str,
        project: str = "global",
        machine_id: str = "unknown",
        tags: Iterable[str] | None = None,
        scope: Scope = "portable",
        prov_source: str = "human",
        prov_model: str = "",
        prov_session: str = "",
        confidence: float = 1.0,
        supersedes: Iterable[str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> Memory:
        """Create a note with a fresh id and timestamps: write its file, then index it."""
        now = utc_now()
        mem = Memory(
            id=new_id(),
            type=type,
            title=title,
            body=body,
            project=project,
            machine_id=machine_id,
            scope=scope,
            tags=tags,  # Memory takes one tag given as a plain string as one tag
            created_at=now,
            updated_at=now,
            prov_source=prov_source,
            prov_model=prov_model,
            prov_session=prov_session,
            confidence=confidence,
            supersedes=supersedes,
            extra=dict(extra or {}),
        )
        return self._save(mem, new=True)

    def put(self, mem: Memory) -> Memory:
        """Store a fully formed note under its own id, replacing any note with that id.

        The caller's id and timestamps are kept (missing timestamps are set to now). If the
        note changed type or scope, its old file is removed in the same locked step that
        writes the new one.
        """
        return self._save(mem)

    def update(self, memory_id: str, **changes: Any) -> Memory:
        """Change some fields of a note and bump its ``updated_at``; ``id`` cannot change."""
        if "id" in changes:
            raise InvalidNote("id", "a note's id cannot change; write a new note instead")
        unknown = set(changes) - set(Memory.FIELDS)
        if unknown:
            raise InvalidNote(sorted(unknown)[0], "is not a field of a note")
        current = self.get(memory_id)
        updated = current.replace(**changes)
        if "updated_at" not in changes:
            updated = updated.replace(updated_at=utc_now())
        return self._save(updated)

    def delete(self, memory_id: str) -> Memory:
        """Remove a note's file(s) and rows; return the note as it was.

        Every file known to hold the id goes: the indexed one, any at the id's canonical
        paths (even one that no longer parses) and copies reported as duplicates.
        """
        check_id(memory_id)

        def action() -> Memory:
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                row = ix.rows_by_id(conn, [memory_id]).get(memory_id)
                copies = self._files_holding(conn, memory_id, row)
                if not copies and row is None:
                    raise NoteNotFound(memory_id)
                gone = row.memory if row is not None else _salvage(copies[0], memory_id)
                for note in copies:
                    self._remove_file(conn, note)
                ix.delete(conn, memory_id)
                return gone

        return self._run(action)

    def _save(self, mem: Memory, *, new: bool = False) -> Memory:
        """Validate, then write the file and its index row together under the index lock.

        The file is staged in a temp file and flushed in the background while the row is
        written; it is renamed into place once flushed, before the row commits. If the note
        changed type or scope its old file is removed last, still under the lock, so no other
        process can ever see (or write) a second file for the id in between. If the row
        cannot be written the disk is put back: no new file, or the previous content of the
        file this write replaced. ``new`` says the id was just minted, so there is no older
        file or row to look for. Missing timestamps are set to now.
        """
        from anamnesis.store.validation import validate

        mem = validate(mem)  # a copy: filling its timestamps leaves the caller's note alone
        if not mem.created_at or not mem.updated_at:
            now = utc_now()
            mem.created_at = mem.created_at or now
            mem.updated_at = mem.updated_at or now
        text = _serialize(mem)
        target = self.path_of(mem)
        rel = self.layout.rel_path(mem.type, mem.id)

        def action() -> Memory:
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                old_row = None
                if not new:
                    old_row = ix.rows_by_id(conn, [mem.id], with_body=False).get(mem.id)
                moved_from = None
                if old_row is not None and self._row_path(old_row) != target:
                    moved_from = _NoteFile(
                        self._row_path(old_row), old_row.memory.scope, old_row.body_path
                    )
                previous = None if new else _read_bytes(target)
                before = _dir_mtime(target.parent)
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
                    ix.set_meta(conn, _broken_key(mem.scope, rel), None)
                self._note_own_dir_change(conn, mem.scope, mem.type, before, target.parent)
            return mem

        try:
            return self._run(action)
        except OSError as exc:
            raise StorageError(
                f"cannot write {target}: {exc.strerror or exc}; "
                "check free disk space and permissions"
            ) from None

    def _files_holding(
        self, conn: sqlite3.Connection, memory_id: str, row: ix.NoteRow | None
    ) -> builtins.list[_NoteFile]:
        """Existing files that hold (or, at a canonical path, claim) this id."""
        found: dict[Path, _NoteFile] = {}
        if row is not None:
            path = self._row_path(row)
            found[path] = _NoteFile(path, row.memory.scope, row.body_path)
        for tree, scope in self.layout.trees():
            for note_type in NOTE_TYPES:
                rel = self.layout.rel_path(note_type, memory_id)
                found.setdefault(tree / rel, _NoteFile(tree / rel, scope, rel))
        for note in self._duplicates_of(conn, memory_id):
            found.setdefault(note.path, note)
        return [note for note in found.values() if note.path.exists()]

    def _remove_file(self, conn: sqlite3.Connection, note: _NoteFile) -> None:
        """Unlink one note file inside a write transaction, keeping the bookkeeping exact."""
        before = _dir_mtime(note.path.parent)
        try:
            note.path.unlink()
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise StorageError(
                f"cannot delete {note.path}: {exc.strerror or exc}; check its permissions"
            ) from None
        ix.set_meta(conn, _broken_key(note.scope, note.rel), None)
        folder, _, _name = note.rel.rpartition("/")
        if "/" not in folder:  # only a tree and its direct subfolders are watched
            self._note_own_dir_change(conn, note.scope, folder, before, note.path.parent)

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

    # -- reading ---------------------------------------------------------------------

    def get(self, memory_id: str) -> Memory:
        """The note with this id, as its file says now."""
        check_id(memory_id)

        def action() -> Memory:
            self._catch_up()
            conn = self._connection()
            row = ix.rows_by_id(conn, [memory_id]).get(memory_id)
            if row is None:
                self._raise_if_broken(conn, memory_id)
                raise NoteNotFound(memory_id)
            mem = self._current(row, strict=True)
            if mem is None:
                raise NoteNotFound(memory_id)
            return mem

        return self._run(action)

    def resolve_id(self, text: str) -> str:
        """The full id of the one note whose id starts with ``text`` (6 or more characters,
        any case), as git resolves a short hash. A whole id is returned as it is, whether
        or not a note has it. Raises :class:`AmbiguousId` listing the candidates,
        :class:`NoteNotFound`, or :class:`InvalidNote` for what cannot be an id."""
        prefix = check_prefix(text)
        if len(prefix) == 26:
            return check_id(prefix)
        # Every id with this prefix sorts between the prefix and the prefix followed by
        # the highest character: one range scan of the primary key.
        sql = "SELECT id FROM memories WHERE id >= ? AND id <= ? ORDER BY id LIMIT 11"

        def action() -> builtins.list[str]:
            self._catch_up()
            rows = self._connection().execute(sql, (prefix, prefix + "Z" * (26 - len(prefix))))
            return [memory_id for (memory_id,) in rows]

        found = self._run(action)
        if not found:
            raise NoteNotFound(prefix)
        if len(found) > 1:
            raise AmbiguousId(prefix, found)
        return found[0]

    def list(
        self,
        *,
        project: str | None = None,
        type: MemoryType | Iterable[MemoryType] | None = None,
        scope: Scope | None = None,
        tag: str | None = None,
        exclude_tag: str | None = None,
        include_superseded: bool = True,
        limit: int | None = None,
        offset: int = 0,
        include_body: bool = True,
    ) -> builtins.list[Memory]:
        """Notes newest first (``updated_at``, then ``confidence``, then id), filtered.

        Superseded notes are included unless ``include_superseded=False``: the history
        stays browsable. With ``include_body=False`` bodies are returned empty (cheaper).
        """
        if limit is not None and (not isinstance(limit, int) or limit < 0):
            raise InvalidQuery(f"limit must be a whole number >= 0, got {limit!r}")
        filters = _filters(project, type, scope, tag)
        where, params = filters.sql()
        if exclude_tag is not None:
            where += (
                " AND NOT EXISTS (SELECT 1 FROM memory_tags t WHERE t.memory_id = m.id"
                " AND t.tag = ?)"
            )
            params.append(exclude_tag)
        if not include_superseded:
            where += f" AND {NOT_SUPERSEDED}"
        base = ix.SELECT_NOTE if include_body else ix.SELECT_NOTE_NO_BODY
        sql = f"{base} WHERE 1 = 1{where} ORDER BY m.updated_at DESC, m.confidence DESC, m.id DESC"
        if not isinstance(offset, int) or offset < 0:
            raise InvalidQuery(f"offset must be a whole number >= 0, got {offset!r}")
        if limit is not None or offset:
            sql += " LIMIT ? OFFSET ?"
            params.extend([-1 if limit is None else limit, offset])

        def action() -> builtins.list[Memory]:
            self._catch_up()
            conn = self._connection()
            for _attempt in range(3):
                with ix.read_transaction(conn):
                    rows = [ix.note_row(r) for r in conn.execute(sql, params)]
                notes, refreshed = self._current_all(rows, include_body)
                if not refreshed:  # hand edits may change the order: ask again once
                    break
            return notes

        return self._run(action)

    def count(
        self,
        *,
        project: str | None = None,
        type: MemoryType | Iterable[MemoryType] | None = None,
        scope: Scope | None = None,
        tag: str | None = None,
        include_superseded: bool = True,
    ) -> int:
        """How many notes :meth:`list` would return with these filters."""
        where, params = _filters(project, type, scope, tag).sql()
        if not include_superseded:
            where += f" AND {NOT_SUPERSEDED}"
        sql = f"SELECT count(*) FROM memories m WHERE 1 = 1{where}"

        def action() -> int:
            self._catch_up()
            total: int = self._connection().execute(sql, params).fetchone()[0]
            return total

        return self._run(action)

    def search(
        self,
        query: str,
        *,
        project: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        k: int = 8,
        mode: str | None = None,
    ) -> builtins.list[Memory]:
        """The best ``k`` notes for a free-text query, superseded notes hidden.

        ``mode``: ``keyword`` (spec 002: quoted tokens OR-joined, BM25, newer first on a
        tie), ``vector`` (nearest embeddings) or ``hybrid`` (both, fused; see
        :mod:`.fusion`). None means :meth:`default_search_mode`. When vectors cannot run
        here, vector and hybrid search fall back to keyword search with one warning. A
        query that shares nothing with any note finds nothing in every mode (vector
        evidence counts only above :data:`~anamnesis.store.fusion.VECTOR_FLOOR`).
        """
        return self.search_scored(
            query, project=project, type=type, scope=scope, k=k, mode=mode
        ).notes

    def search_scored(
        self,
        query: str,
        *,
        project: str | None = None,
        type: MemoryType | None = None,
        scope: Scope | None = None,
        k: int = 8,
        mode: str | None = None,
    ) -> SearchResult:
        """:meth:`search` with each hit's score and the mode that actually ran."""
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidQuery(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
        if not isinstance(query, str):
            raise InvalidQuery(f"query must be text, got {query.__class__.__name__}")
        if mode is not None and mode not in SEARCH_MODES:
            raise InvalidQuery(f"mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}")
        chosen = mode or self.default_search_mode()
        tokens = query_tokens(query)
        if not tokens:  # nothing to search for: no model is loaded to find that out
            if chosen == "keyword" or self.vectors_available():
                return SearchResult([], chosen, chosen)
            return SearchResult([], "keyword", chosen, self._vectors().support().reason)
        filters = _filters(project, type, scope, None)
        query_vector: tuple[bytes, str] | None = None
        if chosen != "keyword":
            query_vector = self._query_vector(query)  # None: fell back to keywords

        def rank(conn: sqlite3.Connection) -> builtins.list[tuple[str, float]]:
            if query_vector is None:
                ranked = self._ranker(conn).ranked_ids(tokens, filters, k)
                return [(memory_id, -bm25) for memory_id, bm25 in ranked]
            from anamnesis.store import hybrid

            vector, model = query_vector
            if chosen == "vector":
                return hybrid.vector_ranking(
                    conn, self._ranker(conn), tokens, vector, model, filters, k
                )
            return hybrid.hybrid_ranking(
                conn, self._ranker(conn), tokens, vector, model, filters, k
            )

        def action() -> builtins.list[SearchHit]:
            self._catch_up()
            conn = self._connection()
            if query_vector is not None:
                self._vectors().load_into(conn)
            hits: builtins.list[SearchHit] = []
            for _attempt in range(3):
                with ix.read_transaction(conn):
                    ranked = rank(conn)
                    rows = ix.rows_by_id(conn, [memory_id for memory_id, _ in ranked])
                score_of = dict(ranked)
                ordered = [rows[memory_id] for memory_id, _ in ranked if memory_id in rows]
                notes, refreshed = self._current_all(ordered, True)
                hits = [SearchHit(note, score_of.get(note.id, 0.0)) for note in notes]
                if not refreshed:  # a hit was edited by hand: rank the new text
                    break
            return hits

        hits = self._run(action)
        if query_vector is None and chosen != "keyword":
            return SearchResult(hits, "keyword", chosen, self._vectors().support().reason)
        return SearchResult(hits, chosen, chosen)

    # -- vectors (the optional extra) -------------------------------------------------

    def vectors_available(self) -> bool:
        """Whether vector and hybrid search can run here (cheap: no model is loaded)."""
        return self._vectors().ready()

    def default_search_mode(self) -> str:
        """The mode a search without ``mode`` uses: ``ANAMNESIS_SEARCH_MODE`` or config.json's
        ``search_mode`` if set, else ``hybrid`` when the vectors extra can run, else
        ``keyword``."""
        configured = self._configured_mode()
        if configured is not None:
            return configured
        return "hybrid" if self.vectors_available() else "keyword"

    def _configured_mode(self) -> str | None:
        # Every search without a mode asks: read config.json again only when it changed.
        key = (os.environ.get(SEARCH_MODE_ENV, ""), _stat_key(str(self.layout.config_path)))
        if self._mode_cache is None or self._mode_cache[0] != key:
            self._mode_cache = (key, configured_search_mode(self.root))
        return self._mode_cache[1]

    def embed_missing(
        self,
        *,
        batch_size: int = 32,
        limit: int | None = None,
        progress: Progress | None = None,
    ) -> int:
        """Embed notes that have no vector for the current model yet; return how many.

        Vectors are cached by content and model inside index.db: unchanged notes are never
        embedded twice, and a full reindex re-embeds nothing. The model runs outside the
        store's lock, so searches and writes go on meanwhile. Raises
        :class:`~anamnesis.store.embedding.VectorsUnavailable` when vectors cannot run.
        """
        from anamnesis.store import vector_index as vi
        from anamnesis.store.embedding import VectorsUnavailable, as_blob

        embedder = self._vectors().embedder()
        model = embedder.model_id

        def prepare() -> builtins.list[tuple[str, str]]:
            self._catch_up()
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                vi.ensure_cache(conn)
                vi.hash_new_rows(conn)
                vi.attach_cached(conn, model)  # texts embedded before: no model needed
            return vi.pending(conn, model, limit)

        todo = self._run(prepare)
        done = 0
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            try:
                vectors = embedder.embed_documents([text for _digest, text in batch])
            except Exception as exc:  # any embedder failure: vectors are off, never a crash
                reason = _embedder_failure(exc)
                self._vectors().fail(reason)
                raise VectorsUnavailable(reason) from None
            rows = [
                (digest, as_blob(vector))
                for (digest, _text), vector in zip(batch, vectors, strict=True)
            ]

            def save(rows: builtins.list[tuple[str, bytes]] = rows) -> None:
                conn = self._connection()
                with ix.write_transaction(conn, self.db_path):
                    vi.ensure_cache(conn)  # a repaired index starts without the table
                    vi.store_vectors(conn, model, rows)

            self._run(save)
            done += len(batch)
            if progress is not None:
                progress(done, len(todo))

        def settle() -> None:
            conn = self._connection()
            if limit is None or len(todo) < limit:
                with ix.write_transaction(conn, self.db_path):
                    if limit is None:
                        vi.prune(conn, model)
                self._embedded_at = (*self._index_version(conn), model)

        self._run(settle)
        return done

    def embedding_status(self) -> dict[str, Any]:
        """Whether vectors run here, the model, and how many notes have (no) vector yet."""
        from anamnesis.store.embedding import VectorsUnavailable

        state = self._vectors()
        support = state.support()
        out: dict[str, Any] = {
            "available": support.available,
            "reason": support.reason,
            "fix": support.fix,
            "default_mode": self.default_search_mode(),
        }
        if not support.available:
            return out
        try:
            embedder = state.embedder()
            model = embedder.model_id
        except VectorsUnavailable as exc:
            what, _, fix = str(exc).partition("; ")
            return {**out, "available": False, "reason": what, "fix": fix}
        needs_download = getattr(embedder, "needs_download", None)
        out["needs_download"] = bool(needs_download()) if callable(needs_download) else False
        from anamnesis.store import vector_index as vi

        def count() -> tuple[int, int]:
            conn = self._connection()
            with ix.read_transaction(conn):
                total: int = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
                pending = vi.count_pending(conn, model)
            return total, pending

        total, pending = self._run(count)
        return {**out, "model": model, "embedded": total - pending, "pending": pending}

    def _attach_cached_vectors(self) -> None:
        """Give rebuilt rows the vectors their texts had before (hashing, no model)."""
        from anamnesis.store import vector_index as vi
        from anamnesis.store.embedding import VectorsUnavailable

        try:
            model = self._vectors().embedder().model_id
        except VectorsUnavailable:
            return

        def attach() -> None:
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                vi.ensure_cache(conn)
                vi.hash_new_rows(conn)
                vi.attach_cached(conn, model)

        self._run(attach)

    def _vectors(self) -> StoreVectors:
        # Made on first use: importing the vectors code costs the hooks' hot path.
        if self._vector_state is None:
            from anamnesis.store.vectors import StoreVectors

            self._vector_state = StoreVectors(self.root, self._embedder)
        return self._vector_state

    def _query_vector(self, query: str) -> tuple[bytes, str] | None:
        """The query's embedding and the model id, after embedding notes that lack one
        (a few; many wait for a reindex or the MCP server). None: vectors cannot run."""
        from anamnesis.store.embedding import as_blob

        state = self._vectors()
        try:
            embedder = state.embedder()
            self._run(lambda: state.load_into(self._connection()))
            self._embed_before_search(embedder.model_id)
            vector = as_blob(embedder.embed_query(query))
        except Exception as exc:  # any embedder failure: keyword results, never a crash
            reason = _embedder_failure(exc)
            if state.ready():
                state.fail(reason)  # e.g. the model cannot load: stop trying
            else:
                state.warn(reason)
            return None
        return vector, embedder.model_id

    def _embed_before_search(self, model: str) -> None:
        current = self._run(lambda: (*self._index_version(self._connection()), model))
        if current == self._embedded_at:
            return
        limit = self.search_embed_limit
        if limit > 0 and self.embed_missing(limit=limit) < limit:
            return
        from anamnesis.store import vector_index as vi

        left = self._run(lambda: vi.count_pending(self._connection(), model))
        if left:
            self._vectors().warn_partial(left)

    @staticmethod
    def _index_version(conn: sqlite3.Connection) -> tuple[int, int]:
        data_version: int = conn.execute("PRAGMA data_version").fetchone()[0]
        return data_version, conn.total_changes

    def _raise_if_broken(self, conn: sqlite3.Connection, memory_id: str) -> None:
        """A note file for this id exists but does not parse: say so, and why."""
        broken = ix.get_meta(conn, _BROKEN_KEY)
        for tree, scope in self.layout.trees():
            for note_type in NOTE_TYPES:
                rel = self.layout.rel_path(note_type, memory_id)
                record = broken.get(_broken_key(scope, rel))
                if record is not None:
                    raise MalformedNote(str(tree / rel), json.loads(record)["reason"])

    def stats(self) -> StoreStats:
        """Counts by type, project and scope, and how many notes are superseded."""

        def action() -> StoreStats:
            self._catch_up()
            conn = self._connection()
            with ix.read_transaction(conn):
                total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
                counts = {
                    column: dict(
                        conn.execute(
                            f"SELECT {column}, count(*) FROM memories GROUP BY {column}"
                            f" ORDER BY count(*) DESC, {column}"
                        ).fetchall()
                    )
                    for column in ("type", "project", "scope")
                }
                superseded = conn.execute(
                    "SELECT count(*) FROM memories m WHERE m.id IN"
                    " (SELECT superseded_id FROM memory_supersedes)"
                ).fetchone()[0]
            return StoreStats(
                total=total,
                by_type=counts["type"],
                by_project=counts["project"],
                by_scope=counts["scope"],
                superseded=superseded,
            )

        return self._run(action)

    def superseded_ids(self) -> set[str]:
        """Ids named in some note's ``supersedes``: hidden from search and inject."""

        def action() -> set[str]:
            self._catch_up()
            rows = self._connection().execute(
                "SELECT DISTINCT superseded_id FROM memory_supersedes"
            )
            return {sid for (sid,) in rows}

        return self._run(action)

    def superseders(self) -> dict[str, builtins.list[str]]:
        """For each superseded id, the ids of the notes that supersede it (sorted)."""

        def action() -> dict[str, builtins.list[str]]:
            self._catch_up()
            out: dict[str, builtins.list[str]] = {}
            rows = self._connection().execute(
                "SELECT superseded_id, memory_id FROM memory_supersedes"
                " ORDER BY superseded_id, memory_id"
            )
            for superseded_id, memory_id in rows:
                out.setdefault(superseded_id, []).append(memory_id)
            return out

        return self._run(action)

    def problems(self) -> builtins.list[SkippedFile]:
        """Note files the index could not read, and why (fix them and they reappear)."""

        def action() -> builtins.list[SkippedFile]:
            self._catch_up()
            entries = ix.get_meta(self._connection(), _BROKEN_KEY)
            trees = {scope: tree for tree, scope in self.layout.trees()}
            found = []
            for key, value in sorted(entries.items()):
                scope, rel = key[len(_BROKEN_KEY) :].split(":", 1)
                path = str(trees[scope] / rel) if scope in trees else rel
                found.append(SkippedFile(path=path, reason=json.loads(value)["reason"]))
            return found

        return self._run(action)

    # -- reindexing ------------------------------------------------------------------

    def reindex(
        self, progress: Progress | None = None, *, embed: bool | None = None
    ) -> ReindexReport:
        """Rebuild the whole index from the markdown. Files that do not parse are skipped
        and reported, never fatal.

        ``embed``: also embed notes that lack a vector (None: when searches use vectors
        here; cached vectors are reused, so only new or changed notes cost time).
        """

        def action() -> ReindexReport:
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                ix.recreate_schema(conn)
                report = self._fill(conn, progress)
                ix.mark_current(conn)
            return report

        report = self._run(action).replace(swept=tuple(self.sweep_leftovers()))
        uses_vectors = self.default_search_mode() != "keyword"
        if (uses_vectors or embed) and self.vectors_available():
            self._attach_cached_vectors()  # no model needed: texts embedded before
        if embed or (embed is None and uses_vectors and self.vectors_available()):
            from anamnesis.store.embedding import VectorsUnavailable

            try:
                self.embed_missing()
            except VectorsUnavailable:
                if embed:
                    raise  # asked for explicitly: say so; otherwise the warning was given
        return report

    def mask_secrets_in(self, paths: Iterable[str | Path]) -> builtins.list[MaskedFile]:
        """Mask secrets in these note files in place (a sync's outgoing files: hand edits
        and notes written before a rule existed are pushed otherwise), then reindex the
        ones that changed. Paths are absolute or relative to the store root; only files
        inside the note trees are touched. Returns what was masked."""
        from anamnesis.store.secret_scan import mask_file

        masked = []
        for raw in paths:
            path = Path(raw) if Path(raw).is_absolute() else self.root / raw
            if self.layout.locate(path) is None or path.suffix != ".md":
                continue
            found = mask_file(path)
            if found is not None:
                masked.append(found)
        if masked:
            self.reindex_paths([found.path for found in masked])
        return masked

    def sweep_leftovers(self, *, min_age_s: float | None = None) -> builtins.list[LeftoverFile]:
        """Remove temp files that killed writes left behind (older than a safe age: no live
        writer owns them, see :mod:`.leftovers`); return what was removed."""
        from anamnesis.store import leftovers

        age = leftovers.SAFE_AGE_S if min_age_s is None else min_age_s
        trees = [tree for tree, _scope in self.layout.trees()]
        return leftovers.sweep(trees, [self.root], min_age_s=age)

    def leftovers(self) -> builtins.list[LeftoverFile]:
        """Temp files of interrupted (or running) writes, without removing any."""
        from anamnesis.store import leftovers

        return list(leftovers.find([tree for tree, _scope in self.layout.trees()], [self.root]))

    def reindex_changed(self, changed: Iterable[str]) -> ReindexReport | None:
        """Bring the index up to date after a sync changed these files, given as a sync
        reports them (relative to the synced ``memory/`` folder); None when none changed.
        The one way every caller (CLI, MCP server, hooks) makes pulled notes searchable."""
        paths = [self.memory_dir / path for path in changed]
        return self.reindex_paths(paths) if paths else None

    def reindex_paths(self, paths: Iterable[str | Path]) -> ReindexReport:
        """Bring the index up to date for these files only (after a sync changed them).

        Paths are absolute or relative to the store root. A path whose file is gone has its
        note removed from the index. Files outside the note trees are reported as skipped.
        """
        wanted = list(paths)

        def action() -> ReindexReport:
            conn = self._connection()
            indexed = removed = 0
            skipped: builtins.list[SkippedFile] = []
            with ix.write_transaction(conn, self.db_path):
                for raw in wanted:
                    path = Path(raw)
                    if path.suffix != ".md" or path.name.startswith("."):
                        continue
                    located = self.layout.locate(path)
                    if located is None:
                        skipped.append(SkippedFile(str(raw), "not inside memory/ or local/"))
                        continue
                    scope, rel = located
                    note = _NoteFile(self.layout.tree(scope) / rel, scope, rel)
                    if note.path.exists():
                        problem = self._index_file(conn, note)
                        if problem is None:
                            indexed += 1
                        else:
                            skipped.append(problem)
                    elif self._unindex_path(conn, scope, rel):
                        removed += 1
            return ReindexReport(indexed=indexed, removed=removed, skipped=tuple(skipped))

        return self._run(action)

    # -- internals: connection and recovery ------------------------------------------

    def _ranker(self, conn: sqlite3.Connection) -> Ranker:
        # One per connection: it remembers which terms are clamped until the index changes.
        if self._ranker_cache is None or self._ranker_cache.conn is not conn:
            self._ranker_cache = Ranker(conn)
        return self._ranker_cache

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("this store is closed")
        return self._conn

    def _run(self, action: Callable[[], T]) -> T:
        """Run ``action`` under the lock; repair a broken index once and retry."""
        with self._lock:
            try:
                return action()
            except sqlite3.Error as exc:
                if not self._replaceable(exc):
                    raise self._translate(exc) from None
                self._recover(f"the index was unusable ({exc})")
            try:
                return action()
            except sqlite3.Error as exc:
                raise self._translate(exc) from None

    def _translate(self, exc: sqlite3.Error) -> StoreError:
        if isinstance(exc, sqlite3.IntegrityError):
            return StoreError(f"the index refused a note: {exc}")
        return ix.unavailable(self.db_path, exc)

    def _replaceable(self, exc: sqlite3.Error) -> bool:
        """A damaged index file, or one that is there but cannot be opened or written (a
        folder in its place, no permission on the file): moving it aside and rebuilding
        from the markdown fixes it. A busy lock, a full disk or a missing file it would not.
        """
        if ix.is_corruption(exc):
            return True
        return ix.is_unopenable(exc) and any(
            os.path.lexists(f"{self.db_path}{suffix}") for suffix in _DB_SUFFIXES
        )

    def _open(self) -> sqlite3.Connection:
        try:
            return self._open_once()
        except _ForeignIndex as foreign:
            moved = self._move_index_aside(str(foreign))
            self._warn(
                f"{self.db_path} was {foreign}; moved it to {moved} untouched and rebuilt"
                " the index from the markdown"
            )
        except sqlite3.Error as exc:
            if not self._replaceable(exc):
                raise ix.unavailable(self.db_path, exc) from None
            self._move_index_aside(str(exc))
            self._warn(
                f"the index {self.db_path} was unreadable ({exc}); rebuilt it from the markdown"
            )
        try:
            return self._open_once()
        except sqlite3.Error as exc:
            raise ix.unavailable(self.db_path, exc) from None

    def _open_once(self) -> sqlite3.Connection:
        conn = ix.connect(self.db_path)
        try:
            if not ix.is_current(conn):
                _refuse_foreign(conn)
                with ix.write_transaction(conn, self.db_path):
                    if not ix.is_current(conn):  # another process may have just built it
                        had_tables = conn.execute(
                            "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                        ).fetchone()[0]
                        ix.recreate_schema(conn)
                        self._fill(conn, None)
                        ix.mark_current(conn)
                        if had_tables:
                            self._warn(
                                f"the index {self.db_path} was built by another version;"
                                " rebuilt it from the markdown"
                            )
        except BaseException:
            conn.close()
            raise
        return conn

    def _recover(self, reason: str) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._move_index_aside(reason)
        self._warn(f"{reason}; rebuilt it from the markdown")
        self._conn = self._open()

    def _move_index_aside(self, reason: str) -> Path:
        """Rename the index files to ``index.db.corrupt-<time>[-wal|-shm]``, kept for a
        post-mortem; the store then rebuilds the index from the markdown. Returns where
        the main file went."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        if any(os.path.lexists(f"{self.db_path}.corrupt-{stamp}{s}") for s in _DB_SUFFIXES):
            stamp += f"-{os.urandom(3).hex()}"  # moved aside twice within a second
        for suffix in _DB_SUFFIXES:
            path = Path(f"{self.db_path}{suffix}")
            if os.path.lexists(path):
                try:
                    path.rename(Path(f"{self.db_path}.corrupt-{stamp}{suffix}"))
                except OSError as exc:
                    raise IndexUnavailable(
                        f"the index {self.db_path} cannot be used ({reason}) and cannot be"
                        f" moved aside to rebuild it ({exc.strerror or exc}): make"
                        f" {self.db_path.parent} writable, or remove {path} by hand;"
                        " the markdown notes are safe"
                    ) from None
        return Path(f"{self.db_path}.corrupt-{stamp}")

    @staticmethod
    def _warn(message: str) -> None:
        _log().warning(message)
        warnings.warn(message, IndexRebuiltWarning, stacklevel=4)

    # -- internals: files <-> rows ---------------------------------------------------

    def _row_path(self, row: ix.NoteRow) -> Path:
        return self.layout.tree(row.memory.scope) / row.body_path

    def _current_all(
        self, rows: builtins.list[ix.NoteRow], include_body: bool
    ) -> tuple[builtins.list[Memory], bool]:
        """The notes for these rows as the files say now; True if any file had changed."""
        notes: builtins.list[Memory] = []
        changed = False
        for row in rows:
            unchanged = _stat_matches(self._tree_prefix[row.memory.scope] + row.body_path, row)
            if unchanged and row.complete:
                notes.append(row.memory)
                continue
            changed = changed or not unchanged
            mem = self._current(row, strict=False)
            if mem is not None:
                notes.append(mem if include_body else mem.replace(body=""))
        return notes, changed

    def _current(self, row: ix.NoteRow, *, strict: bool) -> Memory | None:
        """The note behind a row, re-read if its file changed; None if gone or broken.

        With ``strict``, a file that no longer parses raises :class:`MalformedNote`.
        """
        path = self._row_path(row)
        if not _stat_matches(path, row):
            conn = self._connection()
            with ix.write_transaction(conn, self.db_path):
                problem = self._index_file(conn, _NoteFile(path, row.memory.scope, row.body_path))
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
            return _parse(_read(path)[0], str(path), row.memory.scope)
        except (OSError, UnicodeDecodeError, MalformedNote):
            if strict:
                raise
            return None

    def _load(self, note: _NoteFile) -> tuple[Memory, os.stat_result] | str:
        """Read and parse one file (no index access): the note and the file's stat, or
        the reason it cannot be used. Raises FileNotFoundError if the file is gone."""
        try:
            text, stat = _read(note.path)
        except FileNotFoundError:
            raise
        except UnsafeFile as exc:
            return f"not read: {exc.strerror}"
        except (OSError, UnicodeDecodeError) as exc:
            return f"cannot read it: {exc}"
        try:  # the tree, not the frontmatter, decides the scope
            return _parse(text, str(note.path), note.scope), stat
        except MalformedNote as exc:
            return exc.reason

    def _index_file(
        self, conn: sqlite3.Connection, note: _NoteFile, *, fts: bool = True
    ) -> SkippedFile | None:
        """(Re)index one file inside an open write transaction; a problem is recorded and
        returned instead of raised. A vanished file has its rows removed."""
        try:
            loaded = self._load(note)
        except FileNotFoundError:
            self._unindex_path(conn, note.scope, note.rel, fts=fts)
            ix.set_meta(conn, _broken_key(note.scope, note.rel), None)
            return None
        if isinstance(loaded, str):
            self._unindex_path(conn, note.scope, note.rel, fts=fts)
            return self._broken(conn, note, _stat_or_none(note.path), loaded)
        mem, stat = loaded
        holder = conn.execute(
            "SELECT scope, body_path, type, updated_at FROM memories WHERE id = ?", (mem.id,)
        ).fetchone()
        if holder is not None and (holder[0], holder[1]) != (note.scope, note.rel):
            other = _NoteFile(self.layout.tree(holder[0]) / holder[1], holder[0], holder[1])
            other_stat = _stat_or_none(other.path)
            if other_stat is not None:
                mine = _Copy(note, mem.id, mem.type, mem.updated_at, stat.st_mtime_ns)
                theirs = _Copy(other, mem.id, holder[2], holder[3], other_stat.st_mtime_ns)
                loser, winner = (theirs, note) if mine.beats(theirs) else (mine, other)
                problem = self._broken(
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
        ix.set_meta(conn, _broken_key(note.scope, note.rel), None)
        if previous is not None and previous[0] != mem.id:
            self._revive(conn, previous[0], fts=fts)
        return None

    def _broken(
        self,
        conn: sqlite3.Connection,
        note: _NoteFile,
        stat: os.stat_result | None,
        reason: str,
        duplicate_of: str | None = None,
    ) -> SkippedFile:
        """Record a file that cannot be indexed. ``duplicate_of`` names the id a duplicate
        copy holds: when that id's indexed file goes away, the copy is tried again."""
        record: dict[str, object] = {
            "reason": reason,
            "size": stat.st_size if stat else -1,
            "mtime_ns": stat.st_mtime_ns if stat else -1,
        }
        if duplicate_of is not None:
            record["id"] = duplicate_of
        ix.set_meta(conn, _broken_key(note.scope, note.rel), json.dumps(record))
        _log().warning("skipped %s: %s", note.path, reason)
        return SkippedFile(str(note.path), reason)

    def _duplicates_of(self, conn: sqlite3.Connection, memory_id: str) -> builtins.list[_NoteFile]:
        """Files set aside as duplicate copies of this id."""
        out: builtins.list[_NoteFile] = []
        for key, value in ix.get_meta(conn, _BROKEN_KEY).items():
            if json.loads(value).get("id") == memory_id:
                scope, rel = key[len(_BROKEN_KEY) :].split(":", 1)
                out.append(_NoteFile(self.layout.tree(scope) / rel, scope, rel))
        return out

    def _revive(self, conn: sqlite3.Connection, memory_id: str, *, fts: bool = True) -> None:
        """The indexed file of this id is gone: index a copy that was set aside for it.

        Without this a copy reported as a duplicate would stay hidden until its own file
        changed or a full reindex ran (a note moved by hand, copy then delete, vanished).
        """
        for note in self._duplicates_of(conn, memory_id):
            # The first copy takes the id; each later one is compared with it, so the winner
            # is the one a full reindex would pick.
            self._index_file(conn, note, fts=fts)

    def _unindex_path(
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

    def _fill(self, conn: sqlite3.Connection, progress: Progress | None) -> ReindexReport:
        """Index every note file into empty tables (inside a write transaction)."""
        dirs = self._watched_dirs()
        files = list(self._note_files())
        skipped: builtins.list[SkippedFile] = []
        adopted: builtins.list[AdoptedFile] = []
        holders: dict[str, tuple[_Copy, os.stat_result]] = {}
        for done, note in enumerate(files, start=1):
            try:
                loaded: tuple[Memory, os.stat_result] | str | None = self._load(note)
                if isinstance(loaded, str) and self._adopt(note, holders):
                    loaded = self._load(note)
                    if isinstance(loaded, tuple):
                        adopted.append(AdoptedFile(str(note.path), loaded[0].id))
            except FileNotFoundError:
                loaded = None  # removed while we were scanning
            if isinstance(loaded, str):
                skipped.append(self._broken(conn, note, _stat_or_none(note.path), loaded))
            elif isinstance(loaded, tuple):
                mem, stat = loaded
                mine = _Copy(note, mem.id, mem.type, mem.updated_at, stat.st_mtime_ns)
                held = holders.get(mem.id)
                if held is not None:
                    theirs, their_stat = held
                    if not mine.beats(theirs):
                        reason = f"duplicate id {mem.id}: also in {theirs.note.path}"
                        skipped.append(self._broken(conn, note, stat, reason, mem.id))
                        continue
                    reason = f"duplicate id {mem.id}: also in {note.path}"
                    skipped.append(self._broken(conn, theirs.note, their_stat, reason, mem.id))
                    ix.delete(conn, mem.id, fts=False)
                holders[mem.id] = (mine, stat)
                ix.upsert(
                    conn,
                    mem,
                    note.rel,
                    stat.st_size,
                    stat.st_mtime_ns,
                    new=held is None,
                    fts=False,
                )
            if progress is not None:
                progress(done, len(files))
        ix.create_indexes(conn)  # after the fill, in one pass: far cheaper than row by row
        for _directory, scope, rel, mtime in dirs:
            ix.set_meta(conn, f"{_DIR_KEY}{scope}:{rel}", str(mtime))
        return ReindexReport(indexed=len(holders), skipped=tuple(skipped), adopted=tuple(adopted))

    def _adopt(self, note: _NoteFile, holders: dict[str, tuple[_Copy, os.stat_result]]) -> bool:
        """Give a hand-written note without an id one (see :mod:`.adoption`); ``holders``
        are the ids indexed so far (a file named after one of them gets a new id)."""
        from anamnesis.store.adoption import adopt
        from anamnesis.store.config import resolve_machine_id

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

        machine = resolve_machine_id(self.root)
        return adopt(note.path, note.rel, note.scope, machine, taken) is not None

    def _note_files(self) -> Iterator[_NoteFile]:
        for tree, scope in self.layout.trees():
            for dirpath, dirnames, filenames in os.walk(tree):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                base = Path(dirpath)
                for name in sorted(filenames):
                    if name.endswith(".md") and not name.startswith("."):
                        path = base / name
                        yield _NoteFile(path, scope, path.relative_to(tree).as_posix())

    # -- internals: noticing changes made behind the store's back --------------------

    def _watched_dirs(self) -> builtins.list[tuple[Path, str, str, int]]:
        """(folder, scope, path in tree, mtime_ns) for each tree and its direct subfolders."""
        out: builtins.list[tuple[Path, str, str, int]] = []
        for tree, scope in self.layout.trees():
            mtime = _dir_mtime(tree)
            if mtime is None:
                continue
            out.append((tree, scope, "", mtime))
            try:
                entries = list(os.scandir(tree))
            except OSError:
                continue
            for entry in entries:
                # A linked folder is never entered: its notes would come from outside.
                if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                    continue
                sub_mtime = _dir_mtime(Path(entry.path))
                if sub_mtime is not None:
                    out.append((Path(entry.path), scope, entry.name, sub_mtime))
        return out

    def _catch_up(self) -> None:
        """Index files added, removed or renamed since the last look.

        The common case costs a few stat calls: if none of the watched folders (and none of
        the files known to be broken) changed since the last full check, nothing else runs.
        """
        probe = self._probe()
        if probe is not None and probe == self._last_probe:
            return
        conn = self._connection()
        watched = self._watched_dirs()
        seen = ix.get_meta(conn, _DIR_KEY)
        changed = [
            entry
            for entry in watched
            if seen.get(f"{_DIR_KEY}{entry[1]}:{entry[2]}") != str(entry[3])
        ]
        retry = self._broken_files_changed(conn)
        if changed or retry:
            with ix.write_transaction(conn, self.db_path):
                for directory, scope, rel, mtime in changed:
                    self._rescan_dir(conn, directory, scope, rel)
                    ix.set_meta(conn, f"{_DIR_KEY}{scope}:{rel}", str(mtime))
                for note in retry:
                    self._index_file(conn, note)
        # What to stat next time: the folders just checked and the files still broken. The
        # mtimes were taken before the check, so a change made meanwhile is seen next time.
        broken: dict[str, tuple[int, int]] = {}
        for key, value in ix.get_meta(conn, _BROKEN_KEY).items():
            scope, rel = key[len(_BROKEN_KEY) :].split(":", 1)
            record = json.loads(value)  # the stat the file had when it failed to parse
            broken[str(self.layout.tree(scope) / rel)] = (record["size"], record["mtime_ns"])
        self._probe_paths = (tuple(str(entry[0]) for entry in watched), tuple(broken))
        self._last_probe = (tuple(entry[3] for entry in watched), tuple(broken.values()))

    def _probe(self) -> tuple[tuple[int | None, ...], tuple[tuple[int, int] | None, ...]] | None:
        if self._probe_paths is None:
            return None
        folders, broken = self._probe_paths
        return (
            tuple(_mtime_or_none(path) for path in folders),
            tuple(_stat_key(path) for path in broken),
        )

    def _broken_files_changed(self, conn: sqlite3.Connection) -> builtins.list[_NoteFile]:
        out: builtins.list[_NoteFile] = []
        for key, value in ix.get_meta(conn, _BROKEN_KEY).items():
            scope, rel = key[len(_BROKEN_KEY) :].split(":", 1)
            path = self.layout.tree(scope) / rel
            record = json.loads(value)
            try:
                stat = path.stat()
            except OSError:
                out.append(_NoteFile(path, scope, rel))  # gone: drop the record
                continue
            if (stat.st_size, stat.st_mtime_ns) != (record["size"], record["mtime_ns"]):
                out.append(_NoteFile(path, scope, rel))
        return out

    def _rescan_dir(self, conn: sqlite3.Connection, directory: Path, scope: str, rel: str) -> None:
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
            self._unindex_path(conn, scope, path)
        for path, entry in on_disk.items():
            try:
                stat = entry.stat(follow_symlinks=False)  # a link is reported, not followed
            except OSError:
                continue
            if indexed.get(path) != (stat.st_size, stat.st_mtime_ns):
                self._index_file(conn, _NoteFile(Path(entry.path), scope, path))

    def _note_own_dir_change(
        self,
        conn: sqlite3.Connection,
        scope: str,
        folder: str,
        before: int | None,
        directory: Path,
    ) -> None:
        """After our own write or removal in ``folder`` (a path in the tree: a type folder,
        or "" for the tree itself), move its recorded mtime along, but only if it was up to
        date before: our writes then cost no rescan on the next read, while a change someone
        else made in between is still noticed."""
        after = _dir_mtime(directory)
        if before is not None and after is not None:
            conn.execute(
                "UPDATE index_meta SET value = ? WHERE key = ? AND value = ?",
                (str(after), f"{_DIR_KEY}{scope}:{folder}", str(before)),
            )


# -- helpers ---------------------------------------------------------------------------


# The markdown codec is imported on first use: reads that find their files unchanged (a
# session hook injecting notes) never need it, nor the YAML behind it.


def _embedder_failure(exc: Exception) -> str:
    """Why vectors stopped: our own message, or the embedder's error named as such."""
    from anamnesis.store.embedding import VectorsUnavailable

    if isinstance(exc, VectorsUnavailable):
        return str(exc)
    return f"the embedding model failed ({type(exc).__name__}: {exc}); run `anamnesis doctor`"


def _parse(text: str, path: str, scope: str | None = None) -> Memory:
    from anamnesis.store.codec import parse

    return parse(text, path, scope)


def _serialize(mem: Memory) -> str:
    from anamnesis.store.codec import serialize

    return serialize(mem)


def _salvage(note: _NoteFile, memory_id: str) -> Memory:
    """The note in a file about to be deleted. A file that no longer parses still gives its
    id, its type (the folder) and its raw text, so the caller can show what went."""
    try:
        text = note.path.read_bytes().decode("utf-8", "replace")
    except OSError:
        text = ""
    try:
        return _parse(text, str(note.path), note.scope)
    except MalformedNote:
        pass
    folder = note.rel.partition("/")[0]
    return Memory(
        id=memory_id,
        type=folder if folder in NOTE_TYPES else "semantic",
        title="(unreadable note)",
        body=text,
        scope=note.scope,
    )


def _broken_key(scope: str, rel: str) -> str:
    return f"{_BROKEN_KEY}{scope}:{rel}"


def _log() -> Any:
    import logging

    return logging.getLogger("anamnesis.store")


def _filters(
    project: str | None,
    note_type: MemoryType | Iterable[MemoryType] | None,
    scope: Scope | None,
    tag: str | None,
) -> Filters:
    types: tuple[str, ...] | None
    if note_type is None:
        types = None
    elif isinstance(note_type, str):
        types = (note_type,)
    else:
        types = tuple(note_type)
    for value in types or ():
        if value not in NOTE_TYPES:
            raise InvalidQuery(f"type must be one of {', '.join(NOTE_TYPES)}, got {value!r}")
    if scope is not None and scope not in ("portable", "machine-local"):
        raise InvalidQuery(f"scope must be portable or machine-local, got {scope!r}")
    if project is not None and not isinstance(project, str):
        raise InvalidQuery(f"project must be text, got {project!r}")
    return Filters(project=project, types=types, scope=scope, tag=tag)


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except OSError:
        return None


def _read(path: Path) -> tuple[str, os.stat_result]:
    """A note file's text and its stat, taken before reading so a later edit is never
    missed. Only a regular file is read, never through a symbolic link, up to a size cap
    (:mod:`.safe_files`)."""
    data, stat = read_regular(path)
    return data.decode("utf-8"), stat


def _read_bytes(path: Path) -> bytes | None:
    try:
        return read_regular(path)[0]
    except OSError:
        return None


def _mtime_or_none(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _stat_key(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)


def _dir_mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _stat_matches(path: Path | str, row: ix.NoteRow) -> bool:
    try:
        stat = os.stat(path)
    except OSError:
        return False
    return stat.st_size == row.file_size and stat.st_mtime_ns == row.file_mtime_ns
