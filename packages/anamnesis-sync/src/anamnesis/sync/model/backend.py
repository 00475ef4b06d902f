"""What a sync backend promises, independent of git."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from anamnesis.sync.model.fork import Fork

# How `resolve` settles a conflict (see GitSyncBackend.resolve).
Strategy = Literal["keep-both", "ours", "theirs"]
STRATEGIES: tuple[Strategy, ...] = ("keep-both", "ours", "theirs")


@dataclass(frozen=True, slots=True)
class CommittedFile:
    """A file a local commit changes, as its message is written: ``kind`` is
    ``"added"``, ``"edited"`` or ``"deleted"``; ``path`` is inside the synced folder,
    ``/``-separated; ``content()`` reads its bytes as committed (a deleted file's as they
    were), so a message that names a few files reads only those."""

    kind: Literal["added", "edited", "deleted"]
    path: str
    content: Callable[[], bytes]


# What a local commit says it changed (the store's ``describe_commit``): a line from its
# files, or None when they say nothing worth a line (the default message is used).
DescribeCommit = Callable[[Sequence[CommittedFile]], "str | None"]

# Which paths of the folder this backend's remote owns (a path inside the folder,
# ``/``-separated): one it does not own is never committed (committed as deleted when it
# was tracked) and an incoming change to it is never written over the file here. The
# caller's routing of notes between several remotes (``anamnesis.ops``); None: every path.
OwnsPath = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Unsynced:
    """A path sync leaves alone because it is not a plain file.

    ``path`` is relative to the synced folder, ``/``-separated. ``kind``: ``"symlink"``,
    ``"fifo"``, ``"socket"``, ``"device"``, ``"submodule"`` or ``"other"``. ``incoming``:
    True for an entry of the remote's tree (never created on disk here, kept as it is in
    the tree), False for something on disk here (never read, followed or committed).
    """

    path: str
    kind: str
    incoming: bool


@dataclass(frozen=True, slots=True)
class GitLock:
    """A git lock file: ``path`` relative to the synced folder (``.git/index.lock``), and
    how long ago it was last written, in seconds."""

    path: str
    age_s: float


@dataclass(frozen=True, slots=True)
class SyncResult:
    """The outcome of one sync cycle.

    ``changed`` lists the note files (relative to the synced folder) whose content on disk
    changed because of what was pulled or resolved, so a caller can reindex only those.
    ``conflicts`` names the files changed on both sides when ``conflicted`` is True.
    ``remote_error`` says why the remote could not be fetched from or pushed to (empty when
    it could, or when there is no remote); local changes are committed either way.
    ``unsynced`` lists what the sync left alone because it is not a plain file: symlinks,
    FIFOs, sockets and devices in the folder (never read, followed or committed), and
    symlinks or submodules in the remote's tree (never created here). Each is also logged
    as a warning on the ``anamnesis.sync`` logger.
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
    unsynced: tuple[Unsynced, ...] = ()


@dataclass(frozen=True, slots=True)
class SyncState:
    """Where the synced folder stands, without touching the network.

    ``ahead``/``behind`` count commits against the remote as of the last fetch (None when
    unknown: never fetched, or no remote). ``git_locks`` lists the git lock files in the
    repository (``.git/index.lock``, ``.git/refs/heads/main.lock``, ...): a git command
    running right now, or a process that died mid-write (a sync killed at a hook's timeout);
    the next sync waits for a young one and removes one older than a few seconds.
    ``unsynced``: as in :class:`SyncResult`.
    """

    initialized: bool
    remote: str | None
    head: str | None
    dirty: bool
    detail: str
    ahead: int | None = None
    behind: int | None = None
    conflicts: tuple[str, ...] = field(default=())
    git_locks: tuple[GitLock, ...] = ()
    unsynced: tuple[Unsynced, ...] = ()


class SyncBackend(Protocol):
    """Moves the portable notes folder between machines."""

    def init(self) -> None:
        """Make the folder ready to sync (idempotent)."""

    def local_changes(self) -> tuple[str, ...]:
        """Paths (relative to the folder) added, edited or deleted since the last commit:
        what the next sync would send, before it is committed."""

    def commit_local(self, message: str | None = None) -> str | None:
        """Record local changes without touching the network; return the short head, if any
        (the same form as ``SyncResult.head`` and ``SyncState.head``). ``message`` says
        why, in the commit (default: a sync from this machine)."""

    def sync(self) -> SyncResult:
        """Commit, exchange with the remote, integrate, push."""

    def resolve(self, strategy: Strategy, *, fork: Fork | None = None) -> SyncResult:
        """Settle the conflicts a sync reported with ``strategy`` (keep-both, ours or
        theirs; ``fork``: how keep-both rewrites the two versions), then push."""

    def state(self) -> SyncState:
        """Report the current state without touching the network."""
