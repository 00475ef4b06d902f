"""The sync cycle, whoever runs it: mask what would go out, sync (or settle a conflict),
then make what changed searchable.

What a push sends is what was committed, so nothing unmasked may be committed for one:
every path that pushes runs :func:`sync_cycle` (the CLI's sync and each ``--resolve``
mode, the dashboard's Sync button through the CLI, the MCP server's sync tool, the hooks'
sync), and every commit made for a later sync to send goes through
:func:`commit_outgoing` (reflect, merge, compact, ``secrets scan --fix``, ``clean
--everywhere``). The store never imports the sync package: a backend is what the
protocols below say (``anamnesis.sync.SyncBackend`` is one).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from anamnesis.store.record import Record
from anamnesis.store.secrets.secret_scan import MaskedFile, MaskingStore, Outgoing, mask_outgoing

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from anamnesis.store.note.model import ReindexReport


class Changed(Protocol):
    """A sync's result, as far as the cycle reads it: the note files it changed on disk
    (relative to the synced folder)."""

    @property
    def changed(self) -> Sequence[str]: ...


R = TypeVar("R", bound=Changed, covariant=True)
Result = TypeVar("Result", bound=Changed)


class Syncing(Outgoing, Protocol[R]):
    """What the cycle needs of a sync backend: what it would send, a local commit, a sync
    and a resolve (``anamnesis.sync.SyncBackend`` has all four)."""

    def sync(self) -> R: ...

    def resolve(self, strategy: Any, *, fork: Any = None) -> R: ...


class CycleStore(MaskingStore, Protocol):
    """What the cycle needs of a store (``MemoryStore`` has it)."""

    def reindex_changed(self, changed: Iterable[str]) -> ReindexReport | None: ...


class SyncCycle(Record, Generic[Result]):
    """What one cycle did: the sync's result, the outgoing notes whose secrets were masked
    (and committed so) first, and the reindex of what it changed (None: nothing did)."""

    __slots__ = ("masked", "reindexed", "result")

    def __init__(
        self, result: Result, masked: tuple[MaskedFile, ...], reindexed: ReindexReport | None
    ) -> None:
        self.result = result
        self.masked = masked
        self.reindexed = reindexed


def sync_cycle(
    store: CycleStore,
    backend: Syncing[Result],
    *,
    resolve: str | None = None,
    fork: Any = None,
) -> SyncCycle[Result]:
    """Mask the secrets in every note the backend would send (committed on their own,
    saying so), then sync, or settle a reported conflict with the ``resolve`` strategy
    (``fork``: how keep-both rewrites the two versions), then reindex the files it
    changed. The one way anything here syncs."""
    masked = tuple(mask_outgoing(store, backend))
    result = backend.sync() if resolve is None else backend.resolve(resolve, fork=fork)
    return SyncCycle(result, masked, store.reindex_changed(result.changed))


def commit_outgoing(store: MaskingStore, backend: Outgoing, message: str) -> str | None:
    """Commit what changed in the notes for a later sync to send, its secrets masked first
    (as the cycle masks them); return the short head, as ``commit_local`` does."""
    mask_outgoing(store, backend)
    return backend.commit_local(message)
