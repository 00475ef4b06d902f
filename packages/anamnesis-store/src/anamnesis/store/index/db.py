"""The SQLite index: connection set-up, schema, and the rows that mirror notes.

This module knows rows and SQL, not files: the store decides what to index and when.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from anamnesis.store.errors import IndexUnavailable, StoreBusy
from anamnesis.store.index import project_seq, stored_text
from anamnesis.store.index.file_format import AUTO_VACUUM_INCREMENTAL, PAGE_SIZE
from anamnesis.store.index.schema import (
    APPLICATION_ID,
    INDEXES,
    PASSAGE_CACHE_COLUMNS,
    PASSAGE_CACHE_TABLE,
    SCHEMA,
    SCHEMA_VERSION,
)
from anamnesis.store.note import invisible
from anamnesis.store.note.model import Memory
from anamnesis.store.note.timestamps import ranking_time, utc_now
from anamnesis.store.note.validity import due_bound, expiry_bound
from anamnesis.store.record import Record
from anamnesis.store.sqlite_wal import is_busy, use_wal

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any

# SQLite primary result codes that mean the file itself is damaged.
_SQLITE_CORRUPT = 11
_SQLITE_NOTADB = 26
# Codes for a file SQLite cannot open or write (a folder or an unreadable file at its path,
# a read-only file), for a lock held elsewhere and for a full disk.
_SQLITE_PERM = 3
_SQLITE_BUSY = 5
_SQLITE_LOCKED = 6
_SQLITE_READONLY = 8
_SQLITE_FULL = 13
_SQLITE_CANTOPEN = 14

# How long a writer waits for another process's write transaction before giving up.
# SQLite's busy handler waits busy_timeout per attempt; we retry attempts up to this.
WRITE_LOCK_PATIENCE_S = 60.0
BUSY_TIMEOUT_MS = 5000
CACHE_KIB = 32768

_ROW_COLUMNS = (
    "m.seq, m.id, m.type, m.title, m.body_path, m.project, m.machine_id, m.scope, "
    "m.created_at, m.updated_at, m.prov_source, m.prov_model, m.prov_session, m.prov_agent, "
    "m.confidence, m.tags_json, m.supersedes_json, m.extra_json, m.complete, m.file_size, "
    "m.file_mtime_ns, m.valid_until, m.review_after, m.reviewed_at, m.compatible_json"
)
# One row holds a whole note (memories is also the full-text table's content).
SELECT_NOTE = f"SELECT {_ROW_COLUMNS}, {stored_text.SQL_FUNCTION}(m.body_z) FROM memories m"
SELECT_NOTE_NO_BODY = f"SELECT {_ROW_COLUMNS}, '' FROM memories m"


def is_corruption(exc: BaseException) -> bool:
    """True when an sqlite3 error says the database file is damaged or not a database.

    "locked", "readonly" or "disk I/O" errors are not damage: they must not trigger a rebuild.
    """
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    if _code(exc) in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    text = str(exc)
    return "malformed" in text or "not a database" in text


def is_unopenable(exc: BaseException) -> bool:
    """True when SQLite cannot open or write the index file itself: a folder or a file
    without read permission at its path, a read-only file. Replacing the file fixes that;
    a read-only folder, a lock held elsewhere or a full disk it would not."""
    if not isinstance(exc, sqlite3.Error):
        return False
    code = _extended_code(exc)
    if code == _SQLITE_READONLY:  # the plain code: the file, not the folder, is read-only
        return True
    return code & 0xFF in (_SQLITE_PERM, _SQLITE_CANTOPEN)


def _code(exc: sqlite3.Error) -> int:
    return _extended_code(exc) & 0xFF


def _extended_code(exc: sqlite3.Error) -> int:
    return getattr(exc, "sqlite_errorcode", 0) or 0


class NoteRow(Record):
    """An indexed note plus where its file is and the file stat the row was built from."""

    __slots__ = ("body_path", "complete", "file_mtime_ns", "file_size", "memory", "seq")

    def __init__(
        self,
        seq: int,
        memory: Memory,
        body_path: str,
        file_size: int,
        file_mtime_ns: int,
        complete: bool,
    ) -> None:
        self.seq = seq
        self.memory = memory
        self.body_path = body_path
        self.file_size = file_size
        self.file_mtime_ns = file_mtime_ns
        self.complete = complete


def connect(db_path: Path) -> sqlite3.Connection:
    """Open the index with the settings every connection needs.

    ``check_same_thread=False``: the MCP server calls the store from worker threads; the
    store serializes use of the connection with its own lock. Autocommit mode
    (``isolation_level=None``) so transactions are explicit: writers take
    ``BEGIN IMMEDIATE`` and never hit SQLite's read-to-write upgrade deadlock. WAL lets
    sessions read while another writes; ``synchronous=NORMAL`` skips an fsync per commit,
    which is safe because the markdown (fsynced) is the truth and the index is rebuildable.
    """
    conn = sqlite3.connect(
        db_path, check_same_thread=False, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000
    )
    try:
        stored_text.register(conn)
        invisible.register(conn)
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        # The file's format (:func:`has_current_format`): a new file takes it here, before
        # WAL mode writes its first page; an older one when rebuilt (:func:`reformat`).
        # Setting auto_vacuum takes the write lock even when it changes nothing, so a file
        # that has it already is left alone: opening the index (every hook, every reader)
        # never waits for another process's write.
        conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] != AUTO_VACUUM_INCREMENTAL:
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
        use_wal(conn, BUSY_TIMEOUT_MS / 1000)
        conn.execute("PRAGMA synchronous=NORMAL")
        # Up to 32 MB of pages (taken only as pages are read): a vector scan reads 1.5 KB
        # per note, and SQLite's 2 MB default would re-read them from the OS every time.
        conn.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    except BaseException:
        conn.close()
        raise
    return conn


def is_current(conn: sqlite3.Connection) -> bool:
    """True when the file holds this version's schema (so no rebuild is needed)."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    return bool(version == SCHEMA_VERSION and app_id == APPLICATION_ID)


