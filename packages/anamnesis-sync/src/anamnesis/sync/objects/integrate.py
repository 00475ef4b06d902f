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

from dulwich.diff_tree import tree_changes
from dulwich.errors import NotTreeError
from dulwich.index import commit_tree
from dulwich.object_store import iter_tree_contents, tree_lookup_path
from dulwich.objects import Commit, ObjectID
from dulwich.repo import Repo

from anamnesis.sync.objects import tree_patch
from anamnesis.sync.objects.partial import is_take
from anamnesis.sync.objects.tree_reader import reader

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


def tree_diff(repo: Repo, old: ObjectID | None, new: ObjectID | None) -> Changes:
    """What turns tree ``old`` into ``new``, path by path, like ``changes_between`` of the
    two flat trees but reading only the folders that differ (their ids say which)."""
    out: Changes = {}
    gone: list[bytes] = []
    for change in tree_changes(reader(repo.object_store).as_store(), old, new):
        before, after = change.old, change.new
        if after is not None and after.path is not None and after.sha is not None:
            assert after.mode is not None
            out[after.path] = (after.mode, after.sha)
        if before is not None and before.path is not None and before.sha is not None:
            gone.append(before.path)
    for path in gone:
        out.setdefault(path, None)  # deleted, unless a new entry took its place
    return out


def path_entry(repo: Repo, tree: ObjectID | None, path: bytes) -> tuple[int, ObjectID] | None:
    """The (mode, blob) at ``path`` in ``tree``, or None (folders read once: tree_reader)."""
    if tree is None:
        return None
    try:
        return tree_lookup_path(reader(repo.object_store).__getitem__, tree, path)
    except (KeyError, NotTreeError):
        return None


def patch_tree(repo: Repo, tree: ObjectID | None, changes: Changes) -> ObjectID:
    """``tree`` with ``changes`` applied, storing only the folders that change (like
    ``build_tree(apply_changes(flat_tree(...)))``, whose cost grows with the whole tree).
    A file turned into a folder comes as its deletion and the folder's files: the
    deletion sorts first, so the folder then takes its place."""
    if tree is None:
        return build_tree(repo, apply_changes({}, changes))
    edits: list[tree_patch.Edit] = []
    for path, value in sorted(changes.items()):
        if value is not None:
            edits.append((path, value[0], value[1]))
        elif path_entry(repo, tree, path) is not None:  # deleting what is absent: no-op
            edits.append((path, None, None))
    return tree_patch.patched(repo.object_store, tree, edits) if edits else tree


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
    tree_id = tree_of(repo, onto)
    for commit in commits:
        if is_take(commit):
            continue  # the remote's own content, newer in ``onto`` (see partial.py)
        new_tree_id = patch_tree(repo, tree_id, own_changes(repo, commit))
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
    # What was taken from the remote during a conflict is agreed on too (see partial.py).
    taken: Changes = {}
    for commit in commits_between(repo, local_head, [remote_head]):
        if is_take(commit):
            taken.update(own_changes(repo, commit))
    local = _since_agreed(repo, base_tree, tree_of(repo, local_head), taken)
    remote = _since_agreed(repo, base_tree, tree_of(repo, remote_head), taken)
    return Divergence(base_tree, local, remote, conflicting_paths(local, remote))


def _since_agreed(
    repo: Repo, base_tree: ObjectID | None, tree: ObjectID | None, taken: Changes
) -> Changes:
    """``changes_between`` the agreed files (the base, then what was ``taken``) and
    ``tree``, from the diff with the base and a look-up of each taken path."""
    out = tree_diff(repo, base_tree, tree)
    for path in taken:
        out.pop(path, None)
    for path, agreed in taken.items():
        now = path_entry(repo, tree, path)
        if now != agreed:
            out[path] = now
    return out


def own_changes(repo: Repo, commit: Commit) -> Changes:
    """What ``commit`` changed against its first parent."""
    parent_tree = tree_of(repo, commit.parents[0]) if commit.parents else None
    return tree_diff(repo, parent_tree, commit.tree)


def clean_incoming(split: Divergence) -> Changes:
    """The remote's changes to paths not changed here: they can land while the
    conflicting ones wait (identical changes on both sides are already here)."""
    return {path: value for path, value in split.remote.items() if path not in split.local}
