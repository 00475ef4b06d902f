"""Passage embeddings inside ``index.db``: a cache keyed by content and model, and KNN.

A note is embedded as one or more passages (:mod:`.passages`); its similarity to a query
is its best passage's. Two tables (:mod:`.schema`). ``note_passages`` holds each note's
passage vectors by the note's rowid: narrow, so a nearest-neighbour scan reads 1.5 KB per
passage instead of the note rows, and emptied for a note whenever its row is rewritten
(``index._delete_rows``). ``passage_cache`` holds the passage vectors of each (content
hash, model) and survives full rebuilds (``index.recreate_schema`` keeps it): after a
reindex, or when a note is rewritten with the same text, the vectors are copied back from
the cache instead of computed again. Only new text, or a new model, costs an embedding, and
a changed note re-embeds its own passages only. Like all of index.db this is derived and
never synced.

Each note row carries the hash of its text (and of the passage scheme) in
``memories.embed_hash``; every write resets it to NULL (the row is rewritten), so a
changed note is re-hashed before it is matched against the cache. A note's passages are
cached and attached in one transaction: a note has all of its passages or none.

Nearest neighbours are exact: sqlite-vec's ``vec_distance_cosine`` over the passages of
the notes that pass the filters, grouped by note (its best passage), so ``k`` distinct
notes come back however many passages of one note rank high. Plain tables (rather than
``vec0`` virtual tables) let the filters and the superseded-note exclusion run in the same
query, so a KNN never returns fewer than k eligible notes because ineligible ones took the
slots, and every process can write and rebuild the index whether or not its sqlite3 can
load extensions (the hooks' cannot always).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence

from anamnesis.store.passages import SCHEME
from anamnesis.store.query import Filters
from anamnesis.store.schema import PASSAGE_CACHE, PASSAGE_CACHE_TABLE

CACHE_TABLE = PASSAGE_CACHE_TABLE


def content_hash(title: str, body: str) -> str:
    """What a note's passages are cached under: its title and body, and the passage scheme
    (other windows are other passages)."""
    return hashlib.sha256(f"{SCHEME}\n{title}\n{body}".encode()).hexdigest()


def ensure_cache(conn: sqlite3.Connection) -> None:
    conn.execute(PASSAGE_CACHE)


def hash_new_rows(conn: sqlite3.Connection) -> int:
    """Fill ``embed_hash`` for rows written since the last pass; return how many.

    One UPDATE inside the caller's write transaction: a row changed concurrently is
    rewritten with a NULL hash again, so nothing is ever hashed from stale text.
    """
    conn.create_function("anamnesis_content_hash", 2, content_hash, deterministic=True)
    cursor = conn.execute(
        "UPDATE memories SET embed_hash = anamnesis_content_hash(title, note_text(body_z))"
        " WHERE embed_hash IS NULL"
    )
    return cursor.rowcount


def attach_cached(conn: sqlite3.Connection, model: str) -> int:
    """Give every note whose text is in the cache its passages; return how many passages
    were attached."""
    cursor = conn.execute(
        "INSERT INTO note_passages (seq, model, passage, vector)"
        f" SELECT m.seq, c.model, c.passage, c.vector FROM memories m JOIN {CACHE_TABLE} c"
        " ON c.content_hash = m.embed_hash AND c.model = ?"
        " WHERE NOT EXISTS (SELECT 1 FROM note_passages p"
        " WHERE p.seq = m.seq AND p.model = ?)",
        (model, model),
    )
    return cursor.rowcount


def pending(conn: sqlite3.Connection, model: str, limit: int | None = None) -> list[str]:
    """Content hashes of the hashed notes without passages for ``model``, newest notes
    first, each hash once. Call :func:`attach_cached` first; :func:`texts` reads them."""
    sql = (
        "SELECT m.embed_hash FROM memories m"
        " WHERE m.embed_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM note_passages p"
        " WHERE p.seq = m.seq AND p.model = ?)"
        " GROUP BY m.embed_hash ORDER BY max(m.seq) DESC"
    )
    params: list[object] = [model]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [digest for (digest,) in conn.execute(sql, params)]


def texts(conn: sqlite3.Connection, digests: Sequence[str]) -> dict[str, tuple[str, str]]:
    """(title, body) of a note with each of these hashes that is still in the index (a note
    rewritten since has another hash, and is not here)."""
    out: dict[str, tuple[str, str]] = {}
    for start in range(0, len(digests), 500):
        chunk = list(digests[start : start + 500])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT embed_hash, min(title), note_text(min(body_z)) FROM memories"
            f" WHERE embed_hash IN ({marks}) GROUP BY embed_hash",
            chunk,
        )
        out.update((digest, (title, body)) for digest, title, body in rows)
    return out


def count_pending(conn: sqlite3.Connection, model: str) -> int:
    """Notes without passages for ``model`` (new, changed, or never embedded)."""
    missing: int = conn.execute(
        "SELECT count(*) FROM memories m WHERE NOT EXISTS"
        " (SELECT 1 FROM note_passages p WHERE p.seq = m.seq AND p.model = ?)",
        (model,),
    ).fetchone()[0]
    return missing


def count_passages(conn: sqlite3.Connection, model: str) -> int:
    """Passages embedded with ``model`` (a long note has several)."""
    count: int = conn.execute(
        "SELECT count(*) FROM note_passages WHERE model = ?", (model,)
    ).fetchone()[0]
    return count


def store_passages(
    conn: sqlite3.Connection, model: str, rows: Iterable[tuple[str, int, bytes]]
) -> None:
    """Cache new passage vectors (content hash, passage number, vector) and give them to
    the notes with that text. Every passage of a hash must be in the same call."""
    conn.executemany(
        f"INSERT OR REPLACE INTO {CACHE_TABLE} (content_hash, model, passage, vector)"
        " VALUES (?, ?, ?, ?)",
        [(digest, model, passage, blob) for digest, passage, blob in rows],
    )
    attach_cached(conn, model)


def prune(conn: sqlite3.Connection, model: str) -> int:
    """Drop vectors no note uses any more: old texts, and every other model's."""
    conn.execute("DELETE FROM note_passages WHERE model <> ?", (model,))
    cursor = conn.execute(
        f"DELETE FROM {CACHE_TABLE} WHERE model <> ? OR content_hash NOT IN"
        " (SELECT embed_hash FROM memories WHERE embed_hash IS NOT NULL)",
        (model,),
    )
    return cursor.rowcount


