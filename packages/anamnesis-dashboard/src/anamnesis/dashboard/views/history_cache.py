"""Each note's versions from the store's git history, kept in a derived SQLite cache.

Walking git for one note's history takes seconds on a few thousand commits; the history
page needs it per request. So the commits are indexed once into SQLite (which commit
wrote which note file, by which machine, when) and each later request only indexes the
commits that are new since (:meth:`HistoryCache.refresh`: when HEAD has not moved, one
ref read and one tiny query).

The cache is derived: never synced, rebuilt from git whenever it is missing, damaged or
of another schema version, so nothing in it is ever an error for the user. It always
holds exactly the commits HEAD reached at its last refresh: a sync that replays this
machine's commits on the remote's (or a resolution that replaces them) drops the
replaced commits from it, or their versions would show twice and machines be counted
twice.

Two processes refreshing at once are serialised by SQLite (one write transaction per
refresh, which re-reads the head it starts from), and rows are keyed by (commit, path)
so nothing is counted twice either way.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import Any

from anamnesis.store import use_wal
from anamnesis.sync import (
    CommitChanges,
    SyncError,
    head_commit,
    new_commits,
    read_blob,
    unreachable_commits,
)

SCHEMA_VERSION = "1"
# How long a refresh waits for another process's refresh to finish (a cold build of a
# few thousand commits takes a few seconds).
BUSY_TIMEOUT_MS = 30_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS commits (
    sha TEXT PRIMARY KEY,
    machine_id TEXT NOT NULL,
    time INTEGER NOT NULL,
    message TEXT NOT NULL,
    generation INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS changes (
    commit_sha TEXT NOT NULL,
    path TEXT NOT NULL,
    note_id TEXT NOT NULL,
    blob TEXT,
    PRIMARY KEY (commit_sha, path)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS changes_by_note ON changes (note_id);
"""

# Newest first by place in the history (see _generations), then by time; within one
# commit a note's surviving file before a deleted one (a move deletes the old path).
_VERSIONS = """
SELECT c.sha, c.machine_id, c.time, c.message, ch.path, ch.blob
FROM changes ch JOIN commits c ON c.sha = ch.commit_sha
WHERE ch.note_id = ?
ORDER BY c.generation DESC, c.time DESC, c.sha, ch.blob IS NULL, ch.path
"""


@dataclass(frozen=True, slots=True)
class NoteVersion:
    """A note as one commit left it: ``blob`` None when that commit deleted it."""

    commit: str
    machine_id: str
    time: int
    message: str
    path: str
    blob: str | None


