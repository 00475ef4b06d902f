"""The search modes, declared once (:data:`SEARCH_MODES`): each mode's name, what it finds,
whether it needs the vectors extra, and the ranking it runs. Everything else derives from
that table: the store's dispatch (:func:`rank`), the check of a ``mode`` argument, the MCP
tool's input schema, its messages and description, the CLI's ``--mode`` help and the
``search_mode`` setting's allowed values. Also here: the variable and setting that choose the
default, how a configured choice is read, and the hits a search returns (:func:`search_hits`).

``keyword`` is spec 002's BM25 search over the query's content words (a short query's stop
words dropped, :mod:`.stop_words`); ``vector`` ranks by embedding similarity; ``hybrid``
fuses both (:mod:`.fusion`). A search without a mode uses :func:`configured_search_mode`,
else hybrid where the vectors extra can run, else keyword
(``MemoryStore.default_search_mode``). A mode that needs vectors runs as keyword search
where they cannot run (the search result says so).

The keyword ranking (``keyword_ranking``: ``content``, the default, or ``spec``, spec 002's
exact ranking over every word of the query, kept for compatibility and evaluation) applies
wherever keywords rank: keyword mode and the keyword side of hybrid.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.config import read_config
from anamnesis.store.errors import InvalidQuery
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.index import db as ix
from anamnesis.store.index.note_files import stat_key
from anamnesis.store.index.note_queries import superseders_of
from anamnesis.store.note.model import RankReason, SearchHit
from anamnesis.store.record import Record
from anamnesis.store.search.query import match_expression, query_tokens
from anamnesis.store.search.stop_words import content_terms

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable, Sequence

    from anamnesis.store.index.indexer import Indexer
    from anamnesis.store.index.note_queries import Filters
    from anamnesis.store.search.query import Ranker

    # (connection, keyword ranker, the words keywords rank by, filters, k, the query's
    # vector or None, where to put why each hit ranked) -> the best k (id, score) pairs,
    # best first.
    Ranking = Callable[
        [
            sqlite3.Connection, Ranker, Sequence[str], Filters, int, "QueryVector | None",
            dict[str, RankReason],
        ],
        list[tuple[str, float]],
    ]  # fmt: skip


class QueryVector(Record):
    """A query's embedding, the model that made it, whether the query's left-out stop
    words are in the store (it is language, not a random string: :func:`.fusion.vector_floor`)
    and the query's text (hybrid search reads what kind of query it is: :mod:`.query_kind`)."""

    __slots__ = ("vector", "model", "stop_words_shared", "text")

    def __init__(self, vector: bytes, model: str, stop_words_shared: bool, text: str = "") -> None:
        self.vector = vector
        self.model = model
        self.stop_words_shared = stop_words_shared
        self.text = text


class SearchMode(Record):
    """One search mode. ``help`` says what it finds, in words a person or a model picks a
    mode by; ``ranking`` is called with the query's vector when ``needs_vectors`` and the
    vectors extra runs, else with None (a mode that needs vectors then never runs: keyword
    search does, and the result says so)."""

    __slots__ = ("name", "help", "needs_vectors", "ranking")

    def __init__(self, name: str, help: str, needs_vectors: bool, ranking: Ranking) -> None:
        self.name = name
        self.help = help
        self.needs_vectors = needs_vectors
        self.ranking = ranking


def _keyword_ranking(
    conn: sqlite3.Connection,
    ranker: Ranker,
    tokens: Sequence[str],
    filters: Filters,
    k: int,
    query: QueryVector | None,
    why: dict[str, RankReason],
) -> list[tuple[str, float]]:
    """BM25, sign-flipped (higher is better), newer first on a tie."""
    ranked = [(memory_id, -bm25) for memory_id, bm25 in ranker.ranked_ids(tokens, filters, k)]
    best = ranked[0][1] if ranked else 0.0
    for place, (memory_id, score) in enumerate(ranked, 1):
        relative = score / best if best > 0 else 0.0
        why[memory_id] = RankReason(
            None, (), 1.0, 0.0, score, relative, place, None, None, keyword_evidence=relative
        )
    return ranked