def foreign_kind(conn: sqlite3.Connection) -> str | None:
    """What the file is when it holds tables but is not an index of this project's own
    (another application id): never to be changed in place. None: ours, or empty."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    if app_id == APPLICATION_ID:
        return None
    tables = {
        name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    if not tables:
        return None
    if {"memories", "memories_fts"} <= tables:  # the published release's layout
        return "an index built by another version of Anamnesis"
    return "not an Anamnesis index (another program's SQLite database)"


def recreate_schema(conn: sqlite3.Connection) -> None:
    """Drop every table in the file and create this version's tables (in a transaction).

    The caller then fills the tables, calls :func:`create_indexes` and :func:`mark_current`,
    all in the same transaction, so no reader ever sees a current-but-empty index.
    """
    for (view,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
        conn.execute(f'DROP VIEW IF EXISTS "{view}"')
    rows = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    ).fetchall()
    # Cached embeddings are keyed by content and model, not by this schema: keeping them
    # means a rebuild re-embeds nothing (embedding is the one slow thing in here).
    rows = [(name, sql) for name, sql in rows if not _is_embedding_cache(conn, name)]
    virtual = [name for name, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL")]
    for name in virtual:  # dropping a virtual table drops its shadow tables too
        conn.execute(f'DROP TABLE IF EXISTS "{name}"')
    for name, _sql in rows:
        if name not in virtual:
            conn.execute(f'DROP TABLE IF EXISTS "{name}"')
    for statement in _statements(SCHEMA):
        conn.execute(statement)


def _is_embedding_cache(conn: sqlite3.Connection, name: str) -> bool:
    if name != PASSAGE_CACHE_TABLE:
        return False
    columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{PASSAGE_CACHE_TABLE}")')]
    return tuple(columns) == PASSAGE_CACHE_COLUMNS


def create_indexes(conn: sqlite3.Connection) -> None:
    """Add the secondary indexes (after a bulk fill) and the full-text index."""
    for statement in _statements(INDEXES):
        conn.execute(statement)
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')")
    # One segment instead of the rebuild's several: each phrase of a query is then looked
    # up once, not once a segment (about half the cost per phrase:
    # bench/results/2026-11-25-zipf-search.md).
    conn.execute("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')")


def mark_current(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")


def _statements(script: str) -> Iterator[str]:
    # executescript() would COMMIT the open transaction first; run statements one by one.
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.lstrip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""


@contextmanager
def write_transaction(conn: sqlite3.Connection, db_path: Path) -> Iterator[None]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT``, waiting patiently for other writers."""
    deadline = time.monotonic() + WRITE_LOCK_PATIENCE_S
    while True:
        try:
            conn.execute("BEGIN IMMEDIATE")
            break
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise
            if time.monotonic() >= deadline:
                raise StoreBusy(
                    f"the index {db_path} stayed locked by another process for "
                    f"{WRITE_LOCK_PATIENCE_S:.0f}s; is a long reindex running? Try again."
                ) from None
    with _committed(conn):
        yield


