"""The index's one connection, and how it recovers: the index can always be rebuilt.

Every store operation runs through :meth:`IndexConnection.run`, under one lock. An index
that turns out damaged, or is there but cannot be opened or written, is moved aside
(``index.db.corrupt-<time>``, kept for a post-mortem) and rebuilt from the markdown, once,
with an :class:`~.errors.IndexRebuiltWarning`; the action is then retried. Another
program's SQLite database at the index's path is moved aside untouched, never rebuilt in.
A busy lock, a full disk or a missing folder is reported as
:class:`~.errors.IndexUnavailable`: a rebuild would not fix those.
"""

from __future__ import annotations

import os
import sqlite3
import time
import warnings
from _thread import RLock  # what threading.RLock is; importing threading costs more
from pathlib import Path

from anamnesis.store.errors import IndexRebuiltWarning, IndexUnavailable, StoreError
from anamnesis.store.index import db as ix
from anamnesis.store.index import file_format

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

_DB_SUFFIXES = ("", "-wal", "-shm")


class _ForeignIndex(Exception):
    """index.db is another program's SQLite database: move it aside, never rebuild in it."""


def _refuse_foreign(conn: sqlite3.Connection) -> None:
    kind = ix.foreign_kind(conn)
    if kind is not None:  # not ours: never drop another program's tables
        raise _ForeignIndex(kind)


class IndexConnection:
    """One open index, with a lock and the repair described in the module docstring.

    ``build`` fills freshly created tables from the markdown (inside a write transaction);
    it runs when the index is new, was made by another version, or was rebuilt.
    """

    def __init__(self, db_path: Path, build: Callable[[sqlite3.Connection], object]) -> None:
        self.db_path = db_path
        self._build = build
        self._lock = RLock()
        self._conn: sqlite3.Connection | None = None
        self._conn = self._open()

    def connection(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError("this store is closed")
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def run(self, action: Callable[[], T]) -> T:
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
            moved = self._move_aside(str(foreign))
            _warn(
                f"{self.db_path} was {foreign}; moved it to {moved} untouched and rebuilt"
                " the index from the markdown"
            )
        except sqlite3.Error as exc:
            if not self._replaceable(exc):
                raise ix.unavailable(self.db_path, exc) from None
            self._move_aside(str(exc))
            _warn(f"the index {self.db_path} was unreadable ({exc}); rebuilt it from the markdown")
        try:
            return self._open_once()
        except sqlite3.Error as exc:
            raise ix.unavailable(self.db_path, exc) from None

    def _open_once(self) -> sqlite3.Connection:
        conn = ix.connect(self.db_path)
        try:
            if not ix.is_current(conn):
                _refuse_foreign(conn)
                if not file_format.has_current_format(conn):
                    # Emptied first, so the rewrite into this version's format is quick.
                    with ix.write_transaction(conn, self.db_path):
                        if not ix.is_current(conn):
                            ix.recreate_schema(conn)
                    file_format.reformat(conn)
                with ix.write_transaction(conn, self.db_path):
                    if not ix.is_current(conn):  # another process may have just built it
                        had_tables = conn.execute(
                            "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                        ).fetchone()[0]
                        ix.recreate_schema(conn)
                        self._build(conn)
                        ix.mark_current(conn)
                        if had_tables:
                            _warn(
                                f"the index {self.db_path} was built by another version;"
                                " rebuilt it from the markdown"
                            )
                file_format.give_back_free_pages(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _recover(self, reason: str) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._move_aside(reason)
        _warn(f"{reason}; rebuilt it from the markdown")
        self._conn = self._open()

    def _move_aside(self, reason: str) -> Path:
        """Rename the index files to ``index.db.corrupt-<time>[-wal|-shm]``; the index is
        then rebuilt from the markdown. Returns where the main file went."""
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


def _warn(message: str) -> None:
    import logging  # only when the index breaks: logging costs the hooks' hot path an import

    logging.getLogger("anamnesis.store").warning(message)
    # Attributed to the caller of the store method that found the index broken.
    warnings.warn(message, IndexRebuiltWarning, stacklevel=5)
