"""The vectors extra as one store sees it: can it run, with which embedder, and warnings.

Nothing here loads a model or imports fastembed until a vector or hybrid search (or an
explicit embedding pass) needs it. When the extra cannot run (not installed, a Python
whose sqlite3 cannot load extensions, a model that cannot be loaded), search falls back to
keyword-only and says why once per store, with a :class:`VectorsUnavailableWarning`.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
from functools import lru_cache
from pathlib import Path

from anamnesis.store.embedding import (
    Embedder,
    VectorsUnavailable,
    VectorsUnavailableWarning,
    VectorSupport,
    default_embedder,
    load_sqlite_vec,
    sqlite_can_load_extensions,
    sqlite_vec_problem,
    vector_support,
)


@lru_cache(maxsize=1)
def _support() -> VectorSupport:
    return vector_support()


@lru_cache(maxsize=1)
def _sqlite_vec_support() -> VectorSupport:
    """Like :func:`vector_support`, for a caller that brings its own embedder."""
    problem = sqlite_vec_problem()
    return VectorSupport(problem is None, problem or "")


class StoreVectors:
    """Vector state of one store: the embedder (made on first use), which connection has
    sqlite-vec loaded, and whether the fallback warning was given."""

    def __init__(self, home: Path, embedder: Embedder | None) -> None:
        self.home = home
        self._given = embedder
        self._embedder: Embedder | None = embedder
        self._loaded_into: int | None = None  # id() of the connection holding sqlite-vec
        self._failure: VectorSupport | None = None  # why vectors stopped working here
        self._warned = False
        self._lock = threading.Lock()

    def support(self) -> VectorSupport:
        """Whether vectors can run here, without loading a model."""
        if self._failure is not None:
            return self._failure
        return _sqlite_vec_support() if self._given is not None else _support()

    def ready(self) -> bool:
        return self.support().available

    def embedder(self) -> Embedder:
        """The embedder, made on first use; raises :class:`VectorsUnavailable`."""
        support = self.support()
        if not support.available:
            raise VectorsUnavailable(
                f"{support.reason}; {support.fix}" if support.fix else support.reason
            )
        with self._lock:
            if self._embedder is None:
                self._embedder = default_embedder(self.home)
            return self._embedder

    def load_into(self, conn: sqlite3.Connection) -> None:
        """Make sqlite-vec's functions available on ``conn`` (once per connection)."""
        if self._loaded_into == id(conn):
            return
        load_sqlite_vec(conn)
        self._loaded_into = id(conn)

    def forget_connection(self) -> None:
        self._loaded_into = None

    def fail(self, reason: str) -> None:
        """Vectors stopped working (e.g. the model cannot load): keyword-only from now on.

        ``reason`` is a :class:`VectorsUnavailable` message: what failed; how to fix it.
        """
        what, _, fix = reason.partition("; ")
        self._failure = VectorSupport(
            False, what, fix or "run `anamnesis doctor` to check the vectors set-up"
        )
        self.warn(reason)

    def warn(self, reason: str) -> None:
        """Say once per store that search runs keyword-only, and why."""
        self._warn_once(f"vector search is unavailable, searching by keywords only: {reason}")

    def warn_partial(self, missing: int) -> None:
        """Say once per store that some notes are not embedded yet."""
        self._warn_once(
            f"{missing} {'note has' if missing == 1 else 'notes have'} no embedding yet and "
            "can be found by keywords only until embedded: `anamnesis reindex` embeds them "
            "(the MCP server does it in the background)"
        )

    def _warn_once(self, message: str) -> None:
        if self._warned:
            return
        self._warned = True
        warnings.warn(message, VectorsUnavailableWarning, stacklevel=5)


__all__ = ["StoreVectors", "sqlite_can_load_extensions"]
