"""Low-level repository plumbing for the sync: refs, commits, blobs, the ``origin`` remote.

Generic dulwich operations, each handed the repository it works on; none knows the sync
cycle. :class:`Origin` fetches and pushes one branch, turning every transport failure into
:class:`TransportFailed` (a message for the user) and a remote that moved since the fetch
into :class:`RemoteMoved`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from dulwich.config import ConfigFile
from dulwich.errors import NotGitRepository
from dulwich.graph import find_merge_base
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import full_disk, worktree
from anamnesis.sync.errors import SyncError
from anamnesis.sync.remote import explain_transport_error
from anamnesis.sync.remote_head import point_unborn_head
from anamnesis.sync.transport import PushRefused, PushRejected, fetch_branch, push_branch

# The commit the files on disk were last brought in line with. The branch moving away
# from it means another program moved the branch (a push into this folder, a git command)
# without updating the files: they must not be committed over it as if they were newer.
WORKTREE_REF = Ref(b"refs/anamnesis/worktree")


class TransportFailed(Exception):
    """The remote could not be fetched from or pushed to; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RemoteMoved(Exception):
    """The remote branch moved between our fetch and our push."""


def open_repo(repo_dir: Path, branch: str, branch_ref: Ref) -> Repo:
    """The repository in ``repo_dir``, created if needed, its HEAD on ``branch_ref`` while
    nothing is committed, and the never-synced files listed in ``.git/info/exclude``."""
    repo_dir.mkdir(parents=True, exist_ok=True)
    try:
        repo = Repo(str(repo_dir))
    except NotGitRepository:
        repo = Repo.init(str(repo_dir), default_branch=branch.encode())
    if read_ref(repo, branch_ref) is None:  # nothing committed yet: HEAD must name our branch
        repo.refs.set_symbolic_ref(Ref(b"HEAD"), branch_ref)
    _exclude_scratch_files(repo)
    return repo


def read_ref(repo: Repo, name: Ref) -> ObjectID | None:
    try:
        return repo.refs[name]
    except KeyError:
        return None


def move_branch(repo: Repo, branch_ref: Ref, commit: ObjectID) -> None:
    """Point the branch at ``commit``, whose files are now the ones on disk.

    The branch first: a crash in between leaves a state the next cycle reconciles
    by replaying (changes equal on both sides), never by undoing the pull.
    """
    repo.refs[branch_ref] = commit
    repo.refs[WORKTREE_REF] = commit


def short(sha: ObjectID | None) -> str | None:
    return sha.decode("ascii")[:7] if sha is not None else None


def new_commit(
    repo: Repo, tree: ObjectID, parents: list[ObjectID], message: str, *, machine_id: str
) -> ObjectID:
    """Store a commit of ``tree`` by this machine, now; return its id."""
    commit = Commit()
    commit.tree = tree
    commit.parents = parents
    commit.author = commit.committer = identity(machine_id)
    commit.author_time = commit.commit_time = int(datetime.now(UTC).timestamp())
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode("utf-8") + b"\n"
    repo.object_store.add_object(commit)
    return commit.id


def identity(machine_id: str) -> bytes:
    # An email may not hold spaces or angle brackets: keep a safe spelling of the id.
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", machine_id).strip("-.") or "unknown"
    return f"anamnesis <anamnesis@{safe}>".encode()


def timestamp() -> str:
    """Now, for commit messages."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def merge_base(repo: Repo, a: ObjectID, b: ObjectID) -> ObjectID | None:
    bases = find_merge_base(repo, [a, b])
    return bases[0] if bases else None


def required(tree: ObjectID | None) -> ObjectID:
    """A commit's tree, which it must have."""
    if tree is None:
        raise SyncError("a commit without a tree: the repository is damaged")
    return tree


def read_blob(repo: Repo, sha: ObjectID) -> bytes:
    blob = repo.object_store[sha]
    assert isinstance(blob, Blob)
    return blob.as_raw_string()


def add_blob(repo: Repo, data: bytes) -> ObjectID:
    blob = Blob.from_string(data)
    repo.object_store.add_object(blob)
    return blob.id


def tree_path(path: str) -> bytes:
    """A path in the folder, as a tree spells it."""
    return path.replace(os.sep, "/").encode("utf-8", errors="surrogateescape")


def best_effort(action: Callable[..., object], *args: object) -> None:
    """Housekeeping (packing, exclude lists) never fails a sync that did its work; it is
    tried again next time."""
    try:
        action(*args)
    except Exception:  # see the docstring
        return


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


def _exclude_scratch_files(repo: Repo) -> None:
    """List the never-synced files in .git/info/exclude, so `git status` agrees with sync."""
    path = Path(repo.controldir()) / "info" / "exclude"
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    except OSError:
        return  # unreadable: only `git status` is affected, never the sync
    missing = [line for line in worktree.EXCLUDE_PATTERNS if line not in current.splitlines()]
    if not missing:
        return
    header = "# anamnesis: machine-local files in the notes folder, never synced"
    lines = ([] if header in current else [header]) + missing
    lead = "" if not current or current.endswith("\n") else "\n"
    best_effort(_append, path, lead + "\n".join(lines) + "\n")


def _append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)
