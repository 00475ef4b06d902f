"""Embedding in the background: notes that a write or a sync brought in get their vectors
from a process of their own, so no search waits for the model.

A new machine's first sync pulled thousands of notes, and `write` embedded nothing: every
later search embedded 64 notes before answering (2-4 s) and said how many were left.
Now `anamnesis write` and `anamnesis sync` (and `init`'s first sync, and a search that finds
notes without vectors) call :func:`start_background_embedding`: when searches here use
vectors and notes wait for theirs, it starts ``python -m anamnesis.ops.background_embedding
<home>`` detached (its own session, no terminal, niced), unless one already runs. The hooks
never call it: no session's hook starts it or waits for it (what their background sync
pulls is embedded by the next command that calls it, or by the MCP server's own thread).

One embedder per store: whoever holds ``StoreLayout.embedding_lock`` (:func:`embedding_turn`)
embeds, and holds its pid in it (:func:`embedder_pid`, shown by `status` and `doctor`); the
MCP server's embedding thread takes its turns through the same lock. The holder embeds until no
note waits, lets go, then looks once more: a write made while it let go found the lock
held and started nobody. The kernel releases the lock however the holder ends; whatever it
left undone waits for the next write, sync or search.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from anamnesis.store import (
    SEARCH_MODES,
    MemoryStore,
    Record,
    StoreBusy,
    StoreError,
    StoreLayout,
    VectorsUnavailable,
    log_to_store,
    start_detached,
    yield_to_sessions,
)
from anamnesis.sync import SyncBusy, SyncError, sync_lock

MODULE = "anamnesis.ops.background_embedding"
LOG_NAME = "embedding.log"
# How long a new embedder waits for the lock: a `status` that checks whether one runs
# holds it for a moment, and must not make the one just started leave.
LOCK_WAIT_S = 2.0
# Another process holding the index (a reindex): try again this much later, this often.
BUSY_RETRY_S = 5.0
BUSY_TRIES = 12

log = logging.getLogger(__name__)


class EmbeddingBusy(Exception):
    """Another process is embedding this store's notes (it will embed the new ones too)."""


@contextmanager
def embedding_turn(layout: StoreLayout, *, wait_s: float = 0.0) -> Iterator[None]:
    """Be the one embedding this store's notes while the block runs, or raise
    :class:`EmbeddingBusy` after ``wait_s``. The kernel lets go of it however the holder
    ends."""
    try:
        with sync_lock(layout.embedding_lock, wait_s=wait_s):
            yield
    except SyncBusy:
        raise EmbeddingBusy(f"another process holds {layout.embedding_lock}") from None


class BackgroundEmbedding(Record):
    """An embedder at work on a store: its process id, and how many notes were waiting
    when it was started or found running."""

    __slots__ = ("pid", "waiting")

    def __init__(self, pid: int, waiting: int) -> None:
        self.pid = pid
        self.waiting = waiting


def wants_vectors(store: MemoryStore) -> bool:
    """Whether searches here use vectors by default (what is worth embedding for)."""
    return SEARCH_MODES[store.default_search_mode()].needs_vectors


def start_background_embedding(store: MemoryStore) -> BackgroundEmbedding | None:
    """Start embedding the notes that wait for vectors, in a detached process, when
    searches here use vectors and the model can be had; None when there is nothing to do.
    An embedder already at work is returned as it is (none is started beside it).

    Costs a few counts and, when one is started, a process start (a few milliseconds:
    the caller does not wait for the child to load anything). Never raises: the caller's
    write or sync is done, and the notes are found by keywords until embedded."""
    try:
        if not wants_vectors(store):
            return None
        waiting = store.embedding_backlog()  # 0 where vectors cannot run
        if waiting == 0:
            return None
        running = embedder_pid(store.layout)
        if running is not None:
            return BackgroundEmbedding(running, waiting)
        return BackgroundEmbedding(start_detached(store.root, MODULE, str(store.root)), waiting)
    except (OSError, StoreError) as exc:  # no process could start, an index in repair, ...
        log.warning("could not start embedding in the background: %s", exc)
        return None


def embedder_pid(layout: StoreLayout) -> int | None:
    """The pid of the process embedding this store's notes now; None when none is."""
    path = layout.embedding_lock
    if not path.is_file():
        return None
    try:
        with sync_lock(path, wait_s=0):
            return None  # nobody holds it
    except SyncBusy:
        pass
    except SyncError:  # not a file we can open: nobody embeds through it either
        return None
    try:
        return int(path.read_text(encoding="ascii").strip())
    except (OSError, ValueError):  # the holder is between taking it and writing its pid
        return None


def embed_backlog(root: Path, *, lock_wait_s: float = LOCK_WAIT_S) -> int:
    """Be this store's embedder, unless another process is: embed every waiting note,
    and again while writes keep coming. Returns how many notes it embedded (0 when
    another embedder holds the lock: that one does the work)."""
    layout = StoreLayout(root)
    done = 0
    while True:
        try:
            with embedding_turn(layout, wait_s=lock_wait_s), MemoryStore(root) as store:
                done += _embed_all(store)
        except EmbeddingBusy:
            return done
        # Let go: a write made meanwhile found the lock held and started nobody.
        with MemoryStore(root) as store:
            if not wants_vectors(store) or store.embedding_backlog() == 0:
                return done
        lock_wait_s = 0.0


def _embed_all(store: MemoryStore) -> int:
    """Embed until nothing waits (writes made meanwhile included)."""
    done = 0
    busy = 0
    while wants_vectors(store):
        try:
            embedded = store.embed_missing(background=True)
        except StoreBusy:  # e.g. a reindex holds the index: not a failure
            busy += 1
            if busy >= BUSY_TRIES:
                break
            time.sleep(BUSY_RETRY_S)
            continue
        done += embedded
        if embedded == 0 or store.embedding_backlog() == 0:
            break
    return done


def main(argv: list[str]) -> int:
    """``python -m anamnesis.ops.background_embedding HOME``: embed HOME's waiting notes.
    Detached, so every failure is a line in the store's logs/embedding.log."""
    yield_to_sessions()  # first, before any thread starts: they inherit it
    if len(argv) != 1:
        print(f"usage: python -m {MODULE} HOME", file=sys.stderr)
        return 2
    root = Path(argv[0])
    try:
        embed_backlog(root)
    except VectorsUnavailable as exc:  # the model cannot load: searches say so themselves
        log_to_store(log, root, LOG_NAME)
        log.warning("background embedding stopped, searches use keywords only: %s", exc)
    except Exception:
        log_to_store(log, root, LOG_NAME)
        log.exception("background embedding failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
