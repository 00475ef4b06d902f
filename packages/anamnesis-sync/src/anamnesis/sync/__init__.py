"""anamnesis.sync: move the notes folder between machines through any git remote.

Pure Python (dulwich): no git binary needed.

The public names are the ``from ... import NAME as NAME`` lines under ``if TYPE_CHECKING``
below, declared once: type checkers read them as re-exports, and at run time the same
lines, read from this file, give ``__all__`` and load each name's module on first use.
Lazily, because two processes import the package for a few names that need no git: the
background worker (``sync_lock``, ``SyncBusy``) and the MCP server (the records, the
errors, ``redact_url``). Importing dulwich first would cost each ~0.3 s (with warm
bytecode): a capture filed that much later, an MCP server that much slower to start.
"""

import ast as _ast
import typing as _typing
from importlib import import_module as _import_module
from pathlib import Path as _Path

# `typing.TYPE_CHECKING` through a private name: the package shows no name but its own.
if _typing.TYPE_CHECKING:
    from anamnesis.sync.cycle.git import GitSyncBackend as GitSyncBackend
    from anamnesis.sync.cycle.lock import sync_lock as sync_lock
    from anamnesis.sync.model.backend import STRATEGIES as STRATEGIES
    from anamnesis.sync.model.backend import CommittedFile as CommittedFile
    from anamnesis.sync.model.backend import DescribeCommit as DescribeCommit
    from anamnesis.sync.model.backend import GitLock as GitLock
    from anamnesis.sync.model.backend import OwnsPath as OwnsPath
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

__version__ = "0.5.0"


def _read_table() -> dict[str, str]:
    """Each public name, with the module that defines it: the re-exports under ``if
    TYPE_CHECKING`` above, read from this file as type checkers read it, so that no
    second list can drift from them."""
    tree = _ast.parse(_Path(__file__).read_bytes(), __file__)
    [block] = [
        node
        for node in tree.body
        if isinstance(node, _ast.If) and _ast.unparse(node.test) == "_typing.TYPE_CHECKING"
    ]
    table: dict[str, str] = {}
    for node in block.body:
        if not isinstance(node, _ast.ImportFrom) or node.module is None or node.level:
            raise ImportError(f"{__file__}:{node.lineno}: only 'from M import N as N' here")
        for alias in node.names:
            if alias.asname != alias.name or alias.name in table:
                raise ImportError(f"{__file__}:{node.lineno}: {alias.name}: not declared once")
            table[alias.name] = node.module
    return table


_TABLE = _read_table()
__all__ = sorted(_TABLE)

if not _typing.TYPE_CHECKING:  # type checkers see the names above, never a __getattr__

    def __getattr__(name: str) -> object:
        """Load a public name's module on first use; the name is then set here, so later
        lookups never come back."""
        module = _TABLE.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(_import_module(module), name)
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
