"""The sync cycle between machines sharing a bare remote."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import GitSyncBackend
from anamnesis.sync.objects.integrate import build_tree, flat_tree
from anamnesis.sync.remote import housekeeping
from anamnesis.sync.tree import worktree
from sync_testing import MAIN, Machine, files, remote_files, write_note

NOTE = "---\nid: {id}\ntype: semantic\ntitle: {title}\n---\n{body}\n"
ID1 = "01J9Z8YPM7Q3X2V4WT6B5N0KG1"
ID2 = "01J9Z8YPM7Q3X2V4WT6B5N0KG2"


def note(memory_id: str, title: str = "T", body: str = "B") -> str:
    return NOTE.format(id=memory_id, title=title, body=body)


def test_a_note_written_on_one_machine_reaches_the_other(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, f"semantic/{ID1}.md", note(ID1, "from laptop"))
    first = laptop.sync()
    assert (first.pushed, first.committed, first.conflicted) == (True, True, False)
    second = desktop.sync()
    assert second.pulled == 1
    assert second.changed == (f"semantic/{ID1}.md",)
    assert files(desktop) == files(laptop)


def test_commit_message_and_author(machine: Machine, remote: Path) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    laptop.sync()
    repo = Repo(str(remote))
    commit = repo[repo.refs[Ref(b"refs/heads/main")]]
    assert commit.author == b"anamnesis <anamnesis@laptop>"  # type: ignore[attr-defined]
    assert commit.message.startswith(b"anamnesis: sync from laptop at ")  # type: ignore[attr-defined]
    repo.close()


def test_deletions_propagate_both_ways(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", note(ID1))
    write_note(laptop, "semantic/b.md", note(ID2))
    laptop.sync()
    desktop.sync()
    (desktop.repo_dir / "semantic" / "a.md").unlink()
    assert desktop.sync().pushed
    result = laptop.sync()
    assert result.changed == ("semantic/a.md",)
    assert not (laptop.repo_dir / "semantic" / "a.md").exists()
    (laptop.repo_dir / "semantic" / "b.md").unlink()
    laptop.sync()
    desktop.sync()
    assert files(desktop) == files(laptop) == {}


def test_only_the_notes_folder_travels(tmp_path: Path, remote: Path) -> None:
    # A store's real layout: memory/ is the repository; the index, its WAL, the machine-local
    # notes and the config live beside it, never inside.
    root = tmp_path / "home"
    (root / "local" / "semantic").mkdir(parents=True)
    (root / "local" / "semantic" / "private.md").write_text("machine-local")
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (root / name).write_bytes(b"SQLite format 3\0")
    (root / "config.json").write_text("{}")
    backend = GitSyncBackend(root / "memory", remote=str(remote), machine_id="laptop")
    write_note(backend, "semantic/a.md", "portable")
    # Strays inside the folder: an atomic write caught half-way, a misplaced index.
    write_note(backend, "semantic/.a.md.1234abcd.tmp", "half-written")
    for name in ("index.db", "index.db-wal", "cache.sqlite3", "semantic/stray.DB"):
        (backend.repo_dir / name).write_bytes(b"SQLite format 3\0")
    result = backend.sync()
    assert result.pushed
    assert set(remote_files(remote)) == {"semantic/a.md"}
    assert not backend.state().dirty  # and they do not count as local changes either
    assert (backend.repo_dir / worktree.LOCK_FILE).exists()  # present, yet never synced
    assert (root / "local" / "semantic" / "private.md").read_text() == "machine-local"


def test_a_database_file_committed_elsewhere_is_carried_but_never_written_here(
    machine: Machine, remote: Path
) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", "x")
    laptop.sync()
    desktop.sync()
    # Another tool committed a database into the shared history.
    repo = Repo(str(remote))
    head = repo[repo.refs[MAIN]]
    assert isinstance(head, Commit)
    tree = flat_tree(repo, head.tree)
    blob = Blob.from_string(b"their database")
    repo.object_store.add_object(blob)
    tree[b"index.db"] = (0o100644, blob.id)
    commit = Commit()
    commit.tree = build_tree(repo, tree)
    commit.parents = [head.id]
    commit.author = commit.committer = b"tool <tool@example.com>"
    commit.author_time = commit.commit_time = 0
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"added a database\n"
    repo.object_store.add_object(commit)
    repo.refs[MAIN] = commit.id
    repo.close()
    (desktop.repo_dir / "index.db").write_bytes(b"this machine's own index")
    write_note(desktop, "semantic/b.md", "y")
    result = desktop.sync()
    assert result.pushed and not result.conflicted
    assert (desktop.repo_dir / "index.db").read_bytes() == b"this machine's own index"
    assert remote_files(remote)["index.db"] == b"their database"  # not deleted, not replaced


def test_commit_local_returns_the_same_short_head_as_state(machine: Machine) -> None:
    solo = machine("solo", remote_url=None)
    assert solo.commit_local() is None
    write_note(solo, "semantic/a.md", "x")
    head = solo.commit_local()
    assert head is not None and len(head) == 7
    assert head == solo.state().head == solo.sync().head


def test_no_remote_commits_locally_and_says_so(machine: Machine) -> None:
    solo = machine("solo", remote_url=None)
    write_note(solo, "semantic/a.md", "x")
    result = solo.sync()
    assert (result.pushed, result.committed) == (False, True)
    assert "remote" in result.detail
    assert solo.state().head == result.head


def test_a_remote_configured_after_a_local_only_start_takes_effect(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    solo = machine("solo", remote_url=None)
    write_note(solo, "semantic/a.md", "made offline")
    solo.sync()
    later = GitSyncBackend(solo.repo_dir, remote=str(remote), machine_id="solo")
    assert later.sync().pushed
    assert set(remote_files(remote)) == {"semantic/a.md"}
    other = tmp_path / "other.git"
    other.mkdir()
    Repo.init_bare(str(other)).close()
    moved = GitSyncBackend(solo.repo_dir, remote=str(other), machine_id="solo")
    assert moved.sync().pushed  # origin is repointed on every cycle
    assert set(remote_files(other)) == {"semantic/a.md"}


def test_first_sync_of_an_empty_store_with_an_empty_remote(machine: Machine) -> None:
    result = machine("fresh").sync()
    assert (result.pushed, result.pulled, result.conflicted) == (False, 0, False)
    assert "nothing to sync" in result.detail


def test_an_empty_store_takes_a_remote_that_is_ahead(machine: Machine) -> None:
    laptop, fresh = machine("laptop"), machine("fresh")
    for i in range(3):
        write_note(laptop, f"semantic/{i}.md", f"note {i}")
        laptop.sync()
    result = fresh.sync()
    assert result.pulled == 3
    assert files(fresh) == files(laptop)


def test_a_store_with_unrelated_history_merges_into_the_remote(
    machine: Machine, remote: Path
) -> None:
    laptop = machine("laptop")
    desktop = machine("desktop", remote_url=None)
    write_note(laptop, "semantic/l.md", "from laptop")
    laptop.sync()
    write_note(desktop, "semantic/d.md", "from desktop, offline")
    desktop.sync()
    joined = GitSyncBackend(desktop.repo_dir, remote=str(remote), machine_id="desktop")
    result = joined.sync()
    assert (result.pushed, result.conflicted) == (True, False)
    assert set(remote_files(remote)) == {"semantic/l.md", "semantic/d.md"}


def test_noop_sync_changes_nothing(machine: Machine) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    head = laptop.sync().head
    again = laptop.sync()
    assert (again.pushed, again.pulled, again.committed, again.head) == (False, 0, False, head)
    assert again.changed == ()


def test_edits_are_staged_and_pushed(machine: Machine, remote: Path) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    path = write_note(laptop, "semantic/a.md", "v1")
    laptop.sync()
    desktop.sync()
    path.write_text("v2 is longer")
    laptop.sync()
    assert remote_files(remote)["semantic/a.md"] == b"v2 is longer"
    assert desktop.sync().changed == ("semantic/a.md",)
    assert files(desktop)["semantic/a.md"] == "v2 is longer"


def test_state_reports_dirty_ahead_and_behind(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    assert not laptop.state().initialized
    write_note(laptop, "semantic/a.md", "x")
    laptop.sync()
    desktop.sync()
    write_note(desktop, "semantic/b.md", "y")
    assert desktop.state().dirty
    desktop.commit_local()
    state = desktop.state()
    assert (state.dirty, state.ahead, state.behind) == (False, 1, 0)
    desktop.sync()
    laptop.sync()
    assert laptop.state().detail.startswith("in sync")


def test_many_syncs_keep_loose_objects_packed(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(housekeeping, "LOOSE_OBJECT_LIMIT", 20)
    laptop = machine("laptop", remote_url=None)
    for i in range(40):
        write_note(laptop, f"semantic/{i}.md", f"note {i}")
        laptop.sync()
    repo = Repo(str(laptop.repo_dir))
    assert repo.object_store.count_loose_objects() <= 20 + 5
    repo.close()


def _packs(objects: Path) -> int:
    return len(list((objects / "pack").glob("*.pack")))


def test_packs_stay_few_on_a_machine_that_only_pulls_and_on_the_remote(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(housekeeping, "PACK_LIMIT", 4)
    writer, reader = machine("writer"), machine("reader")
    for i in range(12):
        write_note(writer, f"semantic/{i}.md", f"note {i}")
        assert writer.sync().pushed
        assert reader.sync().pulled == 1  # every pull brings one more pack
        assert _packs(reader.repo_dir / ".git" / "objects") <= 4 + 1
        assert _packs(remote / "objects") <= 4 + 1
    assert files(reader) == files(writer)
    assert len(remote_files(remote)) == 12
    reader.sync()  # a consolidated store still reads every object
    assert files(reader) == files(writer)


def test_twenty_four_alternating_cycles_converge(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    expected: set[str] = set()
    for cycle in range(24):
        side = laptop if cycle % 2 == 0 else desktop
        write_note(side, f"episodic/{cycle:02d}.md", f"cycle {cycle} on {side.machine_id}")
        expected.add(f"episodic/{cycle:02d}.md")
        if cycle % 5 == 4:  # now and then a deletion, of a note the other side wrote
            theirs = [p for p in sorted(expected) if int(p[9:11]) % 2 != cycle % 2]
            (side.repo_dir / theirs[0]).unlink()
            expected.discard(theirs[0])
        assert not side.sync().conflicted
    laptop.sync()
    desktop.sync()
    assert set(files(laptop)) == set(files(desktop)) == expected
    assert files(laptop) == files(desktop)
