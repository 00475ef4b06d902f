"""Bringing two histories together at the level of whole files.

A note is a whole file, so the question per path is simple: did only one side change it
(take that side), did both make the same change (fine), or did both change it differently
(a conflict: nothing is decided for the user)? Without conflicts, local commits are
replayed on top of the remote head, keeping history linear like ``git rebase``.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from dulwich.index import commit_tree
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Commit, ObjectID
from dulwich.repo import Repo

from anamnesis.sync.partial import is_take

# path -> (mode, blob id)
Tree = dict[bytes, tuple[int, ObjectID]]
# path -> new (mode, blob id), or None for a deletion
Changes = dict[bytes, tuple[int, ObjectID] | None]


def flat_tree(repo: Repo, tree_id: ObjectID | None) -> Tree:
    """Every file of a tree, by path."""
    if tree_id is None:
        return {}
    out: Tree = {}
    for entry in iter_tree_contents(repo.object_store, tree_id):
        if entry.path is not None and entry.sha is not None and entry.mode is not None:
            out[entry.path] = (entry.mode, entry.sha)
    return out


def changes_between(before: Mapping[bytes, tuple[int, ObjectID]], after: Tree) -> Changes:
    """What turns ``before`` into ``after``, path by path."""
    out: Changes = {}
    for path, value in after.items():
        if before.get(path) != value:
            out[path] = value
    for path in before.keys() - after.keys():
        out[path] = None
    return out


def conflicting_paths(local: Changes, remote: Changes) -> list[bytes]:
    """Paths both sides changed, differently (an identical change is no conflict)."""
    return sorted(path for path in local.keys() & remote.keys() if local[path] != remote[path])


def apply_changes(tree: Tree, changes: Changes) -> Tree:
    out = dict(tree)
    for path, value in changes.items():
        if value is None:
            out.pop(path, None)
        else:
            out[path] = value
    return out


def build_tree(repo: Repo, tree: Tree) -> ObjectID:
    """Store a flat tree (and its subtrees); return its id."""
    return commit_tree(repo.object_store, ((path, sha, mode) for path, (mode, sha) in tree.items()))


def tree_of(repo: Repo, commit_id: ObjectID | None) -> ObjectID | None:
    if commit_id is None:
        return None
    commit = repo.object_store[commit_id]
    assert isinstance(commit, Commit)
    tree: ObjectID = commit.tree
    return tree


def commits_between(repo: Repo, head: ObjectID, exclude: Iterable[ObjectID]) -> list[Commit]:
    """Commits reachable from ``head`` but not from ``exclude``, oldest first."""
    walker = repo.get_walker(include=[head], exclude=list(exclude))
    return [entry.commit for entry in walker][::-1]


def replay(repo: Repo, commits: list[Commit], onto: ObjectID) -> ObjectID:
    """Re-create each commit's own change on top of ``onto``; return the new head.

    Authors, dates and messages are kept, as ``git rebase`` keeps them; a commit whose
    change is already there (the same edit made on both sides) is dropped, as
    ``git rebase`` drops it. Take commits are skipped (see partial.py).
    """
    head = onto
    tree = flat_tree(repo, tree_of(repo, onto))
    tree_id = tree_of(repo, onto)
    for commit in commits:
        if is_take(commit):
            continue  # the remote's own content, newer in ``onto`` (see partial.py)
        tree = apply_changes(tree, own_changes(repo, commit))
        new_tree_id = build_tree(repo, tree)
        if new_tree_id == tree_id:
            continue
        tree_id = new_tree_id
        copy = Commit()
        copy.tree = new_tree_id
        copy.parents = [head]
        copy.author = commit.author
        copy.author_time = commit.author_time
        copy.author_timezone = commit.author_timezone
        copy.committer = commit.committer
        copy.commit_time = int(time.time())
        copy.commit_timezone = 0
        copy.encoding = commit.encoding
        copy.message = commit.message
        repo.object_store.add_object(copy)
        head = copy.id
    return head


@dataclass(frozen=True, slots=True)
class Divergence:
    """Both sides moved since they last agreed."""

    base_tree: ObjectID | None
    local: Changes
    remote: Changes
    conflicts: list[bytes]


def diverged(
    repo: Repo, local_head: ObjectID, remote_head: ObjectID, base: ObjectID | None
) -> Divergence:
    base_tree = tree_of(repo, base)
    agreed = flat_tree(repo, base_tree)
    # What was taken from the remote during a conflict is agreed on too (see partial.py).
    for commit in commits_between(repo, local_head, [remote_head]):
        if is_take(commit):
            agreed = apply_changes(agreed, own_changes(repo, commit))
    local = changes_between(agreed, flat_tree(repo, tree_of(repo, local_head)))
    remote = changes_between(agreed, flat_tree(repo, tree_of(repo, remote_head)))
    return Divergence(base_tree, local, remote, conflicting_paths(local, remote))


def own_changes(repo: Repo, commit: Commit) -> Changes:
    """What ``commit`` changed against its first parent."""
    parent_tree = tree_of(repo, commit.parents[0]) if commit.parents else None
    return changes_between(flat_tree(repo, parent_tree), flat_tree(repo, commit.tree))


def clean_incoming(split: Divergence) -> Changes:
    """The remote's changes to paths not changed here: they can land while the
    conflicting ones wait (identical changes on both sides are already here)."""
    return {path: value for path, value in split.remote.items() if path not in split.local}
