"""The store's SQLite files (the index, the usage log) are in WAL mode; a new file is put
in it by :func:`use_wal`, which several processes may call at once on the same new file.

Why not a plain ``PRAGMA journal_mode=WAL``: switching takes a shared lock (to read the
file's header) and then the write lock, and SQLite never makes a connection that holds a
shared lock wait for the write lock (two such connections would wait for each other
forever). So when two processes make the file together, the one that asks second is
answered "database is locked" at once, whatever its busy timeout (a hook's recording was
lost that way). The first finishes within milliseconds; :func:`use_wal` asks again until
the file is in WAL mode or its patience runs out.
"""

from __future__ import annotations

import sqlite3
import time

# Between two tries: the other process's switch takes a millisecond or two (and the next
# try's read of the mode waits for it with the busy timeout anyway).
_PAUSE_S = 0.002


def use_wal(conn: sqlite3.Connection, patience_s: float) -> None:
    """Put ``conn``'s file in WAL mode (outside any transaction), waiting up to
    ``patience_s`` seconds for other connections switching it at the same time. A file
    in WAL mode already is only read (no write lock, so no wait for another's write).
    Raises the last OperationalError when the file stays locked, or for anything else."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(_PAUSE_S)


def is_busy(exc: sqlite3.OperationalError) -> bool:
    """True when the error is another connection's lock, not a fault."""
    return "locked" in str(exc) or "busy" in str(exc)
