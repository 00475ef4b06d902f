"""The search modes, defined once: their names, the variable and setting that choose the
default, how a configured choice is read, which ranking each mode runs, and the hits a
search returns (:func:`search_hits`).

``keyword`` is spec 002's BM25 search over the query's content words (a short query's stop
words dropped, :mod:`.stop_words`); ``vector`` ranks by embedding similarity; ``hybrid``
fuses both (:mod:`.fusion`). A search without a mode uses :func:`configured_search_mode`,
else hybrid where the vectors extra can run, else keyword
(``MemoryStore.default_search_mode``).

The keyword ranking (``keyword_ranking``: ``content``, the default, or ``spec``, spec 002's
exact ranking over every word of the query, kept for compatibility and evaluation) applies
wherever keywords rank: keyword mode and the keyword side of hybrid.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.layout import StoreLayout

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
KEYWORD_RANKINGS = ("content", "spec")
KEYWORD_RANKING_ENV = "ANAMNESIS_KEYWORD_RANKING"
KEYWORD_RANKING_KEY = "keyword_ranking"


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


def configured_keyword_ranking(home: Path) -> str:
    """``ANAMNESIS_KEYWORD_RANKING`` over config.json's ``keyword_ranking``, if it names a
    ranking; ``content`` otherwise (a wrong value is ignored: `anamnesis doctor` reports it)."""
    raw = os.environ.get(KEYWORD_RANKING_ENV, "").strip()
    if not raw:
        from anamnesis.store.config import read_config

        raw = str(read_config(home).get(KEYWORD_RANKING_KEY) or "").strip()
    return raw if raw in KEYWORD_RANKINGS else KEYWORD_RANKINGS[0]


class SearchSettings:
    """The user's search choices for one store, read again only when the environment or
    config.json changed (every search without a mode asks)."""

    __slots__ = ("_cached", "_config", "home")

    def __init__(self, home: Path) -> None:
        self.home = home
        self._config = str(StoreLayout(home).config_path)
        self._cached: tuple[object, tuple[str | None, str]] | None = None

    def mode(self) -> str | None:
        """:func:`configured_search_mode`."""
        return self._read()[0]

    def keyword_ranking(self) -> str:
        """:func:`configured_keyword_ranking`."""
        return self._read()[1]

    def terms(self, query: str) -> tuple[list[str], list[str]]:
        """The words of ``query`` (spec 002's tokens) and those keywords rank by: its
        content words, or every word under the spec's ranking."""
        from anamnesis.store.query import query_tokens

        words = query_tokens(query)
        if self.keyword_ranking() == "spec":
            return words, words
        from anamnesis.store.stop_words import content_terms

        return words, content_terms(words)

    def _read(self) -> tuple[str | None, str]:
        from anamnesis.store.note_files import stat_key

        key = (
            os.environ.get(SEARCH_MODE_ENV, ""),
            os.environ.get(KEYWORD_RANKING_ENV, ""),
            stat_key(self._config),
        )
        if self._cached is None or self._cached[0] != key:
            found = (configured_search_mode(self.home), configured_keyword_ranking(self.home))
            self._cached = (key, found)
        return self._cached[1]


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
    words: Sequence[str] = (),
) -> list[tuple[str, float]]:
    """The best ``k`` (id, score) pairs in the order ``mode`` ranks them: keyword by BM25
    (score sign-flipped, higher is better) when there is no query vector (keyword mode, or
    vectors unavailable); otherwise vector or hybrid (:mod:`.hybrid`). ``tokens``: the
    words keywords rank by (:meth:`SearchSettings.terms`); ``words``: all of the query's."""
    if query_vector is None:
        return [(memory_id, -bm25) for memory_id, bm25 in ranker.ranked_ids(tokens, filters, k)]
    from anamnesis.store import hybrid  # only a search that runs vectors pays for it

    vector, model = query_vector
    # Which relevance floor vector evidence needs depends on whether the query is words the
    # store knows (fusion.vector_floor): a query whose only known words are stop words is
    # still language (a paraphrase), never a random string.
    shared = len(words) > len(tokens) and _any_note_holds(conn, words)
    if mode == "vector":
        return hybrid.vector_ranking(
            conn, ranker, tokens, vector, model, filters, k, stop_words_shared=shared
        )
    return hybrid.hybrid_ranking(
        conn, ranker, tokens, vector, model, filters, k, stop_words_shared=shared
    )


def _any_note_holds(conn: sqlite3.Connection, words: Sequence[str]) -> bool:
    from anamnesis.store.query import match_expression

    found = conn.execute(
        "SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT 1", (match_expression(words),)
    ).fetchone()
    return found is not None


def search_hits(
    conn: sqlite3.Connection,
    ranker: Ranker,
    indexer: Indexer,
    tokens: Sequence[str],
    filters: Filters,
    k: int,
    mode: str,
    query_vector: tuple[bytes, str] | None,
    words: Sequence[str] = (),
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
        ranked = rank(conn, ranker, tokens, filters, k, mode, query_vector, words)
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
