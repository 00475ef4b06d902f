"""All of a repository's objects copied as files, for one on the same file system that has
none of them yet: a new machine's first pull. (Never the other way: a first push writes
only what its commits reach, see ``transport._first_push``; our object files may hold
objects purged from history.)

Object by object, dulwich decompresses every object of the source, holds them all in
memory, then compresses each again into a new pack and reads that pack back to index it:
at 100,000 notes, most of a minute and most of a gigabyte. Packs and loose objects are
immutable files named by their content, so copying them is the same result at the cost of
a file copy, in constant memory (``git clone`` from a local path does the same).

Each file is copied to a temp name, flushed to disk and renamed; a pack's index last, as
dulwich (and git) only open a pack whose index is there, so a half-copied pack is never
read. Packs can be rolled up on the source while this runs, so the result is checked:
:func:`complete` walks the commits and the head's tree. Where it fails, the caller copies
object by object, as before; the extra files are harmless (an object twice is allowed).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from dulwich.object_store import BaseObjectStore, DiskObjectStore, iter_tree_contents
from dulwich.objects import Commit, ObjectID

# A pack's files, in the order they are made visible: the index says "complete".
_PACK_SUFFIXES = (".pack", ".idx")


def copy_objects(source: BaseObjectStore, target: BaseObjectStore) -> bool:
    """Copy every pack and loose object of ``source`` into ``target``; False (nothing
    copied) unless both are object folders on disk."""
    if not isinstance(source, DiskObjectStore) or not isinstance(target, DiskObjectStore):
        return False
    source_dir, target_dir = Path(source.path), Path(target.path)
    (target_dir / "pack").mkdir(parents=True, exist_ok=True)
    for pack in sorted((source_dir / "pack").glob("*.pack")):
        files = [pack.with_suffix(suffix) for suffix in _PACK_SUFFIXES]
        if not all(path.is_file() for path in files):
            continue  # still being written: its objects are not referenced yet
        for path in files:
            _copy_file(path, target_dir / "pack" / path.name)
    for folder in source_dir.iterdir():
        if len(folder.name) != 2 or not folder.is_dir():
            continue  # "pack", "info" and anything else that is not a loose object
        for loose in folder.iterdir():
            destination = target_dir / folder.name / loose.name
            if not destination.exists():
                destination.parent.mkdir(exist_ok=True)
                _copy_file(loose, destination)
    return True


def complete(store: BaseObjectStore, head: ObjectID) -> bool:
    """Every commit from ``head`` back, and every object of its tree, is in ``store``."""
    todo, seen = [head], set()
    trees: list[ObjectID] = []
    while todo:
        sha = todo.pop()
        if sha in seen:
            continue
        seen.add(sha)
        if sha not in store:
            return False
        commit = store[sha]
        if not isinstance(commit, Commit):
            return False
        trees.append(commit.tree)
        todo.extend(commit.parents)
    try:
        for entry in iter_tree_contents(store, trees[0]):
            if entry.sha is not None and entry.mode != 0o160000 and entry.sha not in store:
                return False
    except KeyError:  # a folder's tree is missing
        return False
    return all(tree in store for tree in trees)


def _copy_file(source: Path, destination: Path) -> None:
    if destination.exists():
        return  # the same name is the same content
    temp = destination.with_name(f".{destination.name}.tmp")
    with source.open("rb") as reader, temp.open("wb") as writer:
        shutil.copyfileobj(reader, writer, 1 << 20)
        writer.flush()
        os.fsync(writer.fileno())  # on disk before any ref can point at it
    temp.chmod(0o444)
    temp.replace(destination)
