"""A new machine's first pull copies the remote's object files (object_copy.py) instead of
re-packing every object; a first push into an empty remote writes what its commits reach
into one pack there; objects written in bulk go into one pack indexed as it is written
(pack_writer.py). Whatever the path, the result is the same
notes and a sound repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from dulwich.objects import Blob
from dulwich.repo import Repo

from anamnesis.sync.objects import object_copy, pack_copy
from anamnesis.sync.remote import transport
from anamnesis.sync.tree import worktree
from sync_testing import GIT, Machine, files, git, remote_files, write_note

needs_git = pytest.mark.skipif(GIT is None, reason="git binary not installed")


def _packs(objects: Path) -> set[str]:
    return {path.name for path in (objects / "pack").glob("*.pack")}


def _laptop_with_notes(machine: Machine, count: int = 80) -> None:
    laptop = machine("laptop")
    for n in range(count):  # beyond the loose-object threshold: staged as one pack
        write_note(laptop, f"semantic/{n}.md", f"note {n}\n")
    assert laptop.sync().pushed
    write_note(laptop, "episodic/later.md", "a later note, loose\n")
    assert laptop.sync().pushed


def test_a_first_pull_copies_the_remotes_packs(machine: Machine, remote: Path) -> None:
    _laptop_with_notes(machine)
    desktop = machine("desktop")
    result = desktop.sync()
    assert result.pulled == 2
    assert _packs(remote / "objects") <= _packs(desktop.repo_dir / ".git" / "objects")
    assert files(desktop) == files(machine("laptop"))
    assert desktop.sync().changed == ()  # and the record of the clean tree holds


def test_a_first_push_writes_what_its_commits_reach_into_one_pack(
    machine: Machine, remote: Path
) -> None:
    laptop = machine("laptop")
    for n in range(80):
        write_note(laptop, f"semantic/{n}.md", f"note {n}\n")
    laptop.init()
    with Repo(str(laptop.repo_dir)) as repo:  # as if a note was purged from history
        purged = Blob.from_string(b"api_key = a secret purged from history\n")
        repo.object_store.add_object(purged)
    assert laptop.sync().pushed
    assert len(_packs(remote / "objects")) == 1
    assert len(remote_files(remote)) == 80
    with Repo(str(remote)) as bare:
        assert purged.id not in bare.object_store  # our object files are never copied


def test_an_incomplete_copy_falls_back_to_object_by_object(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    _laptop_with_notes(machine)
    # As if the remote's packs were rolled up while they were being copied.
    monkeypatch.setattr(object_copy, "copy_objects", lambda source, target: True)
    desktop = machine("desktop")
    assert desktop.sync().pulled == 2
    assert files(desktop) == files(machine("laptop"))


def test_two_first_pushes_at_once_both_land(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/laptop.md", "from the laptop\n")
    write_note(desktop, "semantic/desktop.md", "from the desktop\n")
    real = pack_copy.copy_packed
    raced: list[bool] = []

    def desktop_first(*args: Any) -> None:
        real(*args)
        if not raced:  # the desktop's first push lands between our pack and our branch
            raced.append(True)
            assert desktop.sync().pushed

    monkeypatch.setattr(transport, "copy_packed", desktop_first)
    result = laptop.sync()
    assert result.pushed and result.pulled == 1, result.detail
    assert set(remote_files(remote)) == {"semantic/laptop.md", "semantic/desktop.md"}


def test_staging_stores_blobs_as_they_pile_up(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worktree, "_BLOBS_HELD", 80 * 9)  # a pack every 80 notes of 9 bytes
    laptop = machine("laptop")
    for n in range(300):
        write_note(laptop, f"semantic/{n:03d}.md", f"note {n:03d}\n")
    assert laptop.sync().pushed
    assert len(_packs(laptop.repo_dir / ".git" / "objects")) >= 3
    assert len(remote_files(remote)) == 300


@needs_git
@pytest.mark.needs_git
def test_git_finds_copied_and_written_packs_sound(machine: Machine, remote: Path) -> None:
    _laptop_with_notes(machine)
    desktop = machine("desktop")
    desktop.sync()
    write_note(desktop, "semantic/more.md", "more\n")
    desktop.sync()
    for folder in (remote, desktop.repo_dir, machine("laptop").repo_dir):
        git("fsck", "--full", "--strict", cwd=folder)
        with Repo(str(folder)) as repo:
            packs = Path(repo.object_store.path) / "pack"
        for index in packs.glob("*.idx"):
            git("verify-pack", str(index), cwd=folder)
