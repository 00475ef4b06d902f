"""Failures a caller of the sync package must see."""

from __future__ import annotations


class SyncError(Exception):
    """A sync could not run or finish; the message says what to do about it."""


class SyncBusy(SyncError):
    """Another sync of the same repository is running on this machine."""


class DiskFull(SyncError):
    """The disk ran out of space during a sync. Nothing is half-written (a pulled file is
    written whole before it takes its name, and the branch moves only once every file is
    in place): the message says what was done and what to free, and the next sync, with
    space, finishes the work (full_disk.py)."""


class NothingToResolve(SyncError):
    """resolve() was called but local and remote do not conflict."""
