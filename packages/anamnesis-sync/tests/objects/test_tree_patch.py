"""Patching a tree (tree_patch.py, through integrate.patch_tree) gives the very tree a
rebuild of the whole would: the same id, whatever the edits (new folders, emptied
folders, a file turned into a folder and back), and the trees it read stay as they were;
the trees kept parsed (tree_reader.py) stay bounded and go with their store; a tree
read from its bytes (raw_tree.py) lists what dulwich's parse lists."""

from __future__ import annotations

import gc
import random
import weakref
from pathlib import Path

import pytest
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, ObjectID, hex_to_sha
from dulwich.repo import Repo

from anamnesis.sync.objects import raw_tree, tree_reader
from anamnesis.sync.objects.integrate import (
    Changes,
    apply_changes,
    build_tree,
    flat_tree,
    patch_tree,
)
from anamnesis.sync.objects.tree_reader import reader

FILE = 0o100644


def _blob(repo: Repo, text: str) -> ObjectID:
    blob = Blob.from_string(text.encode())
    repo.object_store.add_object(blob)
    return blob.id


def _random_changes(
    repo: Repo, current: dict[bytes, tuple[int, ObjectID]], rng: random.Random
) -> Changes:
    changes: Changes = {}
    for _ in range(rng.randint(1, 8)):
        kind = rng.random()
        if kind < 0.25 and current:  # delete a file
            changes[rng.choice(sorted(current))] = None
        elif kind < 0.4 and current:  # a file becomes a folder of the same name
            path = rng.choice(sorted(current))
            changes[path] = None
            changes[path + b"/inner.md"] = (FILE, _blob(repo, f"inner {rng.random()}"))
        elif kind < 0.5:  # a folder becomes a file of the same name
            folder = rng.choice([b"a", b"a/b", b"c"])
            for path in current:
                if path.startswith(folder + b"/"):
                    changes[path] = None
            changes[folder] = (FILE, _blob(repo, f"was a folder {rng.random()}"))
        else:
            folder = rng.choice([b"a", b"a/b", b"c", b"c/d/e"])
            path = folder + b"/" + str(rng.randrange(6)).encode() + b".md"
            changes[path] = (FILE, _blob(repo, f"{rng.random()}"))
    return changes


def _consistent(changes: Changes) -> bool:
    """No path left both a file and a folder (the changes a folder's state can make)."""
    after = [path for path, value in changes.items() if value is not None]
    return not any(other.startswith(path + b"/") for path in after for other in after)


def test_a_patched_tree_is_the_rebuilt_tree(tmp_path: Path) -> None:
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    rng = random.Random(11)
    tree = build_tree(repo, {b"a/b/0.md": (FILE, _blob(repo, "start"))})
    checked = 0
    for _ in range(300):
        current = flat_tree(repo, tree)
        changes = _random_changes(repo, current, rng)
        expected = apply_changes(current, changes)
        if not _consistent(changes) or any(
            other.startswith(path + b"/") for path in expected for other in expected
        ):
            continue
        patched = patch_tree(repo, tree, changes)
        assert patched == build_tree(repo, expected)
        # The trees read (and kept parsed for the process) were not changed in place.
        assert reader(repo.object_store)[tree].id == tree
        tree, checked = patched, checked + 1
    assert checked > 150


def test_deleting_every_file_leaves_the_empty_tree(tmp_path: Path) -> None:
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    tree = build_tree(
        repo, {b"a/b/0.md": (FILE, _blob(repo, "x")), b"c.md": (FILE, _blob(repo, "y"))}
    )
    emptied = patch_tree(repo, tree, {b"a/b/0.md": None, b"c.md": None})
    assert emptied == build_tree(repo, {})
    assert flat_tree(repo, emptied) == {}


def test_a_store_and_its_kept_trees_go_when_the_store_goes(tmp_path: Path) -> None:
    # A long-lived process (the MCP server) syncs many times, each with a store of its
    # own: the trees kept parsed for one must not outlive it.
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    tree = build_tree(repo, {b"a/0.md": (FILE, _blob(repo, "x"))})
    assert reader(repo.object_store)[tree].id == tree
    gone = weakref.ref(repo.object_store)
    repo.close()
    del repo
    gc.collect()
    assert gone() is None


def test_the_trees_kept_are_bounded_by_their_entries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pull walking many commits reads a new folder tree for each: what is kept parsed
    # stays bounded by entries, not only by trees.
    monkeypatch.setattr(tree_reader, "_KEPT_ENTRIES", 10)
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    trees = [
        build_tree(
            repo, {f"{n}-{k}.md".encode(): (FILE, _blob(repo, f"{n} {k}")) for k in range(4)}
        )
        for n in range(3)
    ]
    kept = tree_reader.TreeReader(repo.object_store)
    for tree in trees:
        kept[tree]
    assert list(kept._trees) == trees[1:]  # 8 entries kept; a third tree would make 12
    assert kept[hex_to_sha(trees[2])] is kept[trees[2]]  # a binary id finds it too


def test_a_tree_read_from_its_bytes_lists_what_dulwich_lists(tmp_path: Path) -> None:
    repo = Repo.init(str(tmp_path / "r"), mkdir=True)
    rng = random.Random(5)
    modes = [FILE, 0o100755, 0o120000, 0o160000]  # a file, executable, symlink, submodule
    flat = {
        f"{rng.choice(['a', 'a/b', 'c', 'c/d/e', ''])}/{n}.md".lstrip("/").encode(): (
            rng.choice(modes),
            _blob(repo, f"{n}"),
        )
        for n in range(200)
    }
    tree = build_tree(repo, flat)
    ours = [(f.path, f.mode, f.sha) for f in raw_tree.files(repo.object_store, tree)]
    theirs = [(e.path, e.mode, e.sha) for e in iter_tree_contents(repo.object_store, tree)]
    assert ours == theirs and len(ours) == 200