def _on_vectors(name: str) -> Ranking:
    """The ranking :mod:`.hybrid` runs as ``name`` (``vector_ranking``, ``hybrid_ranking``),
    given the query's vector; that module loads only when a search runs it."""

    def ranking(
        conn: sqlite3.Connection,
        ranker: Ranker,
        tokens: Sequence[str],
        filters: Filters,
        k: int,
        query: QueryVector | None,
        why: dict[str, RankReason],
    ) -> list[tuple[str, float]]:
        from anamnesis.store.search import hybrid  # only a search that runs vectors pays for it

        assert query is not None  # needs_vectors: called only with the query's vector
        run: Callable[..., list[tuple[str, float]]] = getattr(hybrid, name)
        return run(
            conn, ranker, tokens, query.vector, query.model, filters, k,
            stop_words_shared=query.stop_words_shared, text=query.text, why=why,
        )  # fmt: skip

    return ranking


# The table, in the order every list of modes shows them. A new mode is one entry here.
SEARCH_MODES: dict[str, SearchMode] = {
    mode.name: mode
    for mode in (
        SearchMode("keyword", "exact words: names, error codes, ids", False, _keyword_ranking),
        SearchMode("vector", "meaning only", True, _on_vectors("vector_ranking")),
        SearchMode(
            "hybrid",
            "keywords plus meaning: also finds paraphrases",
            True,
            _on_vectors("hybrid_ranking"),
        ),
    )
}
# The default where the vectors extra runs; elsewhere (and as the fallback of a mode that
# needs vectors) keyword search runs.
DEFAULT_MODE = "hybrid"
KEYWORD_MODE = "keyword"
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
        raw = str(read_config(home).get(CONFIG_KEY) or "").strip()
    return raw if is_search_mode(raw) else None


def configured_keyword_ranking(home: Path) -> str:
    """``ANAMNESIS_KEYWORD_RANKING`` over config.json's ``keyword_ranking``, if it names a
    ranking; ``content`` otherwise (a wrong value is ignored: `anamnesis doctor` reports it)."""
    raw = os.environ.get(KEYWORD_RANKING_ENV, "").strip()
    if not raw:
        raw = str(read_config(home).get(KEYWORD_RANKING_KEY) or "").strip()
    return raw if raw in KEYWORD_RANKINGS else KEYWORD_RANKINGS[0]


# The usage prior's weight (:mod:`.usage_prior`): off, or a number from 0 to 1.
USAGE_PRIOR_KEY = "usage_prior"
USAGE_PRIOR_ENV = "ANAMNESIS_USAGE_PRIOR"
USAGE_PRIOR_OFF = "off"
DEFAULT_USAGE_PRIOR = 0.0  # off: measured, see usage_prior.py
MAX_USAGE_PRIOR = 1.0


def read_usage_prior(text: str) -> float | None:
    """``off`` (0) or a number from 0 to :data:`MAX_USAGE_PRIOR`; None for anything else."""
    cleaned = text.strip().lower()
    if cleaned in ("", USAGE_PRIOR_OFF):
        return 0.0
    try:
        weight = float(cleaned)
    except ValueError:
        return None
    return weight if 0.0 <= weight <= MAX_USAGE_PRIOR else None


def configured_usage_prior(home: Path) -> float:
    """``ANAMNESIS_USAGE_PRIOR`` over config.json's ``usage_prior``, if it reads (a wrong
    value is ignored: `anamnesis doctor` reports it); else :data:`DEFAULT_USAGE_PRIOR`."""
    raw = os.environ.get(USAGE_PRIOR_ENV, "").strip()
    if not raw:
        raw = str(read_config(home).get(USAGE_PRIOR_KEY) or "").strip()
    weight = read_usage_prior(raw) if raw else None
    return DEFAULT_USAGE_PRIOR if weight is None else weight


class SearchSettings:
    """The user's search choices for one store, read again only when the environment or
    config.json changed (every search without a mode asks)."""

    __slots__ = ("_cached", "_config", "home")

    def __init__(self, home: Path) -> None:
        self.home = home
        self._config = str(StoreLayout(home).config_path)
        self._cached: tuple[object, tuple[str | None, str, float]] | None = None

    def mode(self) -> str | None:
        """:func:`configured_search_mode`."""
        return self._read()[0]

    def keyword_ranking(self) -> str:
        """:func:`configured_keyword_ranking`."""
        return self._read()[1]

    def usage_prior(self) -> float:
        """:func:`configured_usage_prior` (0: off)."""
        return self._read()[2]

    def terms(self, query: str) -> tuple[list[str], list[str]]:
        """The words of ``query`` (spec 002's tokens) and those keywords rank by: its
        content words, or every word under the spec's ranking."""
        words = query_tokens(query)
        if self.keyword_ranking() == "spec":
            return words, words
        return words, content_terms(words)

    def _read(self) -> tuple[str | None, str, float]:
        key = (
            os.environ.get(SEARCH_MODE_ENV, ""),
            os.environ.get(KEYWORD_RANKING_ENV, ""),
            os.environ.get(USAGE_PRIOR_ENV, ""),
            stat_key(self._config),
        )
        if self._cached is None or self._cached[0] != key:
            found = (
                configured_search_mode(self.home),
                configured_keyword_ranking(self.home),
                configured_usage_prior(self.home),
            )
            self._cached = (key, found)
        return self._cached[1]


