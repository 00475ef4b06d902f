"""Packs are rolled up the geometric way: the small ones merged, a large one left alone,
every object still readable, nothing while a pack is being received."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Commit, Tree
from dulwich.repo import Repo

from anamnesis.sync.remote import housekeeping
from sync_testing import GIT, MAIN, Machine, files, git, remote_files, write_note


@pytest.mark.parametrize(
    ("sizes", "merged"),
    [
        ([], 0),
        ([10], 0),
        ([1, 1, 1, 1], 4),  # equal pushes: all into one
        ([1, 1, 100], 2),  # the large pack stays
        ([1, 3, 10], 0),  # already a progression
        ([1, 1, 3], 3),  # 3 < 2 x (1 + 1): merged too
        ([5, 1000, 1001], 3),  # two large packs of a size: both merged with the small one
    ],
)
def test_which_packs_are_merged(sizes: list[int], merged: int) -> None:
    assert housekeeping.packs_to_merge(sizes) == merged


def _packs(repo_path: Path) -> set[str]:
    return {p.name for p in (repo_path / "objects" / "pack").glob("*.pack")}


def _every_object_reads(repo_path: Path) -> int:
    """Walks every commit, tree and blob from the branch; returns how many objects."""
    repo = Repo(str(repo_path))
    try:
        count = 0
        todo = [repo.refs[MAIN]]
        seen: set[bytes] = set()
        while todo:
            sha = todo.pop()
            if sha in seen:
                continue
            seen.add(sha)
            obj = repo[sha]  # raises if any object is missing or broken
            count += 1
            if isinstance(obj, Commit):
                todo.extend([obj.tree, *obj.parents])
            elif isinstance(obj, Tree):
                todo.extend(entry.sha for entry in obj.iteritems())
        return count
    finally:
        repo.close()


def test_small_pushes_are_merged_and_the_large_first_pack_is_left_alone(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(housekeeping, "PACK_LIMIT", 3)
    laptop = machine("laptop")
    rng = random.Random(7)  # text that does not compress: the first pack is truly large
    for n in range(200):
        words = " ".join(f"{rng.getrandbits(64):x}" for _ in range(300))
        write_note(laptop, f"semantic/big-{n}.md", f"note {n}\n{words}\n")
    laptop.sync()
    (first,) = _packs(remote)
    for n in range(10):
        write_note(laptop, f"semantic/small-{n}.md", f"small {n}\n")
        assert laptop.sync().pushed
        assert len(_packs(remote)) <= 3 + 1
        assert first in _packs(remote)  # never rewritten to add a note
    assert _every_object_reads(remote) > 200
    desktop = machine("desktop")
    desktop.sync()
    assert files(desktop) == files(laptop)
    assert len(remote_files(remote)) == 210


def _push_one_note_at_a_time(machine: Machine, count: int) -> None:
    laptop = machine("laptop")
    for n in range(count):
        write_note(laptop, f"semantic/{n}.md", f"note {n}\n")
        laptop.sync()


def _roll_up(remote: Path) -> int:
    with Repo(str(remote)) as repo:
        store = repo.object_store
        assert isinstance(store, DiskObjectStore)
        return housekeeping.roll_up_packs(store)


def test_nothing_is_merged_while_a_pack_is_being_received(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(housekeeping, "PACK_LIMIT", 100)  # let them pile up first
    _push_one_note_at_a_time(machine, 3)
    before = _packs(remote)
    assert len(before) == 3
    keep = remote / "objects" / "pack" / "pack-incoming.keep"
    keep.write_text("receive-pack in progress\n")
    assert _roll_up(remote) == 0
    assert _packs(remote) == before
    keep.unlink()
    assert _roll_up(remote) == 3  # once the receiving is over
    assert len(_packs(remote)) == 1


@pytest.mark.skipif(GIT is None, reason="git binary not installed: interoperability unchecked")
@pytest.mark.needs_git
def test_git_finds_a_rolled_up_remote_sound(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(housekeeping, "PACK_LIMIT", 2)
    _push_one_note_at_a_time(machine, 6)
    assert len(_packs(remote)) <= 3
    git("fsck", "--full", "--strict", cwd=remote)
    assert "semantic/5.md" in git("ls-tree", "-r", "--name-only", "main", cwd=remote)
