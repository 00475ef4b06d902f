"""What a sync backend promises, independent of git."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol

# How `resolve` settles a conflict (see GitSyncBackend.resolve).
Strategy = Literal["keep-both", "ours", "theirs"]
STRATEGIES: tuple[Strategy, ...] = ("keep-both", "ours", "theirs")


@dataclass(frozen=True, slots=True)
class SyncResult:
    """The outcome of one sync cycle.

    ``changed`` lists the note files (relative to the synced folder) whose content on disk
    changed because of what was pulled or resolved, so a caller can reindex only those.
    ``conflicts`` names the files changed on both sides when ``conflicted`` is True.
    ``remote_error`` says why the remote could not be fetched from or pushed to (empty when
    it could, or when there is no remote); local changes are committed either way.
    """

    pushed: bool
    pulled: int
    conflicted: bool
    head: str | None
    detail: str
    changed: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()
    committed: bool = False
    remote_error: str = ""


@dataclass(frozen=True, slots=True)
class SyncState:
    """Where the synced folder stands, without touching the network.

    ``ahead``/``behind`` count commits against the remote as of the last fetch (None when
    unknown: never fetched, or no remote).
    """

    initialized: bool
    remote: str | None
    head: str | None
    dirty: bool
    detail: str
    ahead: int | None = None
    behind: int | None = None
    conflicts: tuple[str, ...] = field(default=())


class SyncBackend(Protocol):
    """Moves the portable notes folder between machines."""

    def init(self) -> None:
        """Make the folder ready to sync (idempotent)."""

    def commit_local(self) -> str | None:
        """Record local changes without touching the network; return the short head, if any
        (the same form as ``SyncResult.head`` and ``SyncState.head``)."""

    def sync(self) -> SyncResult:
        """Commit, exchange with the remote, integrate, push."""

    def state(self) -> SyncState:
        """Report the current state without touching the network."""