# Rank this many notes beyond k at first; widen only when notes tie at the cut.
_FIRST_MARGIN = 8
_WIDEN = 4


def nearest(
    conn: sqlite3.Connection, query: bytes, model: str, filters: Filters, k: int
) -> list[tuple[str, float]]:
    """(id, cosine similarity) of the ``k`` eligible notes nearest the query, best first;
    a note's similarity is its best passage's.

    Needs sqlite-vec loaded into ``conn``. Superseded notes are never returned (unless
    ``filters.include_superseded``: then they rank like any other). One scan of the narrow
    passage table: the eligible notes are picked first (from the note rows' indexes), so
    only their passages are compared with the query, then grouped by note, so ``k``
    distinct notes come back however many passages of one note rank high. Ties go to the
    newer note, then the higher id.
    """
    where, params = filters.eligible_sql()
    limit = k + _FIRST_MARGIN
    while True:
        ranked = conn.execute(
            "SELECT p.seq, max(1.0 - vec_distance_cosine(p.vector, ?)) AS similarity"
            " FROM note_passages p WHERE p.model = ?"
            f" AND p.seq IN (SELECT m.seq FROM memories m WHERE 1{where})"
            " GROUP BY p.seq ORDER BY similarity DESC LIMIT ?",
            [query, model, *params, limit],
        ).fetchall()
        if not ranked:
            return []
        similarity_of = dict(ranked)
        marks = ",".join("?" * len(ranked))
        rows = conn.execute(
            f"SELECT m.seq, m.id, m.updated_at FROM memories m WHERE m.seq IN ({marks})",
            [seq for seq, _ in ranked],
        ).fetchall()
        hits = sorted(
            ((similarity_of[seq], updated, memory_id) for seq, memory_id, updated in rows),
            reverse=True,  # most similar first; ties to the newer note, then higher id
        )
        # Certain once k notes are strictly nearer than the last one ranked (or all were).
        if len(ranked) < limit or (len(hits) >= k and hits[k - 1][0] > ranked[-1][1]):
            return [(memory_id, float(similarity)) for similarity, _, memory_id in hits[:k]]
        limit *= _WIDEN


def similarities(
    conn: sqlite3.Connection, query: bytes, model: str, ids: Sequence[str]
) -> dict[str, float]:
    """Cosine similarity of the query to each of these notes that has passages (its best
    passage's)."""
    out: dict[str, float] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT m.id, max(1.0 - vec_distance_cosine(p.vector, ?))"
            " FROM memories m JOIN note_passages p ON p.seq = m.seq AND p.model = ?"
            f" WHERE m.id IN ({marks}) GROUP BY m.id",
            [query, model, *chunk],
        )
        out.update((memory_id, float(similarity)) for memory_id, similarity in rows)
    return out
