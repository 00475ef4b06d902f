"""The configured remote as the cycle meets it: :class:`Origin` fetches and pushes one
branch, turning every transport failure into :class:`TransportFailed` (a message for the
user) and a remote that moved since the fetch into :class:`RemoteMoved`.

It lives with the cycle, not under remote/: telling a full disk here from a remote that
failed is the cycle's concern (tree/full_disk.py), and the remote side knows no disk.
"""

from __future__ import annotations

from dataclasses import dataclass

from dulwich.config import ConfigFile
from dulwich.objects import ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.objects.repository import best_effort
from anamnesis.sync.remote.remote_head import point_unborn_head
from anamnesis.sync.remote.transport import (
    PushRefused,
    PushRejected,
    fetch_branch,
    push_branch,
)
from anamnesis.sync.remote.urls import explain_transport_error
from anamnesis.sync.tree import full_disk


class TransportFailed(Exception):
    """The remote could not be fetched from or pushed to; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RemoteMoved(Exception):
    """The remote branch moved between our fetch and our push."""


@dataclass(frozen=True, slots=True)
class Origin:
    """The configured remote, for one branch: ``branch`` is fetched into ``tracking``
    and pushed from ``branch``; every wait is bounded by ``timeout_s``."""

    url: str
    branch: Ref
    tracking: Ref
    timeout_s: float

    def point(self, repo: Repo) -> None:
        """Set ``origin`` to the configured remote on every cycle (it may have changed)."""
        config = repo.get_config()
        section = (b"remote", b"origin")
        url = self.url.encode()
        fetch = b"+refs/heads/*:refs/remotes/origin/*"
        # Either line may be missing from a hand-edited config; both are rewritten then.
        if _config_value(config, section, b"url") != url or (
            _config_value(config, section, b"fetch") != fetch
        ):
            config.set(section, b"url", url)
            config.set(section, b"fetch", fetch)
            config.write_to_path()

    def fetch(self, repo: Repo) -> ObjectID | None:
        """Fetch from the remote; return the remote branch head (None for an empty remote)."""
        try:
            head = fetch_branch(repo, self.url, self.branch, timeout_s=self.timeout_s)
        except Exception as exc:  # dulwich raises many kinds; none may escape as a traceback
            if full_disk.is_full(exc):
                raise  # this disk, not the remote: said as such (GitSyncBackend's session)
            raise TransportFailed(explain_transport_error(self.url, exc, "fetch from")) from None
        if head is not None:
            repo.refs[self.tracking] = head
        return head

    def push(self, repo: Repo, head: ObjectID) -> None:
        """Push ``head`` to the remote branch, only as a fast-forward."""
        try:
            push_branch(repo, self.url, self.branch, head, timeout_s=self.timeout_s)
        except PushRejected as exc:
            raise RemoteMoved(str(exc)) from None
        except PushRefused as exc:
            raise TransportFailed(explain_transport_error(self.url, exc, "push to")) from None
        except Exception as exc:  # transport errors of every kind become a detail, not a traceback
            raise TransportFailed(explain_transport_error(self.url, exc, "push to")) from None
        repo.refs[self.tracking] = head
        # A remote made by a plain `git init --bare` names `master`: clones of it would
        # check out nothing.
        best_effort(point_unborn_head, self.url, self.branch)


def _config_value(config: ConfigFile, section: tuple[bytes, ...], name: bytes) -> bytes | None:
    try:
        return config.get(section, name)
    except KeyError:
        return None
