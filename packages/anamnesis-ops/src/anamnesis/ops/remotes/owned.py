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

from typing import TYPE_CHECKING

from anamnesis.ops.remotes.config import DEFAULT
from anamnesis.ops.remotes.routing import NoteFacts, Router, is_note_path, read_facts

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home


class OwnedPaths:
    """``owns(rel)`` for memory/.git's backend (``anamnesis.sync.OwnsPath``); the config
    and pins are read once, on the first call of a cycle (:meth:`fresh`)."""

    def __init__(self, home: Home) -> None:
        self._home = home
        self._router: Router | None = None
        self.claimed: set[str] = set()  # unpinned notes it owned, found on disk

    def fresh(self) -> None:
        """Read the config and the pins again at the next call (a new cycle)."""
        self._router = None
        self.claimed = set()

    def router(self) -> Router:
        if self._router is None:
            self._router = Router.of(self._home)
        return self._router

    def __call__(self, rel: str) -> bool:
        if not is_note_path(rel):
            return True
        router = self.router()
        path = self._home.memory_dir / rel
        found: list[NoteFacts | None] = []

        def facts() -> NoteFacts | None:
            found.append(read_facts(path))
            return found[-1]

        route = router.route(rel, facts)
        owned = route.remote == DEFAULT if router.has_default else route.remote is None
        if owned and not route.pinned and found and found[-1] is not None:
            self.claimed.add(rel)
        return owned
