"""The sync hook (and the CLI's sync, every --resolve mode included): file the captures
still queued, then the one sync cycle (``anamnesis.ops.run_sync``: Claude Code's own memory
imported, secrets masked in what is about to go out, sync with the remote, what came in
reindexed)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.hooks.capture_queue import file_queued, queued_captures
from anamnesis.hooks.worker import work
from anamnesis.ops import run_sync

if TYPE_CHECKING:
    from anamnesis.ops import Home, SyncReport
    from anamnesis.store import MemoryStore
    from anamnesis.sync import Strategy


def sync_store(
    home: Home,
    store: MemoryStore,
    *,
    claude_dir: Path | None = None,
    resolve: Strategy | None = None,
) -> SyncReport:
    """File the queued captures (unless the background worker is filing them), then the
    sync cycle: Claude Code's memory imported from ``claude_dir`` (None: no import), the
    outgoing notes' secrets masked (committed on their own, saying so), a sync (or a
    reported conflict settled with the ``resolve`` strategy), the changed files reindexed."""
    _file_queued_captures(store, home.machine_id)
    return run_sync(home, store, resolve=resolve, claude_dir=claude_dir)


def _file_queued_captures(store: MemoryStore, machine_id: str) -> None:
    """Captures a dead worker left queued are filed here, by whoever syncs next (the
    worker itself has filed them already, and holds the lock this would need)."""
    if not queued_captures(store.root):
        return

    def file(tried: set[str]) -> bool:
        return file_queued(store, machine_id=machine_id, tried=tried)

    work(store.root, file=file, sync=lambda: None)  # the sync asked for is the one to come
