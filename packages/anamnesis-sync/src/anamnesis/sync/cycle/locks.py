"""Git lock files left by a process that died mid-write: found, and recovered.

dulwich, like git, writes the index, refs, ``HEAD``, ``config``, ``packed-refs`` and loose
objects through a ``<name>.lock`` file that is created exclusively and renamed into place.
A process killed in between (``kill -9``; Claude Code ends a hook at its timeout) leaves
the lock behind, and every later write of that file fails with ``FileLocked``: sync
stopped working for good. The lock only guards the write: the file it was replacing is
intact, so removing a dead writer's lock loses nothing.

When is a lock a dead writer's? Every sync of ours runs under our own sync lock (an
operating-system lock, dropped when its process dies), so while we hold it no sync of ours
is writing. A lock could still belong to a git command the user is running in the notes
folder at that moment (``git status`` refreshes the index under ``index.lock``), so a
young lock is waited for, up to :data:`STALE_AFTER_S` since it was last written; a lock
older than that is treated as stale and removed, with a warning. The one cost: a ``git
commit`` whose editor stays open longer than that in the notes folder, while a sync runs,
loses its lock (and so fails; the notes are untouched). The notes folder is ours; that
trade is worth a sync that can never be stopped for good by one killed process.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from anamnesis.sync.model.backend import GitLock
from anamnesis.sync.model.errors import SyncError

# Seconds since a lock was last written after which no live writer is assumed to hold it.
STALE_AFTER_S = 5.0
_POLL_S = 0.05
_SUFFIX = ".lock"

log = logging.getLogger("anamnesis.sync")


def find_git_locks(repo_dir: Path) -> list[GitLock]:
    """Every ``*.lock`` in ``repo_dir/.git``, with its age; no lock is touched."""
    git_dir = repo_dir / ".git"
    if not git_dir.is_dir():
        return []
    now = time.time()
    found: list[GitLock] = []
    for dirpath, dirnames, filenames in os.walk(git_dir):
        # A directory named like a lock blocks a write just as a file does (the exclusive
        # create fails): it is reported, and not walked into.
        locked_dirs = [name for name in dirnames if name.endswith(_SUFFIX)]
        dirnames[:] = [name for name in dirnames if not name.endswith(_SUFFIX)]
        for name in [*filenames, *locked_dirs]:
            if not name.endswith(_SUFFIX):
                continue
            absolute = Path(dirpath, name)
            try:
                mtime = absolute.lstat().st_mtime
            except FileNotFoundError:
                continue  # its writer just finished
            relative = absolute.relative_to(repo_dir).as_posix()
            found.append(GitLock(relative, max(0.0, now - mtime)))
    return sorted(found, key=lambda lock: lock.path)


def recover_stale_locks(repo_dir: Path, *, stale_after_s: float = STALE_AFTER_S) -> list[GitLock]:
    """Remove the git locks no live writer holds; return them (each is logged).

    Only call this while holding the sync lock (see the module docstring). A lock younger
    than ``stale_after_s`` is waited for: gone, its writer finished; still there once that
    old, its writer is gone. Raises :class:`SyncError`, saying what to do, when a stale
    lock cannot be removed.
    """
    removed: list[GitLock] = []
    # A bound on the wait, even if a git command kept taking new locks all along.
    deadline = time.monotonic() + stale_after_s + 1.0
    while True:
        young = False
        for lock in find_git_locks(repo_dir):
            if lock.age_s < stale_after_s:
                young = True
                continue
            _remove(repo_dir, lock)
            removed.append(lock)
        if not young or time.monotonic() >= deadline:
            return removed
        time.sleep(_POLL_S)


def _remove(repo_dir: Path, lock: GitLock) -> None:
    try:
        (repo_dir / lock.path).unlink()
    except FileNotFoundError:
        return  # its writer finished after all
    except OSError as exc:
        raise SyncError(
            f"cannot remove the stale git lock {lock.path} in {repo_dir} "
            f"({exc.strerror or exc}), last written {describe_age(lock.age_s)} ago: "
            "if no git command is running there, remove it by hand and sync again"
        ) from None
    log.warning(
        "removed the stale git lock %s in %s, last written %s ago: a process died while "
        "writing (a sync ended at a hook's timeout?); the file it guarded is intact",
        lock.path,
        repo_dir,
        describe_age(lock.age_s),
    )


def describe_age(seconds: float) -> str:
    """A lock's age in words: "4 s", "12 min", "3 h", "2 d"."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} d"


def locked_message(repo_dir: Path, exc: BaseException) -> str:
    """What to tell the user when a write still meets a lock (dulwich's ``FileLocked``):
    a git command kept it longer than the wait for a live writer."""
    raw = getattr(exc, "lockfilename", None)
    path = os.fsdecode(raw) if isinstance(raw, str | bytes) else str(exc)
    try:
        path = os.path.relpath(path, repo_dir).replace(os.sep, "/")
    except ValueError:  # another drive (Windows): the full path says it as well
        pass
    return (
        f"{path} in {repo_dir} is locked by a git command that is still running; sync "
        "again once it is done (a lock left by a process that died is removed by the next "
        f"sync once it is {STALE_AFTER_S:.0f} s old)"
    )


def locks_detail(locks: tuple[GitLock, ...] | list[GitLock]) -> str:
    """One line for a status report about the locks found."""
    listed = ", ".join(f"{lock.path} ({describe_age(lock.age_s)} old)" for lock in locks)
    return (
        f"git lock file(s) {listed}: a git command running now, or a process that died "
        f"mid-write; the next sync removes any older than {STALE_AFTER_S:.0f} s"
    )
