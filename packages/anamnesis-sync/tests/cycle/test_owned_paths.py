"""A backend that owns only some paths (several remotes: the rest is routed elsewhere):
a path it does not own is never committed, a tracked one is committed as deleted, and an
incoming change to it is never written over the file here."""

from __future__ import annotations

from pathlib import Path

from anamnesis_testsupport.repos import every_blob, tip_paths

from anamnesis.sync import GitSyncBackend
from sync_testing import Machine


def owning(backend: GitSyncBackend, elsewhere: set[str]) -> GitSyncBackend:
    backend.owns = lambda rel: rel not in elsewhere
    return backend


def test_a_path_it_does_not_own_never_leaves(remote: Path, machine: Machine) -> None:
    laptop = owning(machine("laptop"), {"b/team.md"})
    folder = laptop.repo_dir
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    (folder / "a" / "mine.md").write_text("mine")
    (folder / "b" / "team.md").write_text("the team's secret plan")
    assert laptop.local_changes() == ("a/mine.md",)
    assert laptop.sync().pushed
    (folder / "b" / "team.md").write_text("the team's secret plan, edited")
    laptop.sync()
    assert tip_paths(remote) == {"a/mine.md"}
    assert not any(b"secret plan" in blob for blob in every_blob(remote))
    assert laptop.state().dirty is False


def test_a_tracked_path_it_stops_owning_is_committed_deleted(
    remote: Path, machine: Machine
) -> None:
    laptop = machine("laptop")
    folder = laptop.repo_dir
    (folder / "n").mkdir(parents=True)
    (folder / "n" / "moved.md").write_text("moving")
    (folder / "n" / "kept.md").write_text("kept")
    laptop.sync()
    owning(laptop, {"n/moved.md"})
    result = laptop.sync()
    assert result.pushed
    assert tip_paths(remote) == {"n/kept.md"}
    assert (folder / "n" / "moved.md").read_text() == "moving"  # the file stays here


def test_an_incoming_change_to_a_path_it_does_not_own_is_not_written(
    remote: Path, machine: Machine
) -> None:
    desktop, laptop = machine("desktop"), machine("laptop")
    (desktop.repo_dir / "n").mkdir(parents=True)
    (desktop.repo_dir / "n" / "shared.md").write_text("version 1")
    desktop.sync()
    laptop.sync()
    owning(laptop, {"n/shared.md"})
    (laptop.repo_dir / "n" / "shared.md").write_text("the other remote's version")
    (desktop.repo_dir / "n" / "shared.md").write_text("version 2")
    desktop.sync()
    laptop.sync()
    assert (laptop.repo_dir / "n" / "shared.md").read_text() == "the other remote's version"
    assert not any(b"other remote" in blob for blob in every_blob(remote))
