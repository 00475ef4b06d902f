"""A tree with a few paths changed, storing only the folders on their way.

dulwich's ``commit_tree_changes`` does the same, but reads each folder it stores back
from disk (decompressing and parsing it again) to see whether it ended empty, and reads
the folders it changes from the store, not from the trees this process has parsed: at
100,000 notes a folder is a 1.3 MB tree, and a sync of 10 notes read each several times.
Here each folder is read once through ``tree_reader``, copied (a parsed tree there is
shared: never changed in place), edited, stored, and kept parsed for the push and the
record that read it next.
"""

from __future__ import annotations

import stat
from collections.abc import Sequence

from dulwich.object_store import BaseObjectStore
from dulwich.objects import ObjectID, Tree

from anamnesis.sync.objects.tree_reader import TreeReader, named, reader

# (path, mode, blob) to set, or (path, None, None) to delete.
Edit = tuple[bytes, int | None, ObjectID | None]


def patched(store: BaseObjectStore, tree_id: ObjectID, edits: Sequence[Edit]) -> ObjectID:
    """Store ``tree_id`` with ``edits`` made (and the folders they change); its id."""
    tree = _patched_tree(store, reader(store), tree_id, edits)
    return (tree if tree is not None else _stored(store, reader(store), Tree())).id


def _patched_tree(
    store: BaseObjectStore, trees: TreeReader, tree_id: ObjectID | None, edits: Sequence[Edit]
) -> Tree | None:
    """The stored tree, or None when the edits leave it empty (its parent drops it).

    Deletions first, then folders, then files: a file turned into a folder comes as the
    file's deletion and the folder's files, a folder turned into a file as its files'
    deletions and the file; either way the new entry is the one left."""
    tree = _copy(trees, tree_id)
    nested: dict[bytes, list[Edit]] = {}
    files: list[tuple[bytes, int, ObjectID]] = []
    for path, mode, sha in edits:
        name, slash, rest = path.partition(b"/")
        if slash:
            nested.setdefault(name, []).append((rest, mode, sha))
        elif sha is None:
            if name in tree:
                del tree[name]
        else:
            assert mode is not None
            files.append((name, mode, sha))
    for name, inner in nested.items():
        before = named(tree, name)
        folder = before[1] if before is not None and stat.S_ISDIR(before[0]) else None
        changed = _patched_tree(store, trees, folder, inner)
        if changed is not None:
            tree[name] = (stat.S_IFDIR, changed.id)
        elif name in tree:
            del tree[name]
    for name, mode, sha in files:
        tree[name] = (mode, sha)
    return _stored(store, trees, tree) if len(tree) else None


def _copy(trees: TreeReader, tree_id: ObjectID | None) -> Tree:
    if tree_id is None:
        return Tree()
    found = trees[tree_id]
    assert isinstance(found, Tree)
    copy = Tree.from_raw_string(Tree.type_num, found.as_raw_string())
    assert isinstance(copy, Tree)
    return copy


def _stored(store: BaseObjectStore, trees: TreeReader, tree: Tree) -> Tree:
    store.add_object(tree)
    trees.keep(tree)
    return tree
