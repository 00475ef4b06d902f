"""The SQL behind listing, counting and summarising notes: small functions over the index.

Each takes checked arguments (the store validates what callers pass) and either builds a
statement or runs one on a connection the caller holds under the store's lock. Values are
always bound, never inlined.
"""

from __future__ import annotations

from anamnesis.store import index as ix
from anamnesis.store.errors import InvalidQuery
from anamnesis.store.model import Memory, StoreStats
from anamnesis.store.query import NOT_SUPERSEDED, Filters
from anamnesis.store.timestamps import ranking_time, utc_now

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3

_ID_LENGTH = 26

# Where a listing that ended with a note ranked it: its row's rank while the row is still
# that version of the note (the same ``updated_at``). A note edited or deleted since falls
# back to its date, never later than now: for every note not dated ahead that is the rank
# it had, and for one dated ahead it is no earlier than the rank it had, so the next page
# may repeat a few notes but never skips one.
_RANK_OF_AFTER = (
    "coalesce((SELECT r.ranked_at FROM memories r WHERE r.id = ? AND r.updated_at = ?), ?)"
)


def listing(
    filters: Filters,
    *,
    exclude_tag: str | None,
    include_superseded: bool,
    include_body: bool,
    limit: int | None,
    offset: int,
    after: Memory | None = None,
) -> tuple[str, list[object]]:
    """The statement :meth:`MemoryStore.list` runs: newest first (``ranked_at``: the
    note's ``updated_at``, never later than now, see :func:`.timestamps.ranking_time`;
    then ``confidence``, then id), from the note after ``after`` when given. Raises
    :class:`InvalidQuery` for a bad limit or offset."""
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise InvalidQuery(f"limit must be a whole number >= 0, got {limit!r}")
    if not isinstance(offset, int) or offset < 0:
        raise InvalidQuery(f"offset must be a whole number >= 0, got {offset!r}")
    where, params = filters.sql()
    if exclude_tag is not None:
        where += " AND NOT EXISTS (SELECT 1 FROM memory_tags t WHERE t.seq = m.seq AND t.tag = ?)"
        params.append(exclude_tag)
    if not include_superseded:
        where += f" AND {NOT_SUPERSEDED}"
    if after is not None:
        # Where the recency indexes go on from: one seek, however deep the page.
        where += f" AND (m.ranked_at, m.confidence, m.id) < ({_RANK_OF_AFTER}, ?, ?)"
        fallback = ranking_time(after.updated_at, utc_now())
        params.extend([after.id, after.updated_at, fallback, after.confidence, after.id])
    base = ix.SELECT_NOTE if include_body else ix.SELECT_NOTE_NO_BODY
    sql = f"{base} WHERE 1 = 1{where} ORDER BY m.ranked_at DESC, m.confidence DESC, m.id DESC"
    if limit is not None or offset:
        sql += " LIMIT ? OFFSET ?"
        params.extend([-1 if limit is None else limit, offset])
    return sql, params


def ranks_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, str]:
    """The ``ranked_at`` of each of these notes that is indexed."""
    out: dict[str, str] = {}
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(f"SELECT id, ranked_at FROM memories WHERE id IN ({marks})", chunk)
        out.update(rows.fetchall())
    return out


def dated_ahead(limit: str) -> tuple[str, list[object]]:
    """The statement listing notes dated after ``limit`` (created or updated), latest
    first. The condition repeats the one of ``idx_mem_dated_ahead`` (schema.py) word for
    word, which lets SQLite read that small index instead of every row: every such note
    was dated past its rank when indexed, since its rank is never past the time it was
    indexed."""
    ahead = "(m.updated_at > m.ranked_at OR m.created_at > m.ranked_at)"
    sql = (
        f"{ix.SELECT_NOTE_NO_BODY} INDEXED BY idx_mem_dated_ahead WHERE {ahead}"
        " AND (m.updated_at > ? OR m.created_at > ?)"
        " ORDER BY max(m.updated_at, m.created_at) DESC, m.id"
    )
    return sql, [limit, limit]


def counting(filters: Filters, *, include_superseded: bool) -> tuple[str, list[object]]:
    """The statement that counts what :func:`listing` would list."""
    where, params = filters.sql()
    if not include_superseded:
        where += f" AND {NOT_SUPERSEDED}"
    return f"SELECT count(*) FROM memories m WHERE 1 = 1{where}", params


def ids_with_prefix(conn: sqlite3.Connection, prefix: str, most: int) -> list[str]:
    """Up to ``most`` ids starting with ``prefix`` (upper case). Every such id sorts between
    the prefix and the prefix followed by the highest character: one range scan of the
    primary key."""
    rows = conn.execute(
        "SELECT id FROM memories WHERE id >= ? AND id <= ? ORDER BY id LIMIT ?",
        (prefix, prefix + "Z" * (_ID_LENGTH - len(prefix)), most),
    )
    return [memory_id for (memory_id,) in rows]


def stats(conn: sqlite3.Connection) -> StoreStats:
    """Counts by type, project and scope, and how many notes are superseded."""
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


def superseded_ids(conn: sqlite3.Connection) -> set[str]:
    """Ids named in some note's ``supersedes``."""
    rows = conn.execute("SELECT DISTINCT superseded_id FROM memory_supersedes")
    return {superseded_id for (superseded_id,) in rows}


def superseders(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """For each superseded id, the ids of the notes that supersede it (sorted)."""
    out: dict[str, list[str]] = {}
    rows = conn.execute(
        "SELECT superseded_id, memory_id FROM memory_supersedes ORDER BY superseded_id, memory_id"
    )
    for superseded_id, memory_id in rows:
        out.setdefault(superseded_id, []).append(memory_id)
    return out


def superseders_of(conn: sqlite3.Connection, ids: list[str]) -> dict[str, tuple[str, ...]]:
    """For each of these ids that some note supersedes, the ids of those notes (sorted):
    one lookup of the supersedes index per id (up to 500 ids a statement)."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(ids), 500):  # stay under SQLite's bound-parameter limit
        chunk = ids[start : start + 500]
        rows = conn.execute(
            "SELECT superseded_id, memory_id FROM memory_supersedes"
            f" WHERE superseded_id IN ({','.join('?' * len(chunk))})"
            " ORDER BY superseded_id, memory_id",
            chunk,
        )
        for superseded_id, memory_id in rows:
            out.setdefault(superseded_id, []).append(memory_id)
    return {superseded_id: tuple(newer) for superseded_id, newer in out.items()}
