"""Which rowids a project's notes get: a range of their own, so a search within one
project makes FTS5 score only that project's notes.

A note's rowid (``memories.seq``, also its rowid in the full-text table) is its project's
slot shifted left by :data:`SLOT_BITS`, plus a number within the slot. FTS5 reads a rowid
range (``rowid BETWEEN ? AND ?``) straight off its doclists, so a ranking statement given
the project's range scores that project's notes and no other, while bm25's statistics
(the number of notes, their average length, each phrase's note count) stay the whole
store's: the scores, and so the ranking, are exactly spec 002's. A note moved to another
project gets a new rowid in that project's range. Slots are given in order of first use
and never reused, so a rowid never changes meaning while its note is indexed.
"""

from __future__ import annotations

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from typing import Final

# 2^32 notes per project, 2^31 projects: SQLite's rowids are signed 64-bit.
SLOT_BITS: Final = 32
_SLOT_SIZE = 1 << SLOT_BITS


def rowid_range(conn: sqlite3.Connection, project: str) -> tuple[int, int] | None:
    """The first and last rowid a note of ``project`` can have; None when no note of it
    was ever indexed (so none is)."""
    row = conn.execute("SELECT slot FROM project_slots WHERE project = ?", (project,)).fetchone()
    if row is None:
        return None
    return _range(row[0])


def new_seq(conn: sqlite3.Connection, project: str) -> int:
    """A free rowid in ``project``'s range (the slot made when new). Caller holds a write
    transaction."""
    row = conn.execute("SELECT slot FROM project_slots WHERE project = ?", (project,)).fetchone()
    if row is None:
        slot = conn.execute(
            "INSERT INTO project_slots (slot, project) VALUES"
            " ((SELECT coalesce(max(slot) + 1, 0) FROM project_slots), ?)",
            (project,),
        ).lastrowid
    else:
        slot = row[0]
    assert slot is not None
    first, last = _range(slot)
    # One step down the rowid b-tree: the highest rowid in use in the range.
    highest = conn.execute(
        "SELECT max(seq) FROM memories WHERE seq BETWEEN ? AND ?", (first, last)
    ).fetchone()[0]
    seq = first if highest is None else highest + 1
    if seq > last:  # 4 billion notes written into one project without a rebuild
        raise OverflowError(f"no rowid left for project {project!r}; run `anamnesis reindex`")
    return int(seq)


def _range(slot: int) -> tuple[int, int]:
    first = slot * _SLOT_SIZE + 1  # rowid 0 left unused, as SQLite's own start at 1
    return first, (slot + 1) * _SLOT_SIZE - 1
