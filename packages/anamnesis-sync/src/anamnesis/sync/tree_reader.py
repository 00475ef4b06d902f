"""Trees read once per process, not once per use.

A sync reads the same few trees again and again: the staging looks paths up in HEAD's
tree, the diff of the local and remote changes walks it, the replay patches it, the push
and the record diff it once more. Each read decompresses and parses the whole folder (a
folder of 20,000 notes is about 10 ms, every time). Objects are named by their content,
so a parsed tree never goes stale: the most recently read ones are kept, per object
store. Nothing here may change a tree it returns (tree_patch.py edits copies).
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import cast

from dulwich.object_store import BaseObjectStore
from dulwich.objects import ObjectID, RawObjectID, ShaFile, Tree

# Enough for the folders one cycle touches (a parsed folder of 20,000 notes is ~6 MB).
_KEPT = 16


class TreeReader:
    """``store[sha]`` for reading, with the last ``_KEPT`` trees kept parsed."""

    __slots__ = ("_store_ref", "_trees")

    def __init__(self, store: BaseObjectStore) -> None:
        # Weak: the readers are values of a weak map keyed by their store, and a value
        # holding its key keeps it alive for ever (each sync's store, with its trees).
        self._store_ref = weakref.ref(store)
        self._trees: OrderedDict[ObjectID | RawObjectID, Tree] = OrderedDict()

    def __getitem__(self, sha: ObjectID | RawObjectID) -> ShaFile:
        tree = self._trees.get(sha)
        if tree is not None:
            self._trees.move_to_end(sha)
            return tree
        found = self._store()[sha]
        if isinstance(found, Tree):
            self.keep(found)
        return found

    def keep(self, tree: Tree) -> None:
        """Keep ``tree`` parsed (one just stored: it is read next by the push and the
        record). The caller must not change it after."""
        self._trees[tree.id] = tree
        self._trees.move_to_end(tree.id)
        if len(self._trees) > _KEPT:
            self._trees.popitem(last=False)

    def __contains__(self, sha: ObjectID | RawObjectID) -> bool:
        store = self._store()
        return sha in self._trees or store.contains_packed(sha) or sha in store  # type: ignore[operator]

    def _store(self) -> BaseObjectStore:
        store = self._store_ref()
        if store is None:
            raise ReferenceError("the object store of this tree reader is gone")
        return store

    def as_store(self) -> BaseObjectStore:
        """This reader where dulwich asks for a store it only reads from (``tree_changes``
        calls nothing but ``store[sha]``)."""
        return cast(BaseObjectStore, self)


_READERS: weakref.WeakKeyDictionary[BaseObjectStore, TreeReader] = weakref.WeakKeyDictionary()


def reader(store: BaseObjectStore) -> TreeReader:
    """The reader of ``store`` (one per store, gone with it)."""
    found = _READERS.get(store)
    if found is None:
        found = _READERS[store] = TreeReader(store)
    return found


def named(tree: Tree, name: bytes) -> tuple[int, ObjectID] | None:
    """The (mode, id) named ``name`` in ``tree``, or None (a Tree has no ``get``; looking
    a name up never sorts the tree, as iterating it does)."""
    return tree[name] if name in tree else None  # noqa: SIM401
