"""What a sync left alone because it is not a plain file: gathered across the steps of one
sync (staging, each tree change), then logged once and put in the result."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable

from anamnesis.sync.model.backend import SyncResult, Unsynced

log = logging.getLogger("anamnesis.sync")


class UnsyncedReport:
    """Collects :class:`Unsynced` paths, each once, in the order met."""

    def __init__(self) -> None:
        self._found: dict[Unsynced, None] = {}

    def add(self, found: Iterable[Unsynced]) -> None:
        self._found.update(dict.fromkeys(found))

    def finish(self, result: SyncResult) -> SyncResult:
        """``result`` with the paths in ``unsynced``; each kind of problem logged once."""
        found = tuple(self._found)
        here = [f"{item.path} ({item.kind})" for item in found if not item.incoming]
        there = [f"{item.path} ({item.kind})" for item in found if item.incoming]
        if here:
            log.warning(
                "not synced, not being plain files (never followed or read): %s; "
                "replace a symlink with the file itself to sync it",
                ", ".join(here),
            )
        if there:
            log.warning(
                "not created here, being symlinks or submodules in the remote's tree "
                "(kept in the tree as they are): %s",
                ", ".join(there),
            )
        return dataclasses.replace(result, unsynced=found) if found else result
