"""Failures a caller of the sync package must see."""

from __future__ import annotations


class SyncError(Exception):
    """A sync could not run or finish; the message says what to do about it."""


class SyncBusy(SyncError):
    """Another sync of the same repository is running on this machine."""


class NothingToResolve(SyncError):
    """resolve() was called but local and remote do not conflict."""
