"""What every page handler needs: the store, the history cache, the guard's secrets, and
how to run the ``anamnesis`` command. One per dashboard process, made at start-up."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from anamnesis.dashboard.cli_runner import DoctorCache
from anamnesis.dashboard.history_cache import HistoryCache
from anamnesis.dashboard.security import Guard
from anamnesis.store import MemoryStore

HISTORY_CACHE = Path("cache") / "history.db"


@dataclass
class Dashboard:
    """The running dashboard's state. ``cli`` is the argv prefix that runs ``anamnesis``
    (for a sync and doctor's checks); None when this install has no CLI."""

    home: Path
    store: MemoryStore
    history: HistoryCache
    guard: Guard
    machine_id: str
    cli: tuple[str, ...] | None
    doctor: DoctorCache = field(default_factory=DoctorCache)
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
