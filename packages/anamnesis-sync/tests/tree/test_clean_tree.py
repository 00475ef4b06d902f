"""A no-op sync skips git's index (clean_tree.py), and never at the cost of a change: every
kind of change made after a clean sync still reaches the remote."""

from __future__ import annotations

import dataclasses
import marshal
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from dulwich import porcelain
from dulwich.index import IndexEntry
from dulwich.objects import Blob
from dulwich.repo import Repo

from anamnesis.sync import GitSyncBackend
from anamnesis.sync.cycle import local_commits
from anamnesis.sync.tree import clean_tree, index_splice, worktree
from sync_testing import Machine, files, remote_files, write_note

NOTE = "semantic/a.md"


def _clean_laptop(machine: Machine) -> GitSyncBackend:
    laptop = machine("laptop")
    write_note(laptop, NOTE, "first text\n")
    write_note(laptop, "episodic/b.md", "another note\n")
    laptop.sync()
    # A file as new as the index is re-hashed (git's racy rule): age the files a little.
    for path in laptop.repo_dir.rglob("*.md"):
        os.utime(path, ns=(time.time_ns() - 5_000_000_000,) * 2)
    laptop.sync()  # restages the aged stat, then records the clean tree
    assert (laptop.repo_dir / ".git" / clean_tree.RECORD_FILE).is_file()
    return laptop


