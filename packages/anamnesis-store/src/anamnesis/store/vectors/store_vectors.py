"""The vectors extra as one store sees it: can it run, with which embedder, embedding the
notes that lack a vector, embedding a query, and warnings.

Nothing here loads a model or imports fastembed until a vector or hybrid search (or an
explicit embedding pass) needs it. Vectors are cached by content and model inside index.db
(:mod:`.vector_index`): unchanged notes are never embedded twice. When the extra cannot
run (not installed, a Python whose sqlite3 cannot load extensions, a model that cannot be
loaded), search falls back to keyword-only and says why once per store, with a
:class:`VectorsUnavailableWarning`.
"""

from __future__ import annotations

import sqlite3
import threading
import warnings
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from anamnesis.store.index import db as ix
from anamnesis.store.index.connection import IndexConnection
from anamnesis.store.note.invisible import match_text
from anamnesis.store.vectors import vector_index as vi
from anamnesis.store.vectors.embedding import (
    Embedder,
    NotesNotEmbeddedWarning,
    VectorsUnavailable,
    VectorsUnavailableWarning,
    VectorSupport,
    as_blob,
    default_embedder,
    load_sqlite_vec,
    sqlite_can_load_extensions,
    sqlite_vec_problem,
    vector_support,
)
from anamnesis.store.vectors.embedding_pass import EmbedderFailed, EmbeddingPass
from anamnesis.store.vectors.model_download import ModelUnreachable

