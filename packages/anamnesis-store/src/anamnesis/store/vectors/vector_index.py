"""Passage embeddings inside ``index.db``: a cache keyed by content and model, and KNN.

A note is embedded as one or more passages (:mod:`.passages`); its similarity to a query
is its best passage's. Two tables (:mod:`.schema`). ``note_passages`` holds each note's
passage vectors by the note's rowid: narrow, so a nearest-neighbour scan reads 1.5 KB per
passage instead of the note rows, and emptied for a note whenever its row is rewritten
(``db._delete_rows``). ``passage_cache`` holds the passage vectors of each (content
hash, model) and survives full rebuilds (``db.recreate_schema`` keeps it): after a
reindex, or when a note is rewritten with the same text, the vectors are copied back from
the cache instead of computed again. Only new text, or a new model, costs an embedding, and
a changed note re-embeds its own passages only. Like all of index.db this is derived and
never synced.

A long note may have its first passage only for a while, stored as passage :data:`HEAD`
(-1) until an embedding pass has embedded the rest (:mod:`.embedding_pass`): a note has
its head, or all of its passages, never some of them.

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

from anamnesis.store.index.note_queries import Filters
from anamnesis.store.index.schema import PASSAGE_CACHE, PASSAGE_CACHE_TABLE
from anamnesis.store.vectors.passages import SCHEME

CACHE_TABLE = PASSAGE_CACHE_TABLE
# A long note's first passage, stored under this number until its other passages are
# embedded: an embedding pass gives every waiting note its start before it finishes any
# note, so each note is found by meaning early. Its vector is passage 0's (a text alone
# always gets the same vector), and it is replaced by the whole set, 0 to n-1, when that
# is done. A note thus has its head, or all of its passages (a short note is passage 0
# alone). Without a column for it, the number is what tells a head from a finished set,
# so the cache's and note_passages' layout stays that of schema 108.
HEAD = -1
# (content hash, rowid of the newest note with that text) of a note waiting for vectors.
Pending = tuple[str, int]


# What a note's passages are made of and hashed from: its title and body as search
# compares them (invisible.py), so a zero-width character inside a word splits it for
# neither keywords nor vectors. A note without one keeps the hash (and cached vectors) of
# its raw text.
_EMBEDDED_TEXT = "match_text(title), match_text(note_text(body_z))"


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
        f"UPDATE memories SET embed_hash = anamnesis_content_hash({_EMBEDDED_TEXT})"
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


def pending(conn: sqlite3.Connection, model: str, limit: int | None = None) -> list[Pending]:
    """The hashed notes without any passage for ``model``, newest first, each text once
    (content hash, the newest note's rowid). Call :func:`attach_cached` first;
    :func:`texts` reads them."""
    sql = (
        "SELECT m.embed_hash, max(m.seq) FROM memories m"
        " WHERE m.embed_hash IS NOT NULL AND NOT EXISTS (SELECT 1 FROM note_passages p"
        " WHERE p.seq = m.seq AND p.model = ?)"
        " GROUP BY m.embed_hash ORDER BY max(m.seq) DESC"
    )
    params: list[object] = [model]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [(digest, seq) for digest, seq in conn.execute(sql, params)]


def partial(conn: sqlite3.Connection, model: str, limit: int | None = None) -> list[Pending]:
    """The notes that have their :data:`HEAD` only (their later passages are still to be
    embedded), newest first, each text once: (content hash, the newest note's rowid)."""
    sql = (
        "SELECT m.embed_hash, max(m.seq) FROM note_passages p JOIN memories m ON m.seq = p.seq"
        " WHERE p.model = ? AND p.passage = ? AND m.embed_hash IS NOT NULL"
        " GROUP BY m.embed_hash ORDER BY max(m.seq) DESC"
    )
    params: list[object] = [model, HEAD]
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    return [(digest, seq) for digest, seq in conn.execute(sql, params)]


def texts(conn: sqlite3.Connection, notes: Sequence[Pending]) -> dict[str, tuple[str, str]]:
    """(title, body) of each of these notes, as embedded (:data:`_EMBEDDED_TEXT`), whose
    row still has that text (a note rewritten since has another hash, or another row, and
    is not here). Read by rowid: no scan of the notes, however many the store holds."""
    out: dict[str, tuple[str, str]] = {}
    for start in range(0, len(notes), 500):
        chunk = {seq: digest for digest, seq in notes[start : start + 500]}
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT seq, embed_hash, {_EMBEDDED_TEXT} FROM memories WHERE seq IN ({marks})",
            list(chunk),
        )
        out.update(
            (digest, (title, body)) for seq, digest, title, body in rows if chunk[seq] == digest
        )
    return out


def head_vectors(conn: sqlite3.Connection, model: str, digests: Sequence[str]) -> dict[str, bytes]:
    """The cached :data:`HEAD` vector of each of these texts that has one."""
    out: dict[str, bytes] = {}
    for start in range(0, len(digests), 500):
        chunk = list(digests[start : start + 500])
        marks = ",".join("?" * len(chunk))
        rows = conn.execute(
            f"SELECT content_hash, vector FROM {CACHE_TABLE} WHERE model = ? AND passage = ?"
            f" AND content_hash IN ({marks})",
            [model, HEAD, *chunk],
        )
        out.update(rows)
    return out


def count_pending(conn: sqlite3.Connection, model: str) -> int:
    """Notes without passages for ``model`` (new, changed, or never embedded)."""
    missing: int = conn.execute(
        "SELECT count(*) FROM memories m WHERE NOT EXISTS"
        " (SELECT 1 FROM note_passages p WHERE p.seq = m.seq AND p.model = ?)",
        (model,),
    ).fetchone()[0]
    return missing


def count_partial(conn: sqlite3.Connection, model: str) -> int:
    """Notes with their :data:`HEAD` only (found by their start; the rest is pending)."""
    partial: int = conn.execute(
        "SELECT count(*) FROM note_passages WHERE model = ? AND passage = ?", (model, HEAD)
    ).fetchone()[0]
    return partial


def count_passages(conn: sqlite3.Connection, model: str) -> int:
    """Passages embedded with ``model`` (a long note has several)."""
    count: int = conn.execute(
        "SELECT count(*) FROM note_passages WHERE model = ?", (model,)
    ).fetchone()[0]
    return count


def store_heads(
    conn: sqlite3.Connection, model: str, rows: Iterable[tuple[Pending, bytes]]
) -> None:
    """Cache the :data:`HEAD` vector of these notes ((content hash, rowid), vector) and
    give it to them, unless their whole set of passages is cached already (another
    process finished them meanwhile)."""
    rows = list(rows)
    conn.executemany(
        f"INSERT OR REPLACE INTO {CACHE_TABLE} (content_hash, model, passage, vector)"
        f" SELECT ?1, ?2, {HEAD}, ?3 WHERE NOT EXISTS (SELECT 1 FROM {CACHE_TABLE}"
        " WHERE content_hash = ?1 AND model = ?2 AND passage = 0)",
        [(digest, model, blob) for (digest, _seq), blob in rows],
    )
    _attach_to(conn, model, [seq for (_digest, seq), _blob in rows])


def store_passages(
    conn: sqlite3.Connection,
    model: str,
    notes: Sequence[Pending],
    rows: Iterable[tuple[str, int, bytes]],
) -> None:
    """Cache every passage vector (content hash, passage number, vector) of these notes
    ((content hash, rowid)), in place of their :data:`HEAD`, and give the notes them.
    Every passage of a hash must be in the same call: a note has all of them or its head.
    Other notes with the same text get them from the next :func:`attach_cached`."""
    conn.executemany(
        f"INSERT OR REPLACE INTO {CACHE_TABLE} (content_hash, model, passage, vector)"
        " VALUES (?, ?, ?, ?)",
        [(digest, model, passage, blob) for digest, passage, blob in rows],
    )
    conn.executemany(
        f"DELETE FROM {CACHE_TABLE} WHERE content_hash = ? AND model = ? AND passage = ?",
        [(digest, model, HEAD) for digest, _seq in notes],
    )
    conn.executemany(
        "DELETE FROM note_passages WHERE seq = ? AND model = ? AND passage = ?",
        [(seq, model, HEAD) for _digest, seq in notes],
    )
    _attach_to(conn, model, [seq for _digest, seq in notes])


def _attach_to(conn: sqlite3.Connection, model: str, seqs: Sequence[int]) -> None:
    """:func:`attach_cached` for these rows only (by rowid: no scan of the notes)."""
    for start in range(0, len(seqs), 500):
        chunk = list(seqs[start : start + 500])
        marks = ",".join("?" * len(chunk))
        conn.execute(
            "INSERT INTO note_passages (seq, model, passage, vector)"
            f" SELECT m.seq, c.model, c.passage, c.vector FROM memories m JOIN {CACHE_TABLE} c"
            " ON c.content_hash = m.embed_hash AND c.model = ?"
            f" WHERE m.seq IN ({marks}) AND NOT EXISTS (SELECT 1 FROM note_passages p"
            " WHERE p.seq = m.seq AND p.model = ?)",
            [model, *chunk, model],
        )


def drop_finished_heads(conn: sqlite3.Connection, model: str) -> int:
    """Take the :data:`HEAD` from the notes whose whole set of passages is cached (a note
    sharing its text with one finished in the same pass, or finished by another process),
    so that :func:`attach_cached` gives them the set; return how many heads went."""
    cursor = conn.execute(
        "DELETE FROM note_passages WHERE model = ?1 AND passage = ?2 AND seq IN"
        " (SELECT m.seq FROM memories m JOIN note_passages p ON p.seq = m.seq"
        " AND p.model = ?1 AND p.passage = ?2"
        f" WHERE EXISTS (SELECT 1 FROM {CACHE_TABLE} c WHERE c.content_hash = m.embed_hash"
        " AND c.model = ?1 AND c.passage = 0))",
        (model, HEAD),
    )
    return cursor.rowcount


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
            f"SELECT m.seq, m.id, m.ranked_at FROM memories m WHERE m.seq IN ({marks})",
            [seq for seq, _ in ranked],
        ).fetchall()
        hits = sorted(
            ((similarity_of[seq], ranked, memory_id) for seq, memory_id, ranked in rows),
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