# The most notes one search returns.
MAX_K = 1000


def check_search(query: object, k: object, mode: str | None) -> str | None:
    """A search's query, ``k`` and mode, checked: the mode (:func:`check_mode`)."""
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise InvalidQuery(f"k must be a whole number from 1 to {MAX_K}, got {k!r}")
    if not isinstance(query, str):
        raise InvalidQuery(f"query must be text, got {query.__class__.__name__}")
    return check_mode(mode)


def check_mode(mode: str | None) -> str | None:
    """A search's ``mode`` argument, checked: a mode's name, or None for the default."""
    if mode is not None and not is_search_mode(mode):
        raise InvalidQuery(f"mode must be one of {', '.join(SEARCH_MODES)}, got {mode!r}")
    return mode


def needs_vectors(mode: str) -> bool:
    """Whether ``mode`` (a name in :data:`SEARCH_MODES`) runs on the vectors extra."""
    return SEARCH_MODES[mode].needs_vectors


def rank(
    conn: sqlite3.Connection,
    ranker: Ranker,
    tokens: Sequence[str],
    filters: Filters,
    k: int,
    mode: str,
    query_vector: tuple[bytes, str] | None,
    words: Sequence[str] = (),
    text: str = "",
    why: dict[str, RankReason] | None = None,
) -> list[tuple[str, float]]:
    """The best ``k`` (id, score) pairs in the order ``mode``'s ranking puts them; keyword
    search's when the mode needs vectors and there is no query vector (vectors unavailable).
    ``tokens``: the words keywords rank by (:meth:`SearchSettings.terms`); ``words``: all of
    the query's; ``text``: the query; ``why``: filled with why each hit ranked there."""
    if why is None:
        why = {}
    chosen = SEARCH_MODES[mode]
    if not chosen.needs_vectors:
        return chosen.ranking(conn, ranker, tokens, filters, k, None, why)
    if query_vector is None:
        return SEARCH_MODES[KEYWORD_MODE].ranking(conn, ranker, tokens, filters, k, None, why)
    vector, model = query_vector
    # Which relevance floor vector evidence needs depends on whether the query is words the
    # store knows (fusion.vector_floor): a query whose only known words are stop words is
    # still language (a paraphrase), never a random string.
    shared = len(words) > len(tokens) and _any_note_holds(conn, words)
    query = QueryVector(vector, model, shared, text)
    return chosen.ranking(conn, ranker, tokens, filters, k, query, why)


def _any_note_holds(conn: sqlite3.Connection, words: Sequence[str]) -> bool:
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
    text: str = "",
) -> list[SearchHit]:
    """The hits of one search, best first: :func:`rank`'s notes as their files say now,
    each with its score, the notes that supersede it and why it ranked there, all read in
    one snapshot.

    Without ``filters.include_superseded`` no hit is superseded (the ranking left out every
    note some note supersedes, in the same snapshot), so nothing is looked up.
    """
    score_of: dict[str, float] = {}
    superseded_by: dict[str, tuple[str, ...]] = {}
    why: dict[str, RankReason] = {}

    def fetch() -> list[ix.NoteRow]:
        why.clear()
        ranked = rank(conn, ranker, tokens, filters, k, mode, query_vector, words, text, why)
        score_of.update(ranked)
        ids = [memory_id for memory_id, _ in ranked]
        rows = ix.rows_by_id(conn, ids)
        if filters.include_superseded:
            superseded_by.clear()
            superseded_by.update(superseders_of(conn, ids))
        return [rows[memory_id] for memory_id in ids if memory_id in rows]

    notes = indexer.settled(conn, fetch, True)
    return [
        SearchHit(
            note, score_of.get(note.id, 0.0), superseded_by.get(note.id, ()), why.get(note.id)
        )
        for note in notes
    ]
