"""Low-level repository plumbing for the sync: refs, commits, blobs.

Generic dulwich operations, each handed the repository it works on; none knows the sync
cycle, the files on disk or the remote (opening the folder's repository: tree/folder.py;
fetching and pushing: cycle/origin.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from datetime import UTC, datetime

from dulwich.graph import find_merge_base
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.model.errors import SyncError

# The commit the files on disk were last brought in line with. The branch moving away
# from it means another program moved the branch (a push into this folder, a git command)
# without updating the files: they must not be committed over it as if they were newer.
WORKTREE_REF = Ref(b"refs/anamnesis/worktree")


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
