"""The objects a set of new commits adds, found by what each commit changed.

dulwich's ``MissingObjectFinder`` first lists every object the other side has, by walking
the whole tree of every commit it has: at 100,000 notes that is most of the time of a
push or a fetch of ten notes. A commit's new objects are all in what it changed against
its first parent: its tree, the trees of the folders that changed (the other folders'
trees are the parent's, object for object) and the blobs that changed. The parent is
either one the other side has (with all its objects) or one of the new commits (whose
own new objects are listed in turn), so the list is complete. It may name an object the
other side happens to have already (the same text written twice); that is sent again,
harmlessly, and never twice in one pack.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable

from dulwich.object_store import BaseObjectStore
from dulwich.objects import Commit, ObjectID, Tree
from dulwich.walk import Walker

from anamnesis.sync.objects.tree_reader import TreeReader, named, reader

_GITLINK = 0o160000  # a submodule's commit lives in another repository: never sent


def missing(
    store: BaseObjectStore, wants: Iterable[ObjectID], haves: Iterable[ObjectID]
) -> list[ObjectID]:
    """Commits reachable from ``wants`` and not from ``haves``, then what each adds, in
    order and without repeats. ``haves`` not in ``store`` or not commits are ignored."""
    known = [sha for sha in haves if sha in store and isinstance(store[sha], Commit)]
    found: dict[ObjectID, None] = {}
    trees = reader(store)
    for entry in Walker(store, include=list(wants), exclude=known):
        commit = entry.commit
        found[commit.id] = None
        parent = _first_parent_tree(store, commit)
        _add_changed(trees, parent, commit.tree, found)
    return list(found)


def _first_parent_tree(store: BaseObjectStore, commit: Commit) -> ObjectID | None:
    if not commit.parents or commit.parents[0] not in store:
        return None
    parent = store[commit.parents[0]]
    return parent.tree if isinstance(parent, Commit) else None


def _add_changed(
    store: TreeReader,
    old_id: ObjectID | None,
    new_id: ObjectID,
    found: dict[ObjectID, None],
) -> None:
    """Add ``new_id`` and every tree and blob under it that ``old_id`` does not hold at
    the same place (folders equal on both sides are skipped whole)."""
    if new_id == old_id or new_id in found:
        return
    found[new_id] = None
    new = store[new_id]
    assert isinstance(new, Tree)
    old = store[old_id] if old_id is not None else None
    before = old if isinstance(old, Tree) else Tree()  # looked up by name: never sorted
    for name, mode, sha in new.iteritems():
        previous = named(before, name)
        if previous == (mode, sha) or mode == _GITLINK:
            continue
        if stat.S_ISDIR(mode):
            was_folder = previous is not None and stat.S_ISDIR(previous[0])
            _add_changed(store, previous[1] if was_folder and previous else None, sha, found)
        else:
            found.setdefault(sha, None)
