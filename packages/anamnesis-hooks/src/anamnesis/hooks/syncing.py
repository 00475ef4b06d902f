"""The sync hook (and the CLI's sync, every --resolve mode included): file the captures
still queued, mirror Claude Code's own memory, then the store's sync cycle (mask secrets in
what is about to go out, sync with the remote, reindex what came in)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from anamnesis.hooks.native import ImportReport, import_native_memory
from anamnesis.store import MaskedFile, MemoryStore, ReindexReport, sync_cycle
from anamnesis.sync import Fork, GitSyncBackend, Strategy, SyncResult


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one sync hook did."""

    result: SyncResult
    reindexed: ReindexReport | None
    imported: ImportReport | None
    masked: tuple[MaskedFile, ...] = ()


def sync_store(
    store: MemoryStore,
    *,
    machine_id: str,
    remote: str | None,
    claude_dir: Path | None = None,
    import_native: bool = True,
    resolve: Strategy | None = None,
    fork: Fork | None = None,
) -> SyncReport:
    """File the queued captures (unless the background worker is filing them), import
    native memory (if asked), then the store's sync cycle: mask secrets in the outgoing
    notes (committed on their own, saying so), sync (or settle a conflict with the
    ``resolve`` strategy), reindex the files it changed."""
    _file_queued_captures(store, machine_id)
    imported = None
    if import_native and claude_dir is not None:
        imported = import_native_memory(store, claude_dir=claude_dir, machine_id=machine_id)
    backend = GitSyncBackend(store.memory_dir, remote=remote, machine_id=machine_id)
    cycle = sync_cycle(store, backend, resolve=resolve, fork=fork)
    return SyncReport(cycle.result, cycle.reindexed, imported, cycle.masked)


def _file_queued_captures(store: MemoryStore, machine_id: str) -> None:
    """Captures a dead worker left queued are filed here, by whoever syncs next (the
    worker itself has filed them already, and holds the lock this would need)."""
    from anamnesis.hooks.capture_queue import file_queued, queued_captures
    from anamnesis.hooks.worker import work

    if not queued_captures(store.root):
        return

    def file(tried: set[str]) -> bool:
        return file_queued(store, machine_id=machine_id, tried=tried)

    work(store.root, file=file, sync=lambda: None)  # the sync asked for is the one to come