class HistoryCache:
    """The history of the notes in ``repo_dir`` (the synced notes folder), cached in
    ``cache_path`` (the dashboard uses ``<store home>/cache/history.db``).

    Safe to share between threads (one connection behind a lock). Raises
    :class:`~anamnesis.sync.SyncError` only when the git repository itself is damaged.
    """

    def __init__(self, repo_dir: Path, cache_path: Path) -> None:
        self.repo_dir = Path(repo_dir)
        self.cache_path = Path(cache_path)
        self._lock = threading.RLock()
        self._db = self._connect()

    # -- public API -----------------------------------------------------------------

    def refresh(self) -> int:
        """Index the commits new since the last refresh; return how many."""
        with self._lock:
            try:
                return self._refresh()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                return self._refresh()

    def rebuild(self) -> int:
        """Forget everything and index the whole history again; return how many commits."""
        with self._lock:
            try:
                return self._rebuild()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                return self._rebuild()

    def versions(self, note_id: str) -> list[NoteVersion]:
        """The note's versions, newest first, as of the last refresh.

        Keyed by the note's id (its file name without ``.md``), so a note moved to
        another folder keeps one history. Consecutive versions with the same content
        are one version: the oldest commit that wrote that content.
        """
        with self._lock:
            try:
                rows = self._db.execute(_VERSIONS, (note_id,)).fetchall()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                self._refresh()
                rows = self._db.execute(_VERSIONS, (note_id,)).fetchall()
        return _collapse(_one_per_commit(rows))

    def text(self, blob: str) -> str:
        """A version's content (undecodable bytes replaced). Raises
        :class:`~anamnesis.sync.SyncError` for a blob the repository does not hold."""
        return read_blob(self.repo_dir, blob).decode("utf-8", errors="replace")

    def machines(self) -> dict[str, tuple[int, int]]:
        """Each machine's (commit count, time of its last commit) in the history."""
        rows = self._rows("SELECT machine_id, COUNT(*), MAX(time) FROM commits GROUP BY machine_id")
        return {machine: (count, last) for machine, count, last in rows}

    def note_writes(self) -> dict[str, int]:
        """Each machine's newest commit that changed a note file (unix seconds): when it
        last wrote a note, whoever created the note (an edit keeps the note's own
        ``machine_id``, so the notes' metadata alone never credits the machine that edited)."""
        return dict(
            self._rows(
                "SELECT c.machine_id, MAX(c.time) FROM commits c WHERE EXISTS "
                "(SELECT 1 FROM changes ch WHERE ch.commit_sha = c.sha) GROUP BY c.machine_id"
            )
        )

    def _rows(self, query: str) -> list[Any]:
        """A read of the cache; a file gone bad under us is rebuilt and read again."""
        with self._lock:
            try:
                return self._db.execute(query).fetchall()
            except sqlite3.DatabaseError as exc:
                self._recover(exc)
                self._refresh()
                return self._db.execute(query).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> HistoryCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- indexing -------------------------------------------------------------------

    def _refresh(self) -> int:
        head = head_commit(self.repo_dir)
        if head == self._stored_head():  # the common case: nothing moved
            return 0
        with _transaction(self._db):
            last = self._stored_head()  # another process may have got here first
            if head == last:
                return 0
            return self._advance(last, head)

    def _rebuild(self) -> int:
        head = head_commit(self.repo_dir)
        with _transaction(self._db):
            self._clear()
            return self._advance(None, head)

    def _advance(self, last: str | None, head: str | None) -> int:
        """Bring the cache from ``last`` (what it holds) to ``head``; inside a transaction."""
        if head is None:  # the repository is gone, or has no commit
            self._clear()
            return 0
        fresh = list(new_commits(self.repo_dir, self._known, start=head))
        if last is not None and not any(last in c.parents for c in fresh):
            # Not a move forward from ``last``: drop what HEAD no longer reaches.
            try:
                self._forget(unreachable_commits(self.repo_dir, last, head))
            except SyncError:  # ``last`` is gone from the repository: start over
                self._clear()
                fresh = list(new_commits(self.repo_dir, lambda sha: False, start=head))
        added = self._insert(fresh)
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('head', ?)", (head,))
        return added

    def _known(self, sha: str) -> bool:
        # One indexed lookup per commit the walk meets: an incremental refresh meets one
        # or two. Loading every known sha into a set first is slower at 3,000 commits
        # (an incremental walk took 3.2 ms that way, 2.4 ms this way: history_bench.py).
        found = self._db.execute("SELECT 1 FROM commits WHERE sha = ?", (sha,)).fetchone()
        return found is not None

    def _insert(self, fresh: list[CommitChanges]) -> int:
        generations = _generations(fresh, self._generation)
        before = self._db.total_changes
        self._db.executemany(
            "INSERT OR IGNORE INTO commits VALUES (?, ?, ?, ?, ?)",
            (
                (c.sha, c.machine_id, _storable_time(c.time), c.message, generations[c.sha])
                for c in fresh
            ),
        )
        added = self._db.total_changes - before
        self._db.executemany(
            "INSERT OR IGNORE INTO changes VALUES (?, ?, ?, ?)",
            (
                (c.sha, path, PurePosixPath(path).stem, f.blob)
                for c in fresh
                for f in c.files
                if f.path.endswith(".md")
                for path in (_storable(f.path),)
            ),
        )
        return added

    def _generation(self, sha: str) -> int:
        row = self._db.execute("SELECT generation FROM commits WHERE sha = ?", (sha,)).fetchone()
        return int(row[0]) if row else 0

    def _forget(self, shas: list[str]) -> None:
        rows = [(sha,) for sha in shas]
        self._db.executemany("DELETE FROM changes WHERE commit_sha = ?", rows)
        self._db.executemany("DELETE FROM commits WHERE sha = ?", rows)

    def _clear(self) -> None:
        self._db.execute("DELETE FROM changes")
        self._db.execute("DELETE FROM commits")
        self._db.execute("DELETE FROM meta WHERE key = 'head'")

    def _stored_head(self) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'head'").fetchone()
        return str(row[0]) if row else None

    # -- the file -------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        """Open the cache, starting a new one when the file is damaged or foreign."""
        self.cache_path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = _open(self.cache_path)
        except sqlite3.DatabaseError as exc:
            if not _damaged(exc):
                raise
            db = None
        if db is not None and _usable(db):
            return db
        if db is not None:
            db.close()
        self._delete_files()
        db = _open(self.cache_path)
        if not _usable(db):  # another process started a foreign file this instant
            db.close()
            raise sqlite3.DatabaseError(f"cannot start a history cache at {self.cache_path}")
        return db

    def _recover(self, exc: sqlite3.DatabaseError) -> None:
        """The file went bad under us: start a new one (re-raise anything else)."""
        if not _damaged(exc):
            raise exc
        self._db.close()
        self._delete_files()
        self._db = self._connect()

    def _delete_files(self) -> None:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{self.cache_path}{suffix}").unlink(missing_ok=True)


