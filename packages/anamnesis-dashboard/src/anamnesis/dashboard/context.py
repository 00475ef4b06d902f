"""What every page handler needs: the home and its store, the history cache, the guard's
secrets, and the checks the status panel shows. One per dashboard, made at start-up."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from anamnesis.dashboard.security import Guard
from anamnesis.dashboard.views.history_cache import HistoryCache
from anamnesis.dashboard.views.status_checks import DoctorCache
from anamnesis.ops import Home
from anamnesis.store import MemoryStore

HISTORY_FILE = "history.db"  # in the home's cache folder: derived, rebuilt when missing


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

    @property
    def csrf(self) -> str:
        return self.guard.csrf

    def close(self) -> None:
        self.history.close()
        self.store.close()