@contextmanager
def write_transaction_if_free(conn: sqlite3.Connection) -> Iterator[bool]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` if no other connection holds the write lock right
    now (yields True); yields False at once, with no transaction, if one does."""
    conn.execute("PRAGMA busy_timeout=0")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if not is_busy(exc):
            raise
        yield False
        return
    finally:
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    with _committed(conn):
        yield True


@contextmanager
def _committed(conn: sqlite3.Connection) -> Iterator[None]:
    """The body of a write transaction already begun: committed, or rolled back if it
    raises."""
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@contextmanager
def read_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One consistent snapshot across several statements."""
    if conn.in_transaction:  # already inside a write transaction: that is a snapshot too
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    finally:
        _end_read(conn)


def _end_read(conn: sqlite3.Connection) -> None:
    if conn.in_transaction:  # SQLite may already have ended it after an error
        conn.execute("COMMIT")


def _json_exact(value: Any) -> bool:
    """True when ``value`` survives a JSON round trip unchanged (YAML can hold more)."""
    if value is None or isinstance(value, str | bool | int | float):
        return True
    if isinstance(value, list):
        return all(_json_exact(item) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_exact(v) for k, v in value.items())
    return False


def upsert(
    conn: sqlite3.Connection,
    mem: Memory,
    body_path: str,
    file_size: int,
    file_mtime_ns: int,
    *,
    new: bool = False,
    fts: bool = True,
) -> int:
    """Insert or replace the rows of one note; return its seq. Caller holds a transaction.

    ``new`` promises no row has this id yet (a freshly minted id), skipping the lookup.
    ``fts=False`` leaves the full-text index alone: a full reindex rebuilds it at the end.
    """
    seq: int | None = None
    if not new:
        old = conn.execute(_SELECT_OLD, (mem.id,)).fetchone()
        if old is not None:
            if old[4] == mem.project:  # another project's notes live in another range
                seq = old[0]
            _delete_rows(conn, mem.id, old, fts=fts)
    if seq is None:
        seq = project_seq.new_seq(conn, mem.project)
    complete = _json_exact(mem.extra)
    tags_text = " ".join(mem.tags)
    cursor = conn.execute(
        "INSERT INTO memories (seq, id, type, title, body_path, project, machine_id, scope,"
        " created_at, updated_at, ranked_at, prov_source, prov_model, prov_session,"
        " prov_agent, confidence, supersedes, tags_json, supersedes_json, extra_json, complete,"
        " file_size, file_mtime_ns, valid_until, expires_at, review_after, due_at, reviewed_at,"
        " compatible_json, tags, body_z)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            seq,
            mem.id,
            mem.type,
            mem.title,
            body_path,
            mem.project,
            mem.machine_id,
            mem.scope,
            mem.created_at,
            mem.updated_at,
            ranking_time(mem.updated_at, utc_now(), file_mtime_ns),
            mem.prov_source,
            mem.prov_model or None,
            mem.prov_session or None,
            mem.prov_agent or None,
            mem.confidence,
            mem.supersedes[0] if mem.supersedes else None,
            json.dumps(mem.tags, ensure_ascii=False),
            json.dumps(mem.supersedes),
            json.dumps(mem.extra, ensure_ascii=False) if complete and mem.extra else "{}",
            int(complete),
            file_size,
            file_mtime_ns,
            mem.valid_until or None,
            expiry_bound(mem.valid_until) or None,
            mem.review_after or None,
            due_bound(mem.review_after) or None,
            mem.reviewed_at or None,
            json.dumps(mem.compatible_with),
            tags_text,
            stored_text.deflated(mem.body),
        ),
    )
    new_seq = cursor.lastrowid
    assert new_seq is not None
    if fts:  # the text the content view (schema.py) gives this row, without inflating it
        match = invisible.match_text
        conn.execute(
            "INSERT INTO memories_fts (rowid, title, body, tags) VALUES (?, ?, ?, ?)",
            (new_seq, match(mem.title), match(mem.body), match(tags_text)),
        )
    if mem.tags:
        conn.executemany(
            "INSERT INTO memory_tags (seq, tag) VALUES (?, ?)",
            [(new_seq, tag) for tag in mem.tags],
        )
    if mem.supersedes:
        conn.executemany(
            "INSERT INTO memory_supersedes (memory_id, superseded_id) VALUES (?, ?)",
            [(mem.id, sid) for sid in mem.supersedes],
        )
    return new_seq


def delete(conn: sqlite3.Connection, memory_id: str, *, fts: bool = True) -> bool:
    """Remove every row of one note; True if it was indexed. Caller holds a transaction."""
    old = conn.execute(_SELECT_OLD, (memory_id,)).fetchone()
    if old is None:
        return False
    _delete_rows(conn, memory_id, old, fts=fts)
    return True


# What removing a note's rows needs: its rowid, its indexed text (as the full-text table's
# content view gives it), its project.
_SELECT_OLD = (
    "SELECT m.seq, t.title, t.body, t.tags, m.project"
    " FROM memories m JOIN memories_text t ON t.seq = m.seq WHERE m.id = ?"
)


def _delete_rows(
    conn: sqlite3.Connection, memory_id: str, old: Sequence[Any], *, fts: bool
) -> None:
    seq, title, body, tags, _project = old
    if fts:
        # An external-content FTS5 table forgets a row only when told its exact old text.
        conn.execute(
            "INSERT INTO memories_fts (memories_fts, rowid, title, body, tags)"
            " VALUES ('delete', ?, ?, ?, ?)",
            (seq, title, body, tags),
        )
    conn.execute("DELETE FROM memories WHERE seq = ?", (seq,))
    conn.execute("DELETE FROM note_passages WHERE seq = ?", (seq,))
    conn.execute("DELETE FROM memory_tags WHERE seq = ?", (seq,))
    conn.execute("DELETE FROM memory_supersedes WHERE memory_id = ?", (memory_id,))


def note_row(row: Sequence[Any]) -> NoteRow:
    """Build a :class:`NoteRow` from a row selected with :data:`SELECT_NOTE`."""
    (
        seq,
        memory_id,
        note_type,
        title,
        body_path,
        project,
        machine_id,
        scope,
        created_at,
        updated_at,
        prov_source,
        prov_model,
        prov_session,
        prov_agent,
        confidence,
        tags_json,
        supersedes_json,
        extra_json,
        complete,
        file_size,
        file_mtime_ns,
        valid_until,
        review_after,
        reviewed_at,
        compatible_json,
        body,
    ) = row
    memory = Memory(
        id=memory_id,
        type=note_type,
        title=title,
        body=body,
        project=project,
        machine_id=machine_id,
        scope=scope,
        tags=_decode_list(tags_json),
        created_at=created_at,
        updated_at=updated_at,
        prov_source=prov_source,
        prov_model=prov_model or "",
        prov_session=prov_session or "",
        prov_agent=prov_agent or "",
        confidence=confidence,
        supersedes=_decode_list(supersedes_json),
        extra=json.loads(extra_json) if extra_json != "{}" else {},
        valid_until=valid_until or "",
        review_after=review_after or "",
        reviewed_at=reviewed_at or "",
        compatible_with=_decode_list(compatible_json),
    )
    return NoteRow(seq, memory, body_path, file_size, file_mtime_ns, bool(complete))


@lru_cache(maxsize=4096)
def _decoded(text: str) -> tuple[str, ...]:
    return tuple(json.loads(text))


def _decode_list(text: str) -> list[str]:
    """A JSON list of strings; tag lists repeat a lot across notes, so decode each once."""
    return [] if text == "[]" else list(_decoded(text))


def rows_by_id(
    conn: sqlite3.Connection, ids: Iterable[str], *, with_body: bool = True
) -> dict[str, NoteRow]:
    """The rows of the given notes, keyed by id (missing ids are simply absent)."""
    wanted = list(dict.fromkeys(ids))
    out: dict[str, NoteRow] = {}
    base = SELECT_NOTE if with_body else SELECT_NOTE_NO_BODY
    for start in range(0, len(wanted), 500):  # stay under SQLite's bound-parameter limit
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"{base} WHERE m.id IN ({marks})", chunk):
            parsed = note_row(row)
            out[parsed.memory.id] = parsed
    return out


def get_meta(conn: sqlite3.Connection, prefix: str) -> dict[str, str]:
    """Bookkeeping entries whose key starts with ``prefix``."""
    rows = conn.execute(
        "SELECT key, value FROM index_meta WHERE key >= ? AND key < ?",
        (prefix, prefix + "\U0010ffff"),
    )
    return dict(rows.fetchall())


def set_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM index_meta WHERE key = ?", (key,))
    else:
        conn.execute(
            "INSERT INTO index_meta (key, value) VALUES (?, ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def unavailable(db_path: Path, exc: BaseException) -> IndexUnavailable:
    """An actionable error for an index that cannot be opened or written.

    Only called once the store has done what it can: a damaged or unopenable index file is
    moved aside and rebuilt before this, so the hint names what the user must fix.
    """
    text = str(exc)
    code = _code(exc) if isinstance(exc, sqlite3.Error) else 0
    if code in (_SQLITE_BUSY, _SQLITE_LOCKED) or "locked" in text:
        hint = "another process is holding it; try again in a moment"
    elif code in (_SQLITE_PERM, _SQLITE_READONLY, _SQLITE_CANTOPEN) or "readonly" in text:
        hint = (
            f"check that you can create and write files in {db_path.parent}"
            " (its permissions, a read-only disk); the markdown notes are safe"
        )
    elif code == _SQLITE_FULL or "full" in text:
        hint = "check the disk has free space; the markdown notes are safe"
    else:
        hint = f"the markdown notes are safe: move {db_path} away and it is rebuilt from them"
    return IndexUnavailable(f"cannot use the index {db_path}: {text}; {hint}")
