"""Each remote of a home as it stands, offline (nothing is contacted): for ``remote
list``, ``status``, ``doctor`` and any page that shows the remotes."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anamnesis.ops.remotes.config import DEFAULT, RemoteSpec, remote_specs
from anamnesis.ops.remotes.pins import read_pins

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home
    from anamnesis.sync import SyncState


@dataclass(frozen=True, slots=True)
class RemoteState:
    """One remote: its name (``default``: the ``remote`` setting), its URL (credentials
    hidden), its rules, whether it encrypts, how many notes are pinned to it, and its sync
    folder's state (None when it was never synced here, or cannot be read: ``problem``)."""

    name: str
    url: str
    spec: RemoteSpec | None
    pinned: int
    sync: SyncState | None
    problem: str = ""

    def as_dict(self) -> dict[str, Any]:
        spec, sync = self.spec, self.sync
        return {
            "name": self.name,
            "url": self.url,
            "projects": list(spec.projects) if spec else [],
            "scopes": list(spec.scopes) if spec else [],
            "tags": list(spec.tags) if spec else [],
            "encrypt": spec.encrypt if spec else False,
            "pinned": self.pinned,
            "initialized": sync.initialized if sync else False,
            "head": sync.head if sync else None,
            "ahead": sync.ahead if sync else None,
            "behind": sync.behind if sync else None,
            "detail": sync.detail if sync else self.problem or "never synced here",
        }


def remotes_state(home: Home) -> list[RemoteState]:
    """The default remote (when set) then each named remote, in routing order."""
    from anamnesis.sync import redact_url

    counts = Counter(read_pins(home.layout).values())
    states = []
    if home.remote is not None:
        states.append(_state(DEFAULT, redact_url(home.remote), None, counts, home.sync_state))
    for spec in remote_specs(home.config()):
        backend = home.mirror_backend(spec)
        reader = backend.state if (backend.repo_dir / ".git").is_dir() else None
        states.append(_state(spec.name, redact_url(spec.url), spec, counts, reader))
    return states


def _state(
    name: str, url: str, spec: RemoteSpec | None, counts: Counter[str], reader: Any
) -> RemoteState:
    from anamnesis.sync import SyncError

    if reader is None:
        return RemoteState(name, url, spec, counts[name], None)
    try:
        return RemoteState(name, url, spec, counts[name], reader())
    except (SyncError, OSError) as exc:
        return RemoteState(name, url, spec, counts[name], None, problem=str(exc))
