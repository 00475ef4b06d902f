"""anamnesis.sync: move the notes folder between machines through any git remote.

Pure Python (dulwich): no git binary needed.

The public surface is the table of ``from ... import NAME as NAME`` lines below, and only
it: the ``as`` form is what type checkers take as a re-export, and ``__all__`` is read off
the same lines at import (every public name they bound), so a name is declared once. The
imports are plain: no session hook waits on sync (the sync hook runs in the background,
the worker and the CLI are their own processes), so nothing here is deferred.
"""

from types import ModuleType as _ModuleType

from anamnesis.sync.cycle.git import GitSyncBackend as GitSyncBackend
from anamnesis.sync.cycle.lock import sync_lock as sync_lock
from anamnesis.sync.model.backend import STRATEGIES as STRATEGIES
from anamnesis.sync.model.backend import GitLock as GitLock
from anamnesis.sync.model.backend import Strategy as Strategy
from anamnesis.sync.model.backend import SyncBackend as SyncBackend
from anamnesis.sync.model.backend import SyncResult as SyncResult
from anamnesis.sync.model.backend import SyncState as SyncState
from anamnesis.sync.model.backend import Unsynced as Unsynced
from anamnesis.sync.model.errors import DiskFull as DiskFull
from anamnesis.sync.model.errors import NothingToResolve as NothingToResolve
from anamnesis.sync.model.errors import SyncBusy as SyncBusy
from anamnesis.sync.model.errors import SyncError as SyncError
from anamnesis.sync.model.fork import CONFLICT_KEY as CONFLICT_KEY
from anamnesis.sync.model.fork import CONFLICT_TAG as CONFLICT_TAG
from anamnesis.sync.model.fork import Fork as Fork
from anamnesis.sync.model.fork import Forked as Forked
from anamnesis.sync.model.fork import fork_note as fork_note
from anamnesis.sync.model.fork import new_ulid as new_ulid
from anamnesis.sync.objects.history import ChangedFile as ChangedFile
from anamnesis.sync.objects.history import CommitChanges as CommitChanges
from anamnesis.sync.objects.history import head_commit as head_commit
from anamnesis.sync.objects.history import new_commits as new_commits
from anamnesis.sync.objects.history import read_blob as read_blob
from anamnesis.sync.objects.history import unreachable_commits as unreachable_commits
from anamnesis.sync.remote.transport import check_remote as check_remote
from anamnesis.sync.remote.urls import is_local as is_local
from anamnesis.sync.remote.urls import redact_url as redact_url
from anamnesis.sync.tree.worktree import SYNC_LOCK_FILE as SYNC_LOCK_FILE

__version__ = "0.3.0"

# Every public name the table bound. Importing the table also binds the rooms themselves
# (`cycle`, `model`, ...: Python sets a package's imported subpackages on it); those are
# not API, and neither is anything with a leading underscore.
__all__ = sorted(
    name
    for name, value in globals().items()
    if not name.startswith("_") and not isinstance(value, _ModuleType)
)
