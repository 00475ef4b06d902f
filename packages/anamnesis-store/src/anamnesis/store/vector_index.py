"""Note embeddings inside ``index.db``: a cache keyed by content and model, and KNN.

Two tables. ``note_embeddings`` (in the index schema) holds each note's vector by the
note's rowid: narrow, so a nearest-neighbour scan reads 1.5 KB per note instead of the
note rows, and emptied for a note whenever its row is rewritten (``index._delete_rows``).
``embedding_cache`` holds one vector per (content hash, model) and survives full rebuilds
(``index.recreate_schema`` keeps it): after a reindex, or when a note is rewritten with the
same text, the vector is copied back from the cache instead of computed again. Only new
text, or a new model, costs an embedding. Like all of index.db this is derived and never
synced.

Each note row carries the hash of its text in ``memories.embed_hash``; every write resets
it to NULL (the row is rewritten), so a changed note is re-hashed before it is matched
against the cache.

Nearest neighbours are exact: sqlite-vec's ``vec_distance_cosine`` over the notes that
pass the filters. Plain tables (rather than ``vec0`` virtual tables) let the filters and
the superseded-note exclusion run in the same query, so a KNN never returns fewer than k
eligible notes because ineligible ones took the slots, and every process can write and
rebuild the index whether or not its sqlite3 can load extensions (the hooks' cannot
always).
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence

from anamnesis.store.query import Filters

CACHE_TABLE = "embedding_cache"

CACHE_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS {CACHE_TABLE} (
  content_hash TEXT NOT NULL,
  model        TEXT NOT NULL,
  vector       BLOB NOT NULL,   -- float32, as sqlite-vec reads it
  PRIMARY KEY (content_hash, model)
)
"""


def embedding_text(title: str, body: str) -> str:
    """What a note's vector is computed from (tags and metadata are left to keywords)."""
    return f"{title}\n{body}"


def content_hash(title: str, body: str) -> str:
    return hashlib.sha256(embedding_text(title, body).encode("utf-8")).hexdigest()


def ensure_cache(conn: sqlite3.Connection) -> None:
    conn.execute(CACHE_SCHEMA)


def hash_new_rows(conn: sqlite3.Connection) -> int:
    """Fill ``embed_hash`` for rows written since the last pass; return how many.

    One UPDATE inside the caller's write transaction: a row changed concurrently is
    rewritten with a NULL hash again, so nothing is ever hashed from stale text.
    """
    conn.create_function("anamnesis_content_hash", 2, content_hash, deterministic=True)
    cursor = conn.execute(
        "UPDATE memories SET embed_hash = anamnesis_content_hash(title, body)"
        " WHERE embed_hash IS NULL"
    )
    return cursor.rowcount


def attach_cached(conn: sqlite3.Connection, model: str) -> int:
    """Give every note whose text is in the cache its vector; return how many got one."""
    cursor = conn.execute(
        "INSERT OR REPLACE INTO note_embeddings (seq, model, vector)"
        f" SELECT m.seq, c.model, c.vector FROM memories m JOIN {CACHE_TABLE} c"
        " ON c.content_hash = m.embed_hash AND c.model = ?"
        " WHERE NOT EXISTS (SELECT 1 FROM note_embeddings e"
        " WHERE e.seq = m.seq AND e.model = ?)",
        (model, model),
    )
    return cursor.rowcount


def pending(
    conn: sqlite3.Connection, model: str, limit: int | None = None
) -> list[tuple[str, str]]:
    """(content hash, text) of hashed note texts without a vector for ``model``, newest
    notes first, each text once. Call :func:`attach_cached` first."""
    sql = (
        "SELECT m.embed_hash, min(m.title), min(m.body) FROM memories m"
        " WHERE m.embed_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM note_embeddings e"
        " WHERE e.seq = m.seq AND e.model = ?)"
        " GROUP BY m.embed_hash ORDER BY max(m.seq) DESC"
    )
    params: list[object] = [model]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [
        (digest, embedding_text(title, body)) for digest, title, body in conn.execute(sql, params)
    ]


