"""What the remotes' modules need of a home: :class:`~anamnesis.ops.Home` has it all.

A protocol, so this folder never imports ``ops.home`` (which makes the backends with
this folder's ``OwnedPaths``): ops stays free of import cycles."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from anamnesis.store import StoreLayout
    from anamnesis.sync import GitSyncBackend, SyncState


class RemotesHome(Protocol):
    @property
    def layout(self) -> StoreLayout: ...

    @property
    def root(self) -> Path: ...

    @property
    def memory_dir(self) -> Path: ...

    @property
    def machine_id(self) -> str: ...

    @property
    def remote(self) -> str | None: ...

    def config(self) -> dict[str, Any]: ...

    def sync_backend(self) -> GitSyncBackend: ...

    # ``spec``: a RemoteSpec (config.py imports this module: no name of it here).
    def mirror_backend(self, spec: Any) -> GitSyncBackend: ...

    def sync_state(self) -> SyncState: ...
