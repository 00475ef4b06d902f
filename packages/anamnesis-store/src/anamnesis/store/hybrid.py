"""Vector and hybrid ranking over one connection (sqlite-vec loaded into it).

Keyword ranking is :mod:`anamnesis.store.query` (spec 002); nearest neighbours are
:mod:`anamnesis.store.vector_index`; :mod:`anamnesis.store.fusion` merges the two. Both
candidate lists are taken deeper than ``k`` and every candidate gets both scores, so a note
just outside one list is not treated as having no evidence there (scoring the vector
candidates' BM25 too raises devmemory Recall@8 from 0.870 to 0.895).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from anamnesis.store import vector_index
from anamnesis.store.fusion import STRONG_KEYWORD, fuse
from anamnesis.store.query import Filters, Ranker, match_expression

# How deep each list is read before fusing. On devmemory and names-and-dates, 24 and 40
# give the same results; reading fewer costs less.
_MIN_DEPTH = 24
_DEPTH_FACTOR = 3


def candidates_depth(k: int) -> int:
    return max(_MIN_DEPTH, _DEPTH_FACTOR * k)


def vector_ranking(
    conn: sqlite3.Connection, query_vector: bytes, model: str, filters: Filters, k: int
) -> list[str]:
    """Ids of the ``k`` eligible notes nearest the query, best first."""
    return [
        memory_id for memory_id, _ in vector_index.nearest(conn, query_vector, model, filters, k)
    ]


def hybrid_ranking(
    conn: sqlite3.Connection,
    ranker: Ranker,
    tokens: Sequence[str],
    query_vector: bytes,
    model: str,
    filters: Filters,
    k: int,
) -> list[str]:
    """Ids of the best ``k`` eligible notes by fused keyword and vector evidence."""
    depth = candidates_depth(k)
    keyword = ranker.ranked_ids(tokens, filters, depth) if tokens else []
    nearest = vector_index.nearest(conn, query_vector, model, filters, depth)
    bm25 = dict(keyword)
    cosine = dict(nearest)
    without_bm25 = [memory_id for memory_id in cosine if memory_id not in bm25]
    if tokens and without_bm25:
        bm25.update(_bm25_of(conn, tokens, without_bm25))
    without_cosine = [memory_id for memory_id in bm25 if memory_id not in cosine]
    if without_cosine:
        cosine.update(vector_index.similarities(conn, query_vector, model, without_cosine))
    # How much of the query the best keyword hits contain (only they need it: the best
    # one weighs the keyword evidence, the near-best may be exact matches to keep).
    near_best = [
        memory_id for memory_id, score in keyword if score <= keyword[0][1] * STRONG_KEYWORD
    ]
    coverage = _coverage(conn, tokens, near_best) if near_best else {}
    return fuse(keyword, bm25, cosine, k, coverage)


def _coverage(
    conn: sqlite3.Connection, tokens: Sequence[str], ids: Sequence[str]
) -> dict[str, float]:
    """For each note, the share of the query's distinct words it contains (as FTS5 matches
    them: case-folded and stemmed)."""
    words = list(dict.fromkeys(token.casefold() for token in tokens))
    found = dict.fromkeys(ids, 0)
    marks = ",".join("?" * len(ids))
    for word in words:
        rows = conn.execute(
            "SELECT m.id FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid"
            f" WHERE memories_fts MATCH ? AND m.id IN ({marks})",
            [match_expression([word]), *ids],
        )
        for (memory_id,) in rows:
            found[memory_id] += 1
    return {memory_id: count / len(words) for memory_id, count in found.items()}


def _bm25_of(
    conn: sqlite3.Connection, tokens: Sequence[str], ids: Sequence[str]
) -> dict[str, float]:
    """The BM25 of these notes for the query (absent: the note shares no query word)."""
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories m"
        " ON m.seq = memories_fts.rowid"
        f" WHERE memories_fts MATCH ? AND m.id IN ({marks})",
        [match_expression(tokens), *ids],
    )
    return {memory_id: float(score) for memory_id, score in rows}
