"""What the default remote (memory/.git) owns when there are several remotes.

The default remote's backend is handed an :class:`OwnedPaths`: a note routed to a named
remote (by its pin, else the rules) is never committed in memory/.git (a tracked one is
committed as deleted: the tombstone commit), and an incoming change to it is never
written over the file here. Every other path is the default remote's, as it was with one
remote: files that are not notes, notes the default takes (or, with no default remote,
notes that stay local), and files absent here (a note pulled from the default remote is
the default's). The unpinned notes it claims are pinned to ``default`` once the cycle
has committed them (multi_cycle.py), so a later rule never moves them by itself.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.ops.remotes.config import DEFAULT
from anamnesis.ops.remotes.routing import NoteFacts, Router, is_note_path, read_facts

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home


RECHECK_S = 0.5


def _mark(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


class OwnedPaths:
    """``owns(rel)`` for memory/.git's backend (``anamnesis.sync.OwnsPath``). The config
    and pins are read on the first call, and again whenever either file changed (looked
    at no more than every :data:`RECHECK_S`): a backend kept for long (the MCP server's)
    never routes by pins older than the last import of a named remote."""

    def __init__(self, home: Home) -> None:
        self.home = home
        self._router: Router | None = None
        self._read: tuple[object, ...] = ()
        self._checked = 0.0
        self.claimed: set[str] = set()  # unpinned notes it owned, found on disk

    def fresh(self) -> None:
        """Read the config and the pins again at the next call (a new cycle)."""
        self._router = None
        self.claimed = set()

    def router(self) -> Router:
        now = time.monotonic()
        if self._router is not None and now - self._checked < RECHECK_S:
            return self._router
        self._checked = now
        marks = (_mark(self.home.layout.routes_path), _mark(self.home.layout.config_path))
        if self._router is None or marks != self._read:
            self._router, self._read = Router.of(self.home), marks
        return self._router

    def __call__(self, rel: str) -> bool:
        router = self.router()
        pin = router.pins.get(rel)
        if pin is not None:  # most notes, after their first sync: one lookup
            return pin == DEFAULT if router.has_default else pin not in router.names
        if not is_note_path(rel):
            return True
        found: list[NoteFacts | None] = []

        def facts() -> NoteFacts | None:
            found.append(read_facts(self.home.memory_dir / rel))
            return found[-1]

        route = router.route(rel, facts)
        owned = route.remote == DEFAULT if router.has_default else route.remote is None
        if owned and not route.pinned and found and found[-1] is not None:
            self.claimed.add(rel)
        return owned
