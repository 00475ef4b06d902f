"""Putting a new SQLite file in WAL mode while another connection is switching it too: a
plain ``PRAGMA journal_mode=WAL`` is refused at once, whatever the busy timeout;
:func:`use_wal` waits for the other to finish."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from anamnesis.store import use_wal


@contextmanager
def write_lock_held(path: Path, for_s: float | None = None) -> Iterator[None]:
    """Another connection holds the write lock on the (rollback-mode) file for ``for_s``
    seconds (None: until the block ends): what a process halfway through its own switch
    to WAL holds."""
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(for_s or 0.0, lambda: holder.execute("ROLLBACK"))
    if for_s is not None:
        release.start()
    try:
        yield
    finally:
        if for_s is None:
            holder.execute("ROLLBACK")
        else:
            release.join()
        holder.close()


def connection(path: Path, timeout: float = 1.0) -> sqlite3.Connection:
    return sqlite3.connect(path, timeout=timeout, isolation_level=None)


def test_a_plain_switch_is_refused_at_once_despite_the_busy_timeout(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    conn = connection(path, timeout=30.0)
    with write_lock_held(path):
        started = time.monotonic()
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            conn.execute("PRAGMA journal_mode=WAL")
        assert time.monotonic() - started < 15.0  # the 30 s busy timeout was not waited
    conn.close()


def test_use_wal_waits_for_the_other_switch(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    conn = connection(path)
    with write_lock_held(path, 0.2):
        use_wal(conn, 1.0)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_use_wal_gives_up_when_its_patience_runs_out(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    conn = connection(path)
    with write_lock_held(path, 0.3), pytest.raises(sqlite3.OperationalError, match="locked"):
        use_wal(conn, 0.05)
    conn.close()


def test_a_file_in_wal_mode_already_takes_no_write_lock(tmp_path: Path) -> None:
    path = tmp_path / "wal.db"
    use_wal(connection(path), 1.0)
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process mid-write
    try:
        use_wal(connection(path, timeout=0.0), 0.0)  # would be refused if it asked to write
    finally:
        writer.execute("ROLLBACK")
        writer.close()