def count_pending(conn: sqlite3.Connection, model: str) -> int:
    """Notes without a vector for ``model`` (new, changed, or never embedded)."""
    missing: int = conn.execute(
        "SELECT count(*) FROM memories m WHERE NOT EXISTS"
        " (SELECT 1 FROM note_embeddings e WHERE e.seq = m.seq AND e.model = ?)",
        (model,),
    ).fetchone()[0]
    return missing


def store_vectors(conn: sqlite3.Connection, model: str, rows: Sequence[tuple[str, bytes]]) -> None:
    """Cache new vectors by content hash and give them to the notes with that text."""
    conn.executemany(
        f"INSERT OR REPLACE INTO {CACHE_TABLE} (content_hash, model, vector) VALUES (?, ?, ?)",
        [(digest, model, blob) for digest, blob in rows],
    )
    attach_cached(conn, model)


def prune(conn: sqlite3.Connection, model: str) -> int:
    """Drop vectors no note uses any more: old texts, and every other model's."""
    conn.execute("DELETE FROM note_embeddings WHERE model <> ?", (model,))
    cursor = conn.execute(
        f"DELETE FROM {CACHE_TABLE} WHERE model <> ? OR content_hash NOT IN"
        " (SELECT embed_hash FROM memories WHERE embed_hash IS NOT NULL)",
        (model,),
    )
    return cursor.rowcount


# Rank this many beyond k on the narrow table before checking filters; widen if short.
_FIRST_MARGIN = 24
_WIDEN = 4


def nearest(
    conn: sqlite3.Connection, query: bytes, model: str, filters: Filters, k: int
) -> list[tuple[str, float]]:
    """(id, cosine similarity) of the ``k`` eligible notes nearest the query, best first.

    Needs sqlite-vec loaded into ``conn``. Superseded notes are never returned (unless
    ``filters.include_superseded``: then they rank like any other). Ranking
    runs on the narrow vector table alone; note rows are read for the best candidates
    only, where filters and supersession apply, widening until ``k`` are eligible (or
    every vector was ranked).
    """
    where, params = filters.eligible_sql()
    limit = k + _FIRST_MARGIN
    while True:
        ranked = conn.execute(
            "SELECT seq, 1.0 - vec_distance_cosine(vector, ?) AS similarity"
            " FROM note_embeddings WHERE model = ? ORDER BY similarity DESC LIMIT ?",
            (query, model, limit),
        ).fetchall()
        if not ranked:
            return []
        similarity_of = dict(ranked)
        marks = ",".join("?" * len(ranked))
        rows = conn.execute(
            f"SELECT m.seq, m.id, m.updated_at FROM memories m WHERE m.seq IN ({marks}){where}",
            [seq for seq, _ in ranked] + params,
        ).fetchall()
        hits = sorted(
            ((similarity_of[seq], updated, memory_id) for seq, memory_id, updated in rows),
            reverse=True,  # most similar first; ties to the newer note, then higher id
        )
        exhausted = len(ranked) < limit
        # Certain once k eligible notes are strictly nearer than the last ranked vector.
        if exhausted or (len(hits) >= k and hits[k - 1][0] > ranked[-1][1]):
            return [(memory_id, float(similarity)) for similarity, _, memory_id in hits[:k]]
        limit *= _WIDEN


def similarities(
    conn: sqlite3.Connection, query: bytes, model: str, ids: Sequence[str]
) -> dict[str, float]:
    """Cosine similarity of the query to each of these notes that has a vector."""
    out: dict[str, float] = {}
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            "SELECT m.id, 1.0 - vec_distance_cosine(e.vector, ?)"
            " FROM memories m JOIN note_embeddings e ON e.seq = m.seq AND e.model = ?"
            f" WHERE m.id IN ({marks})",
            [query, model, *chunk],
        )
        out.update((memory_id, float(similarity)) for memory_id, similarity in rows)
    return out
