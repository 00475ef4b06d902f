"""The search modes, defined once: their names, the variable and setting that choose the
default, how a configured choice is read, which ranking each mode runs, and the hits a
search returns (:func:`search_hits`).

``keyword`` is spec 002's BM25 search; ``vector`` ranks by embedding similarity; ``hybrid``
fuses both (:mod:`.fusion`). A search without a mode uses :func:`configured_search_mode`,
else hybrid where the vectors extra can run, else keyword (``MemoryStore.default_search_mode``).
"""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Sequence

    from anamnesis.store.indexer import Indexer
    from anamnesis.store.model import SearchHit
    from anamnesis.store.query import Filters, Ranker

SEARCH_MODES = ("keyword", "vector", "hybrid")
SEARCH_MODE_ENV = "ANAMNESIS_SEARCH_MODE"
CONFIG_KEY = "search_mode"


def is_search_mode(value: object) -> bool:
    return isinstance(value, str) and value in SEARCH_MODES


def configured_search_mode(home: Path) -> str | None:
    """The search mode the user chose (``ANAMNESIS_SEARCH_MODE`` over config.json's
    ``search_mode``), if it names a mode; None otherwise (a wrong value is ignored:
    `anamnesis doctor` reports it)."""
    raw = os.environ.get(SEARCH_MODE_ENV, "").strip()
    if not raw:
        from anamnesis.store.config import read_config

        raw = str(read_config(home).get(CONFIG_KEY) or "").strip()
    return raw if is_search_mode(raw) else None


# The most notes one search returns.
MAX_K = 1000


def check_search(query: object, k: object, mode: str | None) -> str | None:
    """A search's query, ``k`` and mode, checked: the mode (:func:`check_mode`)."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        from anamnesis.store.errors import InvalidQuery

        raise InvalidQuery(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
    if not isinstance(query, str):
        from anamnesis.store.errors import InvalidQuery

        raise InvalidQuery(f"query must be text, got {query.__class__.__name__}")
    return check_mode(mode)


def check_mode(mode: str | None) -> str | None:
    """A search's ``mode`` argument, checked: a mode's name, or None for the default."""
    if mode is not None and not is_search_mode(mode):
        from anamnesis.store.errors import InvalidQuery

        raise InvalidQuery(f"mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}")
    return mode


def rank(
    conn: sqlite3.Connection,
    ranker: Ranker,
    tokens: Sequence[str],
    filters: Filters,
    k: int,
    mode: str,
    query_vector: tuple[bytes, str] | None,
) -> list[tuple[str, float]]:
    """The best ``k`` (id, score) pairs in the order ``mode`` ranks them: keyword by BM25
    (score sign-flipped, higher is better) when there is no query vector (keyword mode, or
    vectors unavailable); otherwise vector or hybrid (:mod:`.hybrid`)."""
    if query_vector is None:
        return [(memory_id, -bm25) for memory_id, bm25 in ranker.ranked_ids(tokens, filters, k)]
    from anamnesis.store import hybrid  # only a search that runs vectors pays for it

    vector, model = query_vector
    if mode == "vector":
        return hybrid.vector_ranking(conn, ranker, tokens, vector, model, filters, k)
    return hybrid.hybrid_ranking(conn, ranker, tokens, vector, model, filters, k)


def search_hits(
    conn: sqlite3.Connection,
    ranker: Ranker,
    indexer: Indexer,
    tokens: Sequence[str],
    filters: Filters,
    k: int,
    mode: str,
    query_vector: tuple[bytes, str] | None,
) -> list[SearchHit]:
    """The hits of one search, best first: :func:`rank`'s notes as their files say now,
    each with its score and the notes that supersede it, all read in one snapshot.

    Without ``filters.include_superseded`` no hit is superseded (the ranking left out every
    note some note supersedes, in the same snapshot), so nothing is looked up.
    """
    from anamnesis.store import index as ix
    from anamnesis.store.model import SearchHit
    from anamnesis.store.note_queries import superseders_of

    score_of: dict[str, float] = {}
    superseded_by: dict[str, tuple[str, ...]] = {}

    def fetch() -> list[ix.NoteRow]:
        ranked = rank(conn, ranker, tokens, filters, k, mode, query_vector)
        score_of.update(ranked)
        ids = [memory_id for memory_id, _ in ranked]
        rows = ix.rows_by_id(conn, ids)
        if filters.include_superseded:
            superseded_by.clear()
            superseded_by.update(superseders_of(conn, ids))
        return [rows[memory_id] for memory_id in ids if memory_id in rows]

    notes = indexer.settled(conn, fetch, True)
    return [
        SearchHit(note, score_of.get(note.id, 0.0), superseded_by.get(note.id, ()))
        for note in notes
    ]
