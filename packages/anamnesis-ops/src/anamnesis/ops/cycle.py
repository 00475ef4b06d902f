"""The sync cycle, the one way anything here syncs: Claude Code's own memory imported (when
asked), the secrets of every outgoing note masked and committed so, then a sync with the
remote or a reported conflict settled, then what changed reindexed.

The CLI's sync (every ``--resolve`` mode), ``init``'s first sync, the sync hook, the
background worker and the dashboard's Sync button call :func:`run_sync`; the MCP server's
``sync_memory`` calls :func:`sync_with` over the backend it made on first use. A commit made
for a later sync to send (reflect, merge, compact, ``secrets scan --fix``, ``clean
--everywhere``) goes through :func:`commit_for_sync`. Masking is a step of the store's cycle
(``anamnesis.store.sync_cycle``), not of any caller's, so no caller can skip it.
:meth:`SyncReport.as_dict` is the one shape a cycle is reported in.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anamnesis.ops.keep_both import store_fork
from anamnesis.ops.native import ImportReport, import_native_memory
from anamnesis.store import (
    MaskedFile,
    MemoryStore,
    NoteTrees,
    ReindexReport,
    commit_outgoing,
    sync_cycle,
)

if TYPE_CHECKING:
    from anamnesis.ops.home import Home
    from anamnesis.ops.remotes.home_view import RemotesHome
    from anamnesis.ops.remotes.multi_cycle import RemoteReport
    from anamnesis.sync import Strategy, SyncBackend, SyncResult


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one cycle did: the sync's result, the reindex of what it changed (None: nothing
    did), the import of Claude Code's memory (None: not asked), and the outgoing notes whose
    secrets were masked (and committed so) first. ``remotes``: each named remote's cycle
    (none with one remote); ``result`` is always the default remote's (memory/.git)."""

    result: SyncResult
    reindexed: ReindexReport | None
    imported: ImportReport | None
    masked: tuple[MaskedFile, ...] = ()
    remotes: tuple[RemoteReport, ...] = ()

    @property
    def remote_errors(self) -> list[str]:
        """Every remote's error (the default's first), in words; a named remote's begins
        with its name."""
        errors = [self.result.remote_error] if self.result.remote_error else []
        return errors + [
            f"{remote.name}: {text}"
            for remote in self.remotes
            if (text := remote.as_dict()["remote_error"])
        ]

    def as_dict(self) -> dict[str, Any]:
        """The report as every front end shows it (``--json``, the MCP tool, the dashboard).

        ``indexed`` counts notes new or changed in the index, ``removed`` notes deleted on
        another machine and dropped from it, ``imported`` notes created or updated from
        Claude Code's memory, ``masked`` the paths of outgoing notes whose secrets were
        masked before anything was pushed."""
        result, reindexed, imported = self.result, self.reindexed, self.imported
        named = {"remotes": [remote.as_dict() for remote in self.remotes]} if self.remotes else {}
        return {
            "pushed": result.pushed,
            "pulled": result.pulled,
            "conflicted": result.conflicted,
            "conflicts": list(result.conflicts),
            "head": result.head,
            "indexed": reindexed.indexed if reindexed else 0,
            "removed": reindexed.removed if reindexed else 0,
            "imported": imported.created + imported.updated if imported else 0,
            "masked": [found.path for found in self.masked],
            "detail": result.detail,
            "remote_error": result.remote_error or None,
            **named,
        }


def run_sync(
    home: Home,
    store: MemoryStore,
    *,
    resolve: Strategy | None = None,
    claude_dir: Path | None = None,
) -> SyncReport:
    """One cycle for ``store`` (the store of ``home``) with the home's sync backend.

    ``claude_dir``: import Claude Code's own memory from there first (None: no import; a
    resolve never imports, it settles what is already there). ``resolve``: settle a
    reported conflict with that strategy instead of a plain sync; keep-both writes both
    versions as valid notes through the store's codec (:func:`store_fork`).
    """
    backend = home.sync_backend()  # the machine id read once, for the backend and the notes
    return sync_with(
        store, backend, machine_id=backend.machine_id, resolve=resolve, claude_dir=claude_dir
    )


def sync_with(
    store: MemoryStore,
    backend: SyncBackend,
    *,
    machine_id: str,
    resolve: Strategy | None = None,
    claude_dir: Path | None = None,
) -> SyncReport:
    """:func:`run_sync` over a given backend (the MCP server's, made on first use; a test's
    with a short lock wait). ``machine_id`` names this machine in imported and forked
    notes. A home's backend with named remotes (its ``owns`` is the home's
    ``OwnedPaths``) syncs every remote of that home."""
    from anamnesis.ops.remotes.owned import OwnedPaths

    owns = getattr(backend, "owns", None)
    if isinstance(owns, OwnedPaths):
        return _sync_every_remote(
            owns.home, store, backend, machine_id, resolve=resolve, claude_dir=claude_dir
        )
    return _sync_one(store, backend, machine_id, resolve=resolve, claude_dir=claude_dir)


def _sync_one(
    store: MemoryStore,
    backend: SyncBackend,
    machine_id: str,
    *,
    resolve: Strategy | None = None,
    claude_dir: Path | None = None,
) -> SyncReport:
    """The cycle of one backend, as it always was."""
    imported = None
    if claude_dir is not None and resolve is None:
        imported = import_native_memory(store, claude_dir=claude_dir, machine_id=machine_id)
    fork = None if resolve is None else store_fork(machine_id)
    cycle = sync_cycle(store, backend, resolve=resolve, fork=fork)
    return SyncReport(cycle.result, cycle.reindexed, imported, cycle.masked)


def _sync_every_remote(
    home: RemotesHome,
    store: MemoryStore,
    backend: SyncBackend,
    machine_id: str,
    *,
    resolve: Strategy | None,
    claude_dir: Path | None,
) -> SyncReport:
    """The default remote's cycle (memory/.git, owning only its notes), then each named
    remote's; a failure of one never stops the others (the default's is raised after)."""
    from anamnesis.ops.remotes.config import remote_specs
    from anamnesis.ops.remotes.multi_cycle import after_default, owns_of, sync_named
    from anamnesis.sync import NothingToResolve, SyncError, head_commit

    failure: Exception | None = None
    report: SyncReport | None = None
    owns = owns_of(backend)
    if owns is not None:  # each cycle routes by the pins and config as they are now
        owns.fresh()
    try:
        old_head = head_commit(home.memory_dir)
        try:
            report = _sync_one(store, backend, machine_id, resolve=resolve, claude_dir=claude_dir)
        except NothingToResolve:  # a resolve of every remote: nothing open on this one
            report = _sync_one(store, backend, machine_id, claude_dir=claude_dir)
        after_default(home, store, owns, old_head, report.result)
    except SyncError as exc:
        failure = exc
    named = sync_named(
        home,
        store,
        remote_specs(home.config()),
        resolve=resolve,
        fork=None if resolve is None else lambda: store_fork(machine_id),
    )
    if report is None:
        assert failure is not None
        raise failure
    return dataclasses.replace(report, remotes=named)


def commit_for_sync(home: Home, notes: MemoryStore | NoteTrees, message: str) -> str | None:
    """Commit what changed in the notes folder for the next sync to send, its secrets masked
    first as the cycle masks them; the short head (None when nothing was committed).

    ``notes``: the store, or ``NoteTrees`` where no index may be opened (``clean``)."""
    return commit_outgoing(notes, home.sync_backend(), message)