def _count_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Counts the calls of ``owner.name`` (the real ones still happen): git's index read
    (``Repo.open_index``), the walk of the notes folder (``worktree.walk_files``)."""
    calls: list[int] = []
    real = getattr(owner, name)

    def counted(*args: Any) -> Any:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_no_op_sync_never_reads_the_index(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = _clean_laptop(machine)
    reads = _count_calls(monkeypatch, Repo, "open_index")
    assert laptop.local_changes() == ()
    result = laptop.sync()
    assert (result.pushed, result.pulled, result.changed, result.committed) == (
        False,
        0,
        (),
        False,
    )
    assert reads == []
    assert remote_files(remote)[NOTE] == b"first text\n"


def _edit_same_size(laptop: GitSyncBackend) -> None:
    write_note(laptop, NOTE, "FIRST TEXT\n")  # same size, new mtime


def _edit_same_size_and_mtime_as_index(laptop: GitSyncBackend) -> None:
    path = laptop.repo_dir / NOTE
    before = path.stat()
    write_note(laptop, NOTE, "FIRST TEXT\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # stat unchanged...
    index = laptop.repo_dir / ".git" / "index"
    stamp = index.stat().st_mtime_ns
    os.utime(path, ns=(stamp, stamp))  # ...but as new as the index: racy, so re-hashed


def _make_executable(laptop: GitSyncBackend) -> None:
    path = laptop.repo_dir / NOTE
    path.chmod(0o755)


def _stage_with_another_tool(laptop: GitSyncBackend) -> None:
    # A git command staging a file changes the index: the record no longer applies.
    write_note(laptop, NOTE, "edited and staged elsewhere\n")
    porcelain.add(str(laptop.repo_dir), [str(laptop.repo_dir / NOTE)])


def _commit_with_another_tool(laptop: GitSyncBackend) -> None:
    write_note(laptop, NOTE, "committed elsewhere\n")
    porcelain.add(str(laptop.repo_dir), [str(laptop.repo_dir / NOTE)])
    porcelain.commit(str(laptop.repo_dir), message=b"by hand", author=b"a <a@b>")


def _file_to_folder(laptop: GitSyncBackend) -> None:
    (laptop.repo_dir / NOTE).unlink()
    write_note(laptop, f"{NOTE}/inside.md", "a folder where a note was\n")


CHANGES: dict[str, Callable[[GitSyncBackend], object]] = {
    "edited, new size": lambda laptop: write_note(laptop, NOTE, "a longer second text\n"),
    "edited, same size": _edit_same_size,
    "edited, stat as new as the index": _edit_same_size_and_mtime_as_index,
    "added": lambda laptop: write_note(laptop, "semantic/new.md", "new note\n"),
    "deleted": lambda laptop: (laptop.repo_dir / NOTE).unlink(),
    "made executable": _make_executable,
    "a note turned into a folder": _file_to_folder,
    "staged by another tool": _stage_with_another_tool,
    "committed by another tool": _commit_with_another_tool,
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_every_change_after_a_clean_sync_reaches_the_remote(
    machine: Machine, remote: Path, change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = _clean_laptop(machine)
    CHANGES[change](laptop)
    reads = _count_calls(monkeypatch, Repo, "open_index")
    if "another tool" not in change:  # local_changes: the folder against git's index
        assert laptop.local_changes() != ()
    result = laptop.sync()
    assert result.pushed, result.detail
    assert {k: v.encode() for k, v in files(laptop).items()} == remote_files(remote)
    # Our own edits are staged from the record (drift_staging.py), at the cost of what
    # changed; another tool's change to the index voids the record: the full staging.
    assert (reads == []) == ("another tool" not in change)
    again = laptop.sync()  # and the next one is a no-op again
    assert (again.pushed, again.committed) == (False, False)


def _age(backend: GitSyncBackend) -> None:
    for path in backend.repo_dir.rglob("*.md"):
        os.utime(path, ns=(time.time_ns() - 5_000_000_000,) * 2)


@pytest.mark.parametrize("local_edit", [False, True], ids=["pull only", "pull and replay"])
def test_a_pull_after_a_clean_sync_splices_the_index_and_keeps_the_record(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch, local_edit: bool
) -> None:
    laptop = _clean_laptop(machine)
    desktop = machine("desktop")
    desktop.sync()
    write_note(desktop, "semantic/from-desktop.md", "hello\n")
    (desktop.repo_dir / "episodic/b.md").unlink()
    desktop.sync()
    if local_edit:
        write_note(laptop, NOTE, "edited on the laptop\n")
    reads = _count_calls(monkeypatch, Repo, "open_index")
    result = laptop.sync()
    assert result.pulled == 1 and result.pushed == local_edit, result.detail
    assert reads == []
    assert {k: v.encode() for k, v in files(laptop).items()} == remote_files(remote)
    _age(laptop)
    laptop.sync()  # the aged stat is refreshed, by splicing again
    assert not laptop.sync().committed
    assert reads == []
    # The spliced index is the one dulwich (and git) would have written.
    with Repo(str(laptop.repo_dir)) as repo:
        index = repo.open_index()
        assert index.commit(repo.object_store) == repo[repo.head()].tree  # type: ignore[attr-defined]


def test_an_index_that_cannot_be_spliced_means_the_full_staging(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = _clean_laptop(machine)

    def refuse(*_args: object) -> None:
        raise index_splice.NotSpliceable("say, a split index")

    monkeypatch.setattr(index_splice, "splice", refuse)
    write_note(laptop, "semantic/new.md", "new note\n")
    reads = _count_calls(monkeypatch, Repo, "open_index")
    assert laptop.sync().pushed
    assert len(reads) == 1
    assert remote_files(remote)["semantic/new.md"] == b"new note\n"


def test_edits_that_do_not_make_the_head_tree_forget_the_record(machine: Machine) -> None:
    laptop = _clean_laptop(machine)
    with Repo(str(laptop.repo_dir)) as repo:
        head = repo.head()
        found = clean_tree.drift(repo, laptop.repo_dir, head, head)
        assert found is not None and found.empty
        entry = repo.open_index()[NOTE.encode()]
        assert isinstance(entry, IndexEntry)
        clean_tree.record_edits(repo, found, {NOTE.encode(): entry}, head)  # the same entry
        assert clean_tree.drift(repo, laptop.repo_dir, head, head) is not None
        clean_tree.record_edits(repo, found, {NOTE.encode(): None}, head)  # not HEAD's tree
        assert clean_tree.drift(repo, laptop.repo_dir, head, head) is None


@pytest.mark.parametrize("how", ["a file staged, not committed", "another blob", "one less"])
def test_an_index_that_is_not_the_head_tree_is_never_recorded(machine: Machine, how: str) -> None:
    # A file git staged but did not commit, taken for clean, would never be committed.
    laptop = _clean_laptop(machine)
    with Repo(str(laptop.repo_dir)) as repo:
        head = repo.head()
        index = repo.open_index()
        entry = index[NOTE.encode()]
        assert isinstance(entry, IndexEntry)
        if how == "a file staged, not committed":
            index[b"semantic/staged.md"] = entry
        elif how == "another blob":
            other = Blob.from_string(b"not what HEAD holds\n")
            repo.object_store.add_object(other)
            index[NOTE.encode()] = dataclasses.replace(entry, sha=other.id)
        else:
            del index[NOTE.encode()]
        index.write()
        clean_tree.record(repo, index, head)
        assert clean_tree.drift(repo, laptop.repo_dir, head, head) is None
        if how == "a file staged, not committed":  # the same check passes HEAD's tree
            del index[b"semantic/staged.md"]
            index.write()
            clean_tree.record(repo, index, head)
            assert clean_tree.drift(repo, laptop.repo_dir, head, head) is not None


def test_a_symlink_appearing_is_reported_not_skipped(machine: Machine) -> None:
    laptop = _clean_laptop(machine)
    (laptop.repo_dir / "semantic" / "link.md").symlink_to(laptop.repo_dir / NOTE)
    result = laptop.sync()
    assert [item.path for item in result.unsynced] == ["semantic/link.md"]


@pytest.mark.parametrize("damage", ["garbage", "empty", "other version", "missing"])
def test_a_damaged_record_means_the_full_staging(
    machine: Machine, remote: Path, damage: str
) -> None:
    laptop = _clean_laptop(machine)
    record = laptop.repo_dir / ".git" / clean_tree.RECORD_FILE
    if damage == "garbage":
        record.write_bytes(b"\x00not marshal at all")
    elif damage == "empty":
        record.write_bytes(b"")
    elif damage == "other version":
        _version, *rest = marshal.loads(record.read_bytes())
        record.write_bytes(marshal.dumps((99, *rest)))
    else:
        record.unlink()
    write_note(laptop, NOTE, "edited after the damage\n")
    assert laptop.local_changes() == (NOTE,)
    assert laptop.sync().pushed
    assert remote_files(remote)[NOTE] == b"edited after the damage\n"


def test_a_pull_records_the_new_tree_and_the_next_sync_is_a_no_op(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = _clean_laptop(machine)
    desktop = machine("desktop")
    desktop.sync()
    write_note(desktop, "semantic/from-desktop.md", "hello\n")
    desktop.sync()
    pulled = laptop.sync()
    assert pulled.changed == ("semantic/from-desktop.md",)
    for path in laptop.repo_dir.rglob("*.md"):  # aged, as above
        os.utime(path, ns=(time.time_ns() - 5_000_000_000,) * 2)
    laptop.sync()
    reads = _count_calls(monkeypatch, Repo, "open_index")
    assert not laptop.sync().pushed
    assert reads == []
    assert "semantic/from-desktop.md" in files(laptop)


def test_the_secret_scans_clean_verdict_spares_the_sync_a_second_walk(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = _clean_laptop(machine)
    walks = _count_calls(monkeypatch, worktree, "walk_files")
    assert laptop.local_changes() == ()
    assert not laptop.sync().committed
    assert len(walks) == 1


def test_an_old_verdict_is_checked_again_and_the_edit_goes_out(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = _clean_laptop(machine)
    assert laptop.local_changes() == ()
    write_note(laptop, NOTE, "edited after the scan\n")
    monkeypatch.setattr(local_commits, "VERDICT_S", 0.0)  # the verdict is already too old
    assert laptop.sync().pushed
    assert remote_files(remote)[NOTE] == b"edited after the scan\n"


def test_a_commit_after_the_verdict_voids_it(machine: Machine, remote: Path) -> None:
    laptop = _clean_laptop(machine)
    assert laptop.local_changes() == ()
    write_note(laptop, NOTE, "masked text\n")
    laptop.commit_local("masked")  # what the secret scan does when it masks a note
    write_note(laptop, "semantic/later.md", "written after the masking\n")
    assert laptop.sync().pushed
    assert remote_files(remote)["semantic/later.md"] == b"written after the masking\n"


@pytest.mark.parametrize("index_rewritten", [False, True], ids=["as read", "index rewritten"])
def test_what_the_secret_scan_read_is_committed_unless_the_index_changed(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch, index_rewritten: bool
) -> None:
    laptop = _clean_laptop(machine)
    write_note(laptop, "semantic/new.md", "new note\n")
    walks = _count_calls(monkeypatch, worktree, "walk_files")
    assert laptop.local_changes() == ("semantic/new.md",)
    if index_rewritten:
        _stage_with_another_tool(laptop)  # what was read no longer stands: read again
    assert laptop.sync().pushed
    assert len(walks) == 1 + index_rewritten  # the scan's walk, and the sync's if any
    assert remote_files(remote)["semantic/new.md"] == b"new note\n"
    if index_rewritten:
        assert remote_files(remote)[NOTE] == b"edited and staged elsewhere\n"