# -- helpers ----------------------------------------------------------------------------


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error): the write lock is taken before
    the head is re-read, so two refreshes never index the same commits."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _open(path: Path) -> sqlite3.Connection:
    # Autocommit mode: transactions are explicit (_transaction), reads take no lock.
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        use_wal(db, BUSY_TIMEOUT_MS / 1000)  # waits out another process making the file
        db.execute("PRAGMA synchronous = NORMAL")  # a cache: losing the last refresh is fine
    except BaseException:
        db.close()
        raise
    return db


def _usable(db: sqlite3.Connection) -> bool:
    """Make the schema if the file is new; False when it is of another version or kind.

    Only a new file takes the write lock: opening a cache another process is filling
    does not wait for it.
    """
    try:
        if not _tables(db):
            with _transaction(db):
                if not _tables(db):  # nobody made it meanwhile
                    _create(db)
                    db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
        if "meta" not in _tables(db):
            return False
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError as exc:
        if _damaged(exc):
            return False
        raise
    return row is not None and row[0] == SCHEMA_VERSION


def _tables(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _create(db: sqlite3.Connection) -> None:
    # executescript would COMMIT the open transaction first: run the statements one by one.
    for statement in _SCHEMA.split(";"):
        if statement.strip():
            db.execute(statement)


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    """A file that is not a database, or a damaged one (not a busy or locked one)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None:
        return False
    return code & 0xFF in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def _generations(fresh: list[CommitChanges], known: Callable[[str], int]) -> dict[str, int]:
    """Each new commit's place in the history: one more than its highest parent (a
    commit comes after all of its ancestors, whatever the machines' clocks said)."""
    by_sha = {c.sha: c for c in fresh}
    out: dict[str, int] = {}
    for sha in reversed(by_sha):  # oldest first, mostly: the stack stays short
        stack = [sha]
        while stack:
            top = stack[-1]
            if top in out:
                stack.pop()
                continue
            parents = by_sha[top].parents
            waiting = [p for p in parents if p in by_sha and p not in out]
            if waiting:
                stack.extend(waiting)
                continue
            out[top] = 1 + max((out[p] if p in by_sha else known(p) for p in parents), default=-1)
            stack.pop()
    return out


_Row = tuple[str, str, int, str, str, str | None]


def _one_per_commit(rows: Iterable[_Row]) -> list[NoteVersion]:
    """One version per commit: the first row of each (see the ORDER BY of _VERSIONS)."""
    out: list[NoteVersion] = []
    for sha, machine, when, message, path, blob in rows:
        if out and out[-1].commit == sha:
            continue
        out.append(NoteVersion(sha, machine, when, message, path, blob))
    return out


def _collapse(newest_first: list[NoteVersion]) -> list[NoteVersion]:
    """Consecutive versions with the same content become the oldest of them."""
    kept: list[NoteVersion] = []
    for version in reversed(newest_first):
        if not kept or kept[-1].blob != version.blob:
            kept.append(version)
    kept.reverse()
    return kept


def _storable(path: str) -> str:
    # A file name git holds as bytes that are not UTF-8 comes with surrogates, which
    # SQLite cannot store: keep a readable spelling (only the id is looked up).
    if path.isascii():
        return path
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


# A commit's time is any integer its author wrote (git keeps it as text); SQLite holds 64
# bits. A pulled commit dated past that used to fail every refresh, so every history and
# the fleet page; it is kept at the bound (the order it gives stays the same).
_INTEGER_RANGE = (-(2**63), 2**63 - 1)


def _storable_time(seconds: int) -> int:
    return min(max(seconds, _INTEGER_RANGE[0]), _INTEGER_RANGE[1])
