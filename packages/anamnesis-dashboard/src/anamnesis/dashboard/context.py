"""What every page handler needs: the home and its store, the history cache, the guard's
secrets, and the checks the status panel shows. One per dashboard, made at start-up."""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from pathlib import Path

from anamnesis.dashboard.security import Guard
from anamnesis.dashboard.views.history_cache import HistoryCache
from anamnesis.dashboard.views.status_checks import DoctorCache
from anamnesis.ops import Home, embed_backlog
from anamnesis.store import MemoryStore

HISTORY_FILE = "history.db"  # in the home's cache folder: derived, rebuilt when missing
# A named remote's history (its mirror folder's commits), beside it: ``history-remote-<name>.db``
# (remote names are checked by ops' config: lower-case letters, digits and '-').
REMOTE_HISTORY_FILE = "history-remote-{name}.db"

log = logging.getLogger(__name__)


@dataclass
class Dashboard:
    """The running dashboard's state. ``store`` serves the pages (a sync opens its own:
    :mod:`.sync_action`); ``doctor`` runs the status panel's checks."""

    home: Home
    store: MemoryStore
    history: HistoryCache
    guard: Guard
    machine_id: str
    doctor: DoctorCache
    # Saves are checked and written one at a time: two tabs saving the same note must not
    # both pass the content-hash check before either writes.
    save_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    sync_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    _embedder: threading.Thread | None = field(default=None, repr=False)
    _remote_histories: dict[str, HistoryCache] = field(default_factory=dict, repr=False)
    _histories_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def remote_history(self, name: str, repo_dir: Path) -> HistoryCache:
        """The history cache of one remote: the default remote's is :attr:`history`
        (``memory/.git``); a named remote's is its mirror folder's, made on first use."""
        if repo_dir == self.history.repo_dir:
            return self.history
        with self._histories_lock:
            cache = self._remote_histories.get(name)
            if cache is None or cache.repo_dir != repo_dir:
                path = self.home.layout.cache_dir / REMOTE_HISTORY_FILE.format(name=name)
                cache = self._remote_histories[name] = HistoryCache(repo_dir, path)
            return cache

    @property
    def csrf(self) -> str:
        return self.guard.csrf

    def catch_up_embedding(self) -> None:
        """Give the notes a save or a sync changed their vectors, in a thread of this
        process (the dashboard starts no program), as `anamnesis write` and `sync` do with
        their background process. It is the store's one embedder only through ops'
        embedding turn: when another process holds it, that one embeds these notes too and
        the thread ends at once; where searches do not use vectors it does nothing."""
        if self._embedder is not None and self._embedder.is_alive():
            return  # it looks again for notes waiting before it ends
        self._embedder = threading.Thread(
            target=_embed_quietly, args=(self.home.root,), name="anamnesis-embedding",
            daemon=True,
        )  # fmt: skip
        self._embedder.start()

    def close(self) -> None:
        self.history.close()
        for cache in self._remote_histories.values():
            cache.close()
        self.store.close()


def _embed_quietly(root: Path) -> None:
    """The thread's work: never an exception out of it (the save or sync is done; the notes
    are found by keywords until embedded, and the next write, sync or search tries again)."""
    try:
        embed_backlog(root, lock_wait_s=0.0)
    except Exception:
        log.warning("embedding the new notes failed; the next sync or search tries again",
                    exc_info=True)  # fmt: skip
