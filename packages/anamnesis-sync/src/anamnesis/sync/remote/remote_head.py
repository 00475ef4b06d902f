"""A bare remote whose HEAD names a branch that does not exist gets HEAD on ours.

``git init --bare`` (without ``--initial-branch``, on a git whose default is ``master``)
points HEAD at ``refs/heads/master``; we push ``main``. A plain ``git clone`` of that
remote then checks out nothing. HEAD is only fixed while it is unborn: a HEAD naming a
branch that exists is someone's choice and stays. Only remotes on this file system (paths,
``file://``): over the network HEAD is the server's to set.
"""

from __future__ import annotations

import logging

from dulwich.client import LocalGitClient
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.remote.connect import DEFAULT_TIMEOUT_S, open_client

_HEAD = Ref(b"HEAD")
_SYMREF = b"ref: "

log = logging.getLogger("anamnesis.sync")


def point_unborn_head(url: str, branch: Ref) -> bool:
    """Point the remote's HEAD at ``branch`` if HEAD names a branch that does not exist
    and ``branch`` does; return whether it changed."""
    client, path = open_client(url, config=None, timeout_s=DEFAULT_TIMEOUT_S)
    if not isinstance(client, LocalGitClient):
        return False
    with Repo(path) as target:
        head = target.refs.read_ref(_HEAD)
        if head is None or not head.startswith(_SYMREF):
            return False  # a detached HEAD was set on purpose
        current = Ref(head[len(_SYMREF) :].strip())
        if current == branch or current in target.refs or branch not in target.refs:
            return False
        target.refs.set_symbolic_ref(_HEAD, branch)
    log.info(
        "pointed the remote's HEAD at %s (it named %s, which does not exist)",
        branch.decode(),
        current.decode(errors="replace"),
    )
    return True
