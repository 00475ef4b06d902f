"""How the index keeps a note's body: deflated, and inflated by SQL where it is read.

The body is the bulk of the index (the full-text table reads its text from ``memories``,
so it is stored once), and stored as it is it made ``index.db`` larger than the notes
themselves. Deflated (raw deflate, no header or checksum: the markdown is the truth) a
4 KB engineering note takes about a third of that, and inflating one costs about 16 us,
paid only where a body is read: a search's few hits, ``list`` with bodies, the full-text
table's highlights and its rebuild. Every connection to the index registers
:data:`SQL_FUNCTION` (:func:`register`), which the ``memories_text`` view (the full-text
table's content) and the statements that read a body call.
"""

from __future__ import annotations

import zlib

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from typing import Final

# The SQL function that turns a stored body back into text.
SQL_FUNCTION: Final = "note_text"
# Level 6 (zlib's default): 30 % of the text at 65 us a note; level 1 takes 32 % at 49 us,
# level 9 no less than 6 (2,000 notes of bench/common/corpus.py).
_LEVEL = 6
_RAW_DEFLATE = -15


def deflated(text: str) -> bytes:
    """The stored form of a body."""
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, _RAW_DEFLATE)
    return packer.compress(text.encode("utf-8")) + packer.flush()


def inflated(stored: bytes) -> str:
    """The body back from its stored form."""
    return zlib.decompress(stored, _RAW_DEFLATE).decode("utf-8")


def register(conn: sqlite3.Connection) -> None:
    """Make :data:`SQL_FUNCTION` callable on ``conn`` (deterministic: SQLite may use it in
    views and indexes)."""
    conn.create_function(SQL_FUNCTION, 1, inflated, deterministic=True)
