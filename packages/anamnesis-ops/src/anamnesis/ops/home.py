"""The home: one store root and everything known about it.

A :class:`Home` knows where things are (the store's :class:`~anamnesis.store.StoreLayout`),
this machine's settings (config.json, the machine id, the sync remote), opens the store and
makes the sync backend. Every front end (hooks, MCP server, CLI, dashboard) gets these from
here, so none of them spells a path under the home or wires a backend of its own: the last
leak of an unmasked secret came from a caller that had assembled its own sync.

Settings are read on every use, never cached: `anamnesis init --remote URL` (or an edited
config.json) takes effect in a running MCP server or dashboard at once.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anamnesis.store import (
    MemoryStore,
    StoreLayout,
    read_config,
    resolve_home,
    resolve_machine_id,
    resolve_remote,
)

if TYPE_CHECKING:
    from anamnesis.ops.remotes.config import RemoteSpec
    from anamnesis.sync import GitSyncBackend, SyncState


class _Unset(enum.Enum):
    UNSET = "unset"


UNSET = _Unset.UNSET  # a remote not given: read it (None is "no remote", a setting too)


class Home:
    """A store root: ``ANAMNESIS_HOME``, else ``~/.anamnesis`` (:meth:`resolve`).

    ``machine_id`` and ``remote``, when given, are this home's settings whatever the
    environment and config.json say (``init`` syncs with the settings it has just chosen;
    a test runs two machines in one process); otherwise they are read on every use."""

    __slots__ = ("_machine_id", "_remote", "layout")

    def __init__(
        self, root: Path, *, machine_id: str | None = None, remote: str | _Unset | None = UNSET
    ) -> None:
        self.layout = StoreLayout(root)
        self._machine_id = machine_id
        self._remote = remote

    @classmethod
    def resolve(cls, root: Path | None = None) -> Home:
        """``root`` if given, else the configured home (``ANAMNESIS_HOME``, ``~/.anamnesis``)."""
        return cls(root if root is not None else resolve_home())

    def __repr__(self) -> str:
        return f"Home({str(self.root)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Home) and other.root == self.root

    def __hash__(self) -> int:
        return hash(self.root)

    @property
    def root(self) -> Path:
        return self.layout.root

    @property
    def memory_dir(self) -> Path:
        """The synced notes folder (a git repository once synced)."""
        return self.layout.memory_dir

    def exists(self) -> bool:
        """Whether a store was ever set up here (either note tree exists)."""
        return self.layout.has_notes()

    def is_synced(self) -> bool:
        """Whether the notes folder is a sync repository (``init`` or a first sync made it)."""
        return (self.layout.memory_dir / ".git").exists()

    def config(self) -> dict[str, Any]:
        """config.json as it is now (``{}`` when missing or unreadable)."""
        return read_config(self.root)

    @property
    def machine_id(self) -> str:
        """``ANAMNESIS_MACHINE_ID``, else config.json's ``machine_id``, else the hostname."""
        return self._machine_id if self._machine_id is not None else resolve_machine_id(self.root)

    @property
    def remote(self) -> str | None:
        """``ANAMNESIS_GIT_REMOTE``, else config.json's ``remote``; None: local only."""
        return resolve_remote(self.root) if isinstance(self._remote, _Unset) else self._remote

    def open_store(self, **options: Any) -> MemoryStore:
        """The store of this home (``MemoryStore`` options passed through)."""
        return MemoryStore(self.root, **options)

    def sync_backend(self) -> GitSyncBackend:
        """The git sync backend of the notes folder, with the remote configured now.

        The one place a backend is made. Imported here, on first use: dulwich costs tens
        of milliseconds and a session hook that only reads notes never syncs. With named
        remotes configured it owns only the notes routed to the default remote (or, with
        none, kept here): :class:`~anamnesis.ops.remotes.owned.OwnedPaths`."""
        from anamnesis.ops.remotes.config import remote_specs
        from anamnesis.ops.remotes.owned import OwnedPaths
        from anamnesis.store import describe_commit
        from anamnesis.sync import GitSyncBackend

        return GitSyncBackend(
            self.memory_dir,
            remote=self.remote,
            machine_id=self.machine_id,
            describe=describe_commit,  # each commit names the notes it changes
            owns=OwnedPaths(self) if remote_specs(self.config()) else None,
        )

    def mirror_backend(self, spec: RemoteSpec) -> GitSyncBackend:
        """The git sync backend of a named remote's mirror folder (``remotes/<name>/``).
        An encrypted remote's commits never describe their notes (titles stay off it)."""
        from anamnesis.store import describe_commit
        from anamnesis.sync import GitSyncBackend

        return GitSyncBackend(
            self.layout.mirror_dir(spec.name),
            remote=spec.url,
            machine_id=self.machine_id,
            describe=None if spec.encrypt else describe_commit,
        )

    def sync_state(self) -> SyncState:
        """The sync repository's state, offline (nothing is contacted)."""
        return self.sync_backend().state()