Progress = Callable[[int, int], None]


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
    sqlite-vec loaded, whether the fallback warning was given, and when the last embedding
    pass found nothing left to do.

    ``index`` is the store's connection; ``catch_up`` brings it up to date with the files
    before notes are picked for embedding.
    """

    def __init__(
        self,
        home: Path,
        embedder: Embedder | None,
        index: IndexConnection,
        catch_up: Callable[[], None],
    ) -> None:
        self.home = home
        self._given = embedder
        self._embedder: Embedder | None = embedder
        self._index = index
        self._catch_up = catch_up
        # The connection holding sqlite-vec (kept, not its id(): a rebuilt index's new
        # connection could reuse the id of the closed one).
        self._loaded_into: sqlite3.Connection | None = None
        self._failure: VectorSupport | None = None  # why vectors stopped working here
        self._warned = False
        self._lock = threading.Lock()
        # (data_version, total_changes, model) when the last embedding pass found nothing
        # left to do: searches skip the check until the index changes.
        self._embedded_at: tuple[int, int, str] | None = None

    def support(self) -> VectorSupport:
        """Whether vectors can run here, without loading a model: the extra, and a model
        not remembered as impossible to download (:mod:`.model_download`)."""
        if self._failure is not None:
            return self._failure
        if self._given is not None:
            return _sqlite_vec_support()
        support = _support()
        if not support.available:
            return support
        blocked = self.download_blocked()
        if blocked is not None:
            return VectorSupport(False, blocked.reason, blocked.fix())
        return support

    def download_blocked(self) -> ModelUnreachable | None:
        """The remembered failure to download the default model, while it holds (None: the
        model is here, configured as a folder, or may be tried)."""
        if self._given is not None:
            return None
        try:
            embedder = self._default_embedder()
        except VectorsUnavailable:  # a model folder without a model: said when used
            return None
        blocked = getattr(embedder, "download_blocked", None)
        return blocked() if callable(blocked) else None

    def _default_embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = default_embedder(self.home)
            return self._embedder

    def ready(self) -> bool:
        return self.support().available

    def embedder(self) -> Embedder:
        """The embedder, made on first use; raises :class:`VectorsUnavailable`."""
        support = self.support()
        if not support.available:
            raise VectorsUnavailable(
                f"{support.reason}; {support.fix}" if support.fix else support.reason
            )
        return self._default_embedder()

    def load_into(self, conn: sqlite3.Connection) -> None:
        """Make sqlite-vec's functions available on ``conn`` (once per connection)."""
        if self._loaded_into is conn:
            return
        load_sqlite_vec(conn)
        self._loaded_into = conn

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
        """Say once per store that some notes are not embedded yet (a
        :class:`NotesNotEmbeddedWarning`, which carries the number)."""
        if self._warned:
            return
        self._warned = True
        message = (
            f"{missing} {'note has' if missing == 1 else 'notes have'} no embedding yet and "
            "can be found by keywords only until embedded: `anamnesis reindex` embeds them "
            "(`anamnesis write`, `sync` and `search` start embedding them in the background, "
            "as the MCP server does)"
        )
        warnings.warn(NotesNotEmbeddedWarning(message, missing), stacklevel=4)

    def _warn_once(self, message: str) -> None:
        if self._warned:
            return
        self._warned = True
        warnings.warn(message, VectorsUnavailableWarning, stacklevel=5)

    # -- embedding notes ---------------------------------------------------------------

    def embed_missing(
        self,
        *,
        batch_size: int = 32,
        limit: int | None = None,
        progress: Progress | None = None,
        passage_budget: int | None = None,
        background: bool = False,
    ) -> int:
        """See :meth:`MemoryStore.embed_missing <.store.MemoryStore.embed_missing>`. The
        model runs outside the index lock, so searches and writes go on meanwhile.

        One :class:`~.embedding_pass.EmbeddingPass`: the first passage of every note that
        has no vector, then the other passages of each long note, in groups of about
        ``batch_size`` passages, each saved before the next is read (memory does not grow
        with the store). ``limit``: at most this many notes in each of the two phases.
        ``passage_budget``: start no new group once this many passages were embedded (the
        bounded wait of a search). ``background``: the model runs at the lowest CPU
        priority. Returns how many texts (notes) it embedded: a start, or the rest.
        """
        embedder = self.embedder()
        model = embedder.model_id
        index = self._index

        def prepare() -> list[vi.Pending]:
            self._catch_up()
            conn = index.connection()
            with ix.write_transaction(conn, index.db_path):
                vi.ensure_cache(conn)
                vi.hash_new_rows(conn)
                vi.drop_finished_heads(conn, model)
                vi.attach_cached(conn, model)  # texts embedded before: no model needed
            return vi.pending(conn, model, limit)

        heads = index.run(prepare)
        run = EmbeddingPass(
            index,
            embedder,
            batch_size=batch_size,
            passage_budget=passage_budget,
            progress=progress,
            background=background,
        )
        try:
            if not run.heads(heads):
                return len(run.touched)  # not settled: notes are left
            unfinished = index.run(lambda: vi.partial(index.connection(), model, limit))
            if not run.finish(unfinished):
                return len(run.touched)
        except EmbedderFailed as failed:  # any embedder failure: vectors are off, no crash
            reason = embedder_failure(failed.cause)
            self.fail(reason)
            raise VectorsUnavailable(reason) from None

        def settle() -> None:
            conn = index.connection()
            with ix.write_transaction(conn, index.db_path):
                vi.drop_finished_heads(conn, model)  # a copy of a note finished above
                vi.attach_cached(conn, model)
                if limit is None:
                    vi.prune(conn, model)
            if limit is None or (len(heads) < limit and len(unfinished) < limit):
                self._embedded_at = (*_index_version(conn), model)

        index.run(settle)
        return len(run.touched)

    def after_rebuild(self, *, embed: bool | None) -> None:
        """After a full reindex: give the new rows their cached vectors (no model needed),
        then embed what is left unless ``embed`` is False. A failure raises only when the
        embedding was asked for explicitly; otherwise its warning was given."""
        self.attach_cached()
        if embed is False:
            return
        try:
            self.embed_missing()
        except VectorsUnavailable:
            if embed:
                raise

    def attach_cached(self) -> None:
        """Give rebuilt rows the vectors their texts had before (hashing, no model)."""
        try:
            model = self.embedder().model_id
        except VectorsUnavailable:
            return
        index = self._index

        def attach() -> None:
            conn = index.connection()
            with ix.write_transaction(conn, index.db_path):
                vi.ensure_cache(conn)
                vi.hash_new_rows(conn)
                vi.attach_cached(conn, model)

        index.run(attach)

    def backlog(self) -> int:
        """See :meth:`MemoryStore.embedding_backlog <.store.MemoryStore.embedding_backlog>`."""
        if not self.ready():
            return 0
        try:
            model = self.embedder().model_id
        except VectorsUnavailable:
            return 0
        index = self._index

        def count() -> int:
            conn = index.connection()
            with ix.read_transaction(conn):
                return vi.count_pending(conn, model) + vi.count_partial(conn, model)

        return index.run(count)

    def status(self, default_mode: str) -> dict[str, Any]:
        """See :meth:`MemoryStore.embedding_status <.store.MemoryStore.embedding_status>`."""
        support = self.support()
        out: dict[str, Any] = {
            "available": support.available,
            "reason": support.reason,
            "fix": support.fix,
            "default_mode": default_mode,
        }
        if not support.available:
            # A model that could not be downloaded: the notes wait all the same, counted.
            blocked = self.download_blocked() if self._failure is None else None
            if blocked is None:
                return out
            out["model_unreachable"] = blocked.as_dict()
            embedder = self._default_embedder()
            model = embedder.model_id
        else:
            try:
                embedder = self.embedder()
                model = embedder.model_id
            except VectorsUnavailable as exc:
                what, _, fix = str(exc).partition("; ")
                return {**out, "available": False, "reason": what, "fix": fix}
        needs_download = getattr(embedder, "needs_download", None)
        out["needs_download"] = bool(needs_download()) if callable(needs_download) else False
        index = self._index

        def count() -> tuple[int, int, int, int]:
            conn = index.connection()
            with ix.read_transaction(conn):
                total: int = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
                pending = vi.count_pending(conn, model)
                partial = vi.count_partial(conn, model)
                passages = vi.count_passages(conn, model)
            return total, pending, partial, passages

        total, pending, partial, passages = index.run(count)
        return {
            **out,
            "model": model,
            "embedded": total - pending,  # found by meaning, if only by their start
            "pending": pending,
            "partial": partial,  # long notes with their first passage only, so far
            "passages": passages,
        }

    # -- embedding a query -------------------------------------------------------------

    def query_vector(self, query: str, embed_first: int) -> tuple[bytes, str] | None:
        """The query's embedding and the model id, after embedding up to ``embed_first``
        notes that lack one (more wait for a reindex or the MCP server's background
        pass). None: vectors cannot run, and search falls back to keywords."""
        try:
            embedder = self.embedder()
            self._index.run(lambda: self.load_into(self._index.connection()))
            self._embed_before_search(embedder.model_id, embed_first)
            vector = as_blob(embedder.embed_query(match_text(query)))  # as notes are embedded
        except Exception as exc:  # any embedder failure: keyword results, never a crash
            reason = embedder_failure(exc)
            if self.ready():
                self.fail(reason)  # e.g. the model cannot load: stop trying
            else:
                self.warn(reason)
            return None
        return vector, embedder.model_id

    def _embed_before_search(self, model: str, limit: int) -> None:
        index = self._index
        current = index.run(lambda: (*_index_version(index.connection()), model))
        if current == self._embedded_at:
            return
        if limit > 0:  # a search waits for about ``limit`` passages (a long note is several)
            self.embed_missing(limit=limit, passage_budget=limit)
            if self._embedded_at == index.run(lambda: (*_index_version(index.connection()), model)):
                return  # the pass embedded everything, and nothing was written since
        left = index.run(lambda: vi.count_pending(index.connection(), model))
        if left:
            self.warn_partial(left)


def embedder_failure(exc: Exception) -> str:
    """Why vectors stopped: our own message, or the embedder's error named as such."""
    if isinstance(exc, VectorsUnavailable):
        return str(exc)
    return f"the embedding model failed ({type(exc).__name__}: {exc}); run `anamnesis doctor`"


def _index_version(conn: sqlite3.Connection) -> tuple[int, int]:
    data_version: int = conn.execute("PRAGMA data_version").fetchone()[0]
    return data_version, conn.total_changes


__all__ = ["StoreVectors", "sqlite_can_load_extensions"]
