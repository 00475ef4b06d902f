"""anamnesis.sync: move the notes folder between machines through any git remote.

Pure Python (dulwich): no git binary needed.
"""

from anamnesis.sync.backend import SyncBackend, SyncResult, SyncState
from anamnesis.sync.errors import NothingToResolve, SyncBusy, SyncError
from anamnesis.sync.fork import Fork, fork_note, new_ulid
from anamnesis.sync.git import STRATEGIES, GitSyncBackend, Strategy
from anamnesis.sync.remote import redact_url

__version__ = "0.2.0"

__all__ = [
    "STRATEGIES",
    "Fork",
    "GitSyncBackend",
    "NothingToResolve",
    "Strategy",
    "SyncBackend",
    "SyncBusy",
    "SyncError",
    "SyncResult",
    "SyncState",
    "fork_note",
    "new_ulid",
    "redact_url",
]
