"""Embedding notes in the background, so that hybrid searches do not wait for the model.

Embedding a 4 KB note takes about 0.2 s of a core (five passages): a search that had to
embed every note written since the last one would stall the conversation. A daemon thread
embeds what lacks a vector when the server starts and again after every write and sync,
every note's first passage before the rest of any note. The store runs the model outside
its lock and at the lowest CPU priority (``background=True``), so tool calls, and hooks in
other processes, go on meanwhile at nearly full speed; when vectors cannot run, the thread
says why once in the store's mcp.log and stops, and searches use keywords. A pass takes
the store's embedding turn (``anamnesis.ops.embedding_turn``): while the CLI's background
process embeds (after a `write` or a `sync`), the thread tries again a little later instead
of embedding the same notes beside it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from anamnesis.ops import EmbeddingBusy, embedding_turn
from anamnesis.store import (
    SEARCH_MODES,
    MemoryStore,
    StoreBusy,
    VectorsUnavailable,
    configured_search_mode,
)

if TYPE_CHECKING:
    import logging
    from collections.abc import Callable

# After another process held the index too long, try again this much later.
BUSY_RETRY_S = 5.0
# How long a stopping server waits for the batch being embedded (32 notes take about
# half a second here); a daemon thread still cannot keep the process alive after that.
STOP_WAIT_S = 3.0


class _Stopped(Exception):
    """Raised between batches to end an embedding pass when the server stops."""


class BackgroundEmbedding:
    """One daemon thread that embeds the notes of ``store`` that lack a vector.

    ``failure_log`` gives the logger for the store's mcp.log, made only when there is
    something to log.
    """

    def __init__(self, store: MemoryStore, failure_log: Callable[[], logging.Logger]) -> None:
        self._store = store
        self._failure_log = failure_log
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self.state = "off"  # off | running | idle | stopped | failed (for status and tests)

    def start(self) -> bool:
        """Start the thread, unless a search mode without vectors is configured; return
        whether it started. Whether vectors can run is found out on the thread: checking costs a
        few hundred milliseconds of imports, which the server's start does not pay."""
        configured = configured_search_mode(self._store.root)
        if self._thread is not None or (
            configured is not None and not SEARCH_MODES[configured].needs_vectors
        ):
            return False
        self._wake.set()  # the first pass runs at once
        # This thread embeds what is new: searches need not stop to do it themselves.
        self._store.search_embed_limit = 0
        self._thread = threading.Thread(target=self._run, name="anamnesis-embedding", daemon=True)
        self.state = "running"
        self._thread.start()
        return True

    def wake(self) -> None:
        """Notes may have changed (a write, a sync): embed what is new. Never blocks."""
        self._wake.set()

    def stop(self, wait_s: float = STOP_WAIT_S) -> None:
        """Ask the thread to end after the current batch and wait up to ``wait_s`` for it,
        so the store is not closed under a batch being saved."""
        self._stopping.set()
        self._wake.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(wait_s)

    def _run(self) -> None:
        try:
            if not self._wanted():
                self.state = "off"
                return
            retry_s: float | None = None
            while True:
                self._wake.wait(retry_s)
                if self._stopping.is_set():
                    break
                self._wake.clear()  # a write from now on wakes the next pass
                self.state = "running"
                retry_s = None if self._embed_pass() else BUSY_RETRY_S
                self.state = "idle"
        except _Stopped:
            pass
        except VectorsUnavailable as exc:
            # The store has marked vectors failed: searches now say they use keywords.
            # Logged before the state says so: whoever sees "failed" finds the log line.
            if not self._stopping.is_set():
                self._failure_log().warning(
                    "background embedding stopped, searches use keywords only: %s", exc
                )
            self.state = "failed"
            return
        except Exception:
            if not self._stopping.is_set():  # a store closed under a stopping server is fine
                self._failure_log().exception("background embedding failed and stopped")
            self.state = "failed"
            return
        self.state = "stopped"

    def _wanted(self) -> bool:
        """Vectors are the default mode here and can run; if the default asks for vectors
        that cannot run (a wrong model path, say), that is logged once."""
        store = self._store
        if not SEARCH_MODES[store.default_search_mode()].needs_vectors:
            return False
        status = store.embedding_status()
        if not status["available"]:
            self._failure_log().warning(
                "vector search is unavailable, searches use keywords only: %s%s",
                status["reason"],
                f"; {status['fix']}" if status["fix"] else "",
            )
            return False
        return True

    def _embed_pass(self) -> bool:
        """Embed what lacks a vector; False when another process held the index too long,
        or is embedding this store's notes itself."""

        def check_stop(_done: int, _total: int) -> None:
            if self._stopping.is_set():
                raise _Stopped

        try:
            with embedding_turn(self._store.layout):
                self._store.embed_missing(progress=check_stop, background=True)
        except (StoreBusy, EmbeddingBusy):
            return False  # e.g. a reindex, or the CLI's embedder: try again shortly
        return True
