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
from dulwich.objects import ObjectID, RawObjectID, ShaFile, Tree, sha_to_hex

# Enough for the folders one cycle touches: a sync of a few notes in a 100,000-note store
# reads the old and the new tree of its three type folders, about 200,000 entries (with
# 150,000 kept it took 1.7 s instead of 1.4). A parsed entry is about 270 bytes, so at
# most ~65 MB are held, however many commits a pull walks (each brings new folder trees).
_KEPT = 16
_KEPT_ENTRIES = 250_000
_RAW_LENGTH = 20  # a binary SHA-1 id (trees are kept by their hex id)


class TreeReader:
    """``store[sha]`` for reading, with the last trees read kept parsed (at most
    ``_KEPT`` of them, ``_KEPT_ENTRIES`` entries in all)."""

    __slots__ = ("_store_ref", "_trees", "_entries")

    def __init__(self, store: BaseObjectStore) -> None:
        # Weak: the readers are values of a weak map keyed by their store, and a value
        # holding its key keeps it alive for ever (each sync's store, with its trees).
        self._store_ref = weakref.ref(store)
        self._trees: OrderedDict[ObjectID, Tree] = OrderedDict()
        self._entries = 0

    def __getitem__(self, sha: ObjectID | RawObjectID) -> ShaFile:
        key = sha_to_hex(RawObjectID(sha)) if len(sha) == _RAW_LENGTH else ObjectID(sha)
        tree = self._trees.get(key)
        if tree is not None:
            self._trees.move_to_end(key)
            return tree
        found = self._store()[sha]
        if isinstance(found, Tree):
            self.keep(found)  # by its hex id, whichever form ``sha`` came in
        return found

    def keep(self, tree: Tree) -> None:
        """Keep ``tree`` parsed (one just stored: it is read next by the push and the
        record). The caller must not change it after."""
        if tree.id not in self._trees:
            self._trees[tree.id] = tree
            self._entries += len(tree)
        self._trees.move_to_end(tree.id)
        while len(self._trees) > 1 and (len(self._trees) > _KEPT or self._entries > _KEPT_ENTRIES):
            _, oldest = self._trees.popitem(last=False)
            self._entries -= len(oldest)

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
