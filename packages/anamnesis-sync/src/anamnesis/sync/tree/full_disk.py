"""A disk that fills up during a sync, said in words (:class:`~.errors.DiskFull`).

Running out of space breaks nothing: a pulled file is written whole beside its name and
only then renamed over it (durable_writes.py), the files in place are indexed as they land,
and the branch moves only once every file is (worktree.Applied). So the next sync, with
space, finishes the pull. What the user needs is where the disk is full, how much is free,
and, for a pull, how many notes were written and how much the rest holds.
"""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from anamnesis.sync.model.errors import DiskFull

# No space left, or the user's quota spent (where the platform has quotas).
_FULL = frozenset(code for code in (errno.ENOSPC, getattr(errno, "EDQUOT", None)) if code)


def is_full(exc: BaseException) -> bool:
    """True when ``exc`` says a write found no space (or no quota) left."""
    return isinstance(exc, OSError) and exc.errno in _FULL


def pull_stopped(folder: Path, exc: OSError, *, written: int, rest: list[int]) -> DiskFull:
    """A pull that ran out of space after writing ``written`` notes, with notes of the
    sizes in ``rest`` still to write."""
    planned = written + len(rest)
    error = DiskFull(
        f"the disk holding {folder} is full: the pull wrote {written} of the {planned} notes "
        f"it brings before it ran out of space. The other {len(rest)} need about "
        f"{size(_on_disk(folder, rest))} and the disk has {_free(folder)} free (the index "
        "needs room too). Every note written is whole; free some space and sync again to "
        "finish the pull."
    )
    error.__cause__ = exc
    return error


def sync_stopped(folder: Path, exc: OSError) -> DiskFull:
    """Any other step of a sync (committing, fetching, the git index) that found no space."""
    error = DiskFull(
        f"the disk holding {folder} is full ({_free(folder)} free): the sync stopped "
        f"({exc.strerror or exc}). Nothing was left half-written; free some space and sync "
        "again."
    )
    error.__cause__ = exc
    return error


def size(count: int) -> str:
    """A byte count for people: ``812 bytes``, ``4.1 KB``, ``2.3 MB``, ``1.2 GB``."""
    value, unit = float(count), "bytes"
    for larger in ("KB", "MB", "GB", "TB"):
        if value < 1000:
            break
        value, unit = value / 1000, larger
    return f"{count} bytes" if unit == "bytes" else f"{value:.1f} {unit}"


def _on_disk(folder: Path, sizes: list[int]) -> int:
    """What files of these sizes take on ``folder``'s disk: each a whole number of its
    blocks (a 300-byte note takes 4 KB on most file systems)."""
    try:
        block = os.statvfs(_existing(folder)).f_frsize or 1
    except (AttributeError, OSError):  # no statvfs (Windows): the sizes themselves
        block = 1
    return sum(-(-count // block) * block for count in sizes)


def _existing(folder: Path) -> Path:
    """``folder``, or its nearest ancestor that exists (a first pull makes it)."""
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            return candidate
    return folder


def _free(folder: Path) -> str:
    """The space free on ``folder``'s disk, in words ("unknown" when it cannot be read)."""
    try:
        return size(shutil.disk_usage(_existing(folder)).free)
    except OSError:
        return "unknown"
