"""anamnesis.sync: move the notes folder between machines through any git remote.

Pure Python (dulwich): no git binary needed. Importing the package is cheap: dulwich loads
when the git backend is first used, so a caller that only needs the types or
``redact_url`` (an MCP server starting, a status line) does not pay for it.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.sync.backend import (
        STRATEGIES,
        GitLock,
        Strategy,
        SyncBackend,
        SyncResult,
        SyncState,
        Unsynced,
    )
    from anamnesis.sync.errors import DiskFull, NothingToResolve, SyncBusy, SyncError
    from anamnesis.sync.fork import CONFLICT_KEY, CONFLICT_TAG, Fork, Forked, fork_note, new_ulid
    from anamnesis.sync.git import GitSyncBackend
    from anamnesis.sync.history import (
        ChangedFile,
        CommitChanges,
        head_commit,
        new_commits,
        read_blob,
        unreachable_commits,
    )
    from anamnesis.sync.lock import sync_lock
    from anamnesis.sync.remote import is_local, redact_url
    from anamnesis.sync.transport import check_remote
    from anamnesis.sync.worktree import SYNC_LOCK_FILE

__version__ = "0.3.0"

_EXPORTS: dict[str, str] = {
    "CONFLICT_KEY": "anamnesis.sync.fork",
    "CONFLICT_TAG": "anamnesis.sync.fork",
    "STRATEGIES": "anamnesis.sync.backend",
    "SYNC_LOCK_FILE": "anamnesis.sync.worktree",
    "ChangedFile": "anamnesis.sync.history",
    "CommitChanges": "anamnesis.sync.history",
    "DiskFull": "anamnesis.sync.errors",
    "Fork": "anamnesis.sync.fork",
    "Forked": "anamnesis.sync.fork",
    "GitLock": "anamnesis.sync.backend",
    "GitSyncBackend": "anamnesis.sync.git",
    "NothingToResolve": "anamnesis.sync.errors",
    "Strategy": "anamnesis.sync.backend",
    "SyncBackend": "anamnesis.sync.backend",
    "SyncBusy": "anamnesis.sync.errors",
    "SyncError": "anamnesis.sync.errors",
    "SyncResult": "anamnesis.sync.backend",
    "SyncState": "anamnesis.sync.backend",
    "Unsynced": "anamnesis.sync.backend",
    "check_remote": "anamnesis.sync.transport",
    "fork_note": "anamnesis.sync.fork",
    "head_commit": "anamnesis.sync.history",
    "is_local": "anamnesis.sync.remote",
    "new_commits": "anamnesis.sync.history",
    "new_ulid": "anamnesis.sync.fork",
    "read_blob": "anamnesis.sync.history",
    "redact_url": "anamnesis.sync.remote",
    "sync_lock": "anamnesis.sync.lock",
    "unreachable_commits": "anamnesis.sync.history",
}

__all__ = [
    "CONFLICT_KEY",
    "CONFLICT_TAG",
    "STRATEGIES",
    "SYNC_LOCK_FILE",
    "ChangedFile",
    "CommitChanges",
    "DiskFull",
    "Fork",
    "Forked",
    "GitLock",
    "GitSyncBackend",
    "NothingToResolve",
    "Strategy",
    "SyncBackend",
    "SyncBusy",
    "SyncError",
    "SyncResult",
    "SyncState",
    "Unsynced",
    "check_remote",
    "fork_note",
    "head_commit",
    "is_local",
    "new_commits",
    "new_ulid",
    "read_blob",
    "redact_url",
    "sync_lock",
    "unreachable_commits",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'anamnesis.sync' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
