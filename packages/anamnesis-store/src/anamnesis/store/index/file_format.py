"""The index file's format, which no table shows: its page size and how it frees pages.

Set on a new file by ``db.connect`` before its first page is written; an index made by
an older version is rewritten into it when rebuilt (:func:`reformat`).
"""

from __future__ import annotations

import sqlite3

from anamnesis.store.sqlite_wal import is_busy

# A note row (metadata and a deflated body, ~1.6 KB) leaves on average half a row unused
# per page: 23 % of a 4 KB page, 11 % of an 8 KB one (100,000 notes of bench/common/corpus.py).
PAGE_SIZE = 8192
AUTO_VACUUM_INCREMENTAL = 2


def has_current_format(conn: sqlite3.Connection) -> bool:
    """True when the file has this version's page size and gives freed pages back."""
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    auto_vacuum = conn.execute("PRAGMA auto_vacuum").fetchone()[0]
    return bool(page_size == PAGE_SIZE and auto_vacuum == AUTO_VACUUM_INCREMENTAL)


def reformat(conn: sqlite3.Connection) -> None:
    """Rewrite the file in this version's format (:func:`connect` set it); outside any
    transaction, best done while its tables are empty (VACUUM copies every page). WAL
    mode is left for the rewrite, which only a connection alone on the file can do:
    while another process has it open the file keeps its format (it works the same)."""
    try:
        if conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0] != "delete":
            return
        try:
            conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
            conn.execute("PRAGMA auto_vacuum=INCREMENTAL")
            conn.execute("VACUUM")
        finally:
            conn.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError as exc:
        if not is_busy(exc):
            raise


def give_back_free_pages(conn: sqlite3.Connection) -> None:
    """Return the pages a rebuild freed (the old tables', FTS5's merged segments) to the
    file system; outside any transaction. Best effort: in a file of an older format, or
    while another process holds a lock, they stay free inside the file for later writes."""
    try:
        if conn.execute("PRAGMA auto_vacuum").fetchone()[0] == AUTO_VACUUM_INCREMENTAL:
            # Freed a page per step: executescript steps it to the end (execute would not).
            conn.executescript("PRAGMA incremental_vacuum")
    except sqlite3.OperationalError as exc:
        if not is_busy(exc):
            raise
