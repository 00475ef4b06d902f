"""Search as one store sees it: the user's search settings, the ranker of the store's
connection, and one search from query to hits, with the vectors extra when its mode uses
them (:mod:`anamnesis.store.vectors.store_vectors`).

:class:`~anamnesis.store.MemoryStore` makes this on its first search, so a process that
only lists notes (the SessionStart hook) never loads the search code, and hands it the
store's connection, its indexer, its catch-up and its vectors.
"""

from __future__ import annotations

from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.model import SearchHit, SearchResult
from anamnesis.store.search.query import Ranker
from anamnesis.store.search.search_modes import (
    DEFAULT_MODE,
    KEYWORD_MODE,
    MAX_K,
    SearchSettings,
    check_search,
    needs_vectors,
    search_hits,
)

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Callable
    from pathlib import Path

    from anamnesis.store.index.connection import IndexConnection
    from anamnesis.store.index.indexer import Indexer
    from anamnesis.store.usage.usage_log import UsageLog
    from anamnesis.store.vectors.store_vectors import StoreVectors


class StoreSearch:
    """One store's searches. ``catch_up`` indexes what changed on disk behind the store's
    back; ``vectors`` gives the store's vector state (made on first use)."""

    __slots__ = (
        "_catch_up", "_index", "_indexer", "_ranker", "_settings", "_usage", "_vectors",
    )  # fmt: skip

    def __init__(
        self,
        root: Path,
        index: IndexConnection,
        indexer: Indexer,
        catch_up: Callable[[], None],
        vectors: Callable[[], StoreVectors],
        usage: Callable[[], UsageLog],
    ) -> None:
        self._settings = SearchSettings(root)  # the user's mode, ranking and usage prior
        self._index = index
        self._indexer = indexer
        self._catch_up = catch_up
        self._vectors = vectors
        self._usage = usage  # the store's usage log, read by the usage prior when it is on
        self._ranker: Ranker | None = None

    def configured_mode(self) -> str | None:
        """The mode the user chose, if any (:func:`.search_modes.configured_search_mode`)."""
        return self._settings.mode()

    def default_mode(self) -> str:
        """:meth:`MemoryStore.default_search_mode`."""
        configured = self.configured_mode()
        if configured is not None:
            return configured
        vectors = self._vectors()
        # A model that could not be downloaded a moment ago: the default stays, and each
        # search falls back to keywords at once, saying why (the model is not tried).
        if vectors.ready() or vectors.download_blocked() is not None:
            return DEFAULT_MODE
        return KEYWORD_MODE

    def ranker(self, conn: sqlite3.Connection) -> Ranker:
        """The ranker of this connection. One per connection: it remembers which terms are
        clamped until the index changes."""
        if self._ranker is None or self._ranker.conn is not conn:
            self._ranker = Ranker(conn)
        return self._ranker

    def search(
        self,
        query: str,
        *,
        project: str | None,
        type: str | None,
        scope: str | None,
        k: int,
        mode: str | None,
        include_superseded: bool,
        embed_limit: int,
        agent: str | None = None,
        include_expired: bool = False,
        as_of: str | None = None,
    ) -> SearchResult:
        """:meth:`MemoryStore.search_scored`; ``embed_limit``: how many notes lacking a
        vector a vector or hybrid search embeds first (``MemoryStore.search_embed_limit``)."""
        chosen = check_search(query, k, mode) or self.default_mode()
        filters = Filters.checked(
            project,
            type,
            scope,
            None,
            include_superseded,
            agent=agent,
            include_expired=include_expired,
            as_of=as_of,
        )
        words, tokens = self._settings.terms(query)
        if not tokens:  # nothing to search for: no model is loaded to find that out
            if not needs_vectors(chosen) or self._vectors().ready():
                return SearchResult([], chosen, chosen)
            return SearchResult([], KEYWORD_MODE, chosen, self._vectors().support().reason)
        query_vector: tuple[bytes, str] | None = None
        if needs_vectors(chosen):
            query_vector = self._vectors().query_vector(query, embed_limit)

        # With the usage prior, a few more candidates, of which it keeps the best k (its
        # module only then: the prompt hook searches too). Not for the memory as it stood
        # on a past day: what was used since is no part of it.
        weight = self._settings.usage_prior() if as_of is None else 0.0
        depth = k
        if weight > 0:
            from anamnesis.store.search.usage_prior import EXTRA_DEPTH, with_prior

            depth = min(k + EXTRA_DEPTH, MAX_K)

        def action() -> list[SearchHit]:
            self._catch_up()
            conn = self._index.connection()
            if query_vector is not None:
                self._vectors().load_into(conn)
            ranker = self.ranker(conn)
            return search_hits(
                conn, ranker, self._indexer, tokens, filters, depth, chosen, query_vector, words,
                query,
            )  # fmt: skip

        hits = self._index.run(action)
        if weight > 0:
            hits = with_prior(hits, self._usage(), weight, k)
        if query_vector is None and needs_vectors(chosen):
            return SearchResult(hits, KEYWORD_MODE, chosen, self._vectors().support().reason)
        return SearchResult(hits, chosen, chosen)
