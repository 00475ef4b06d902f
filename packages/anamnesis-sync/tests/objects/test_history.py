"""The history API: which commit wrote which file, by which machine, walked incrementally."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from dulwich.index import commit_tree
from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import (
    ChangedFile,
    CommitChanges,
    GitSyncBackend,
    SyncError,
    head_commit,
    new_commits,
    read_blob,
    unreachable_commits,
)
from sync_testing import Machine, write_note

A = "semantic/01J9Z8YPM7Q3X2V4WT6B5N0KGA.md"
B = "semantic/01J9Z8YPM7Q3X2V4WT6B5N0KGB.md"
C = "procedural/01J9Z8YPM7Q3X2V4WT6B5N0KGC.md"


def everything(repo_dir: Path) -> list[CommitChanges]:
    return list(new_commits(repo_dir, lambda sha: False))


def blob_of(text: str) -> str:
    return Blob.from_string(text.encode()).id.decode()


def files_of(commit: CommitChanges) -> dict[str, str | None]:
    return {f.path: f.blob for f in commit.files}


def local(machine: Machine, name: str = "a") -> GitSyncBackend:
    return machine(name, remote_url=None)


def commit_files(backend: GitSyncBackend, notes: dict[str, str | None]) -> str:
    """Write (or delete, for None) files and commit them; return the new head."""
    for rel, text in notes.items():
        if text is None:
            (backend.repo_dir / rel).unlink()
        else:
            write_note(backend, rel, text)
    backend.commit_local()
    head = head_commit(backend.repo_dir)
    assert head is not None
    return head


# -- one machine ------------------------------------------------------------------------


def test_linear_history_newest_first_with_each_commits_own_files(machine: Machine) -> None:
    a = local(machine)
    first = commit_files(a, {A: "one", B: "bee"})
    second = commit_files(a, {A: "two"})
    third = commit_files(a, {C: "sea"})
    commits = everything(a.repo_dir)
    assert [c.sha for c in commits] == [third, second, first]
    assert [c.parents for c in commits] == [(second,), (first,), ()]
    assert files_of(commits[2]) == {A: blob_of("one"), B: blob_of("bee")}
    assert files_of(commits[1]) == {A: blob_of("two")}
    assert files_of(commits[0]) == {C: blob_of("sea")}
    for commit in commits:
        assert commit.machine_id == "a"
        assert commit.message.startswith("anamnesis: sync from a at ")
        assert "\n" not in commit.message
        assert commit.time > 1_700_000_000


def test_a_deletion_has_no_blob(machine: Machine) -> None:
    a = local(machine)
    commit_files(a, {A: "one", B: "bee"})
    commit_files(a, {A: None})
    assert everything(a.repo_dir)[0].files == (ChangedFile(A, None),)


def test_a_move_is_a_deletion_and_an_addition(machine: Machine) -> None:
    a = local(machine)
    commit_files(a, {A: "moving"})
    moved = "procedural/" + A.split("/", 1)[1]
    (a.repo_dir / "procedural").mkdir()
    (a.repo_dir / A).rename(a.repo_dir / moved)
    a.commit_local()
    assert everything(a.repo_dir)[0].files == (
        ChangedFile(moved, blob_of("moving")),
        ChangedFile(A, None),
    )


def test_every_path_is_reported_not_only_notes(machine: Machine) -> None:
    a = local(machine)
    commit_files(a, {"README.txt": "hello", "deep/er/x.md": "x"})
    assert set(files_of(everything(a.repo_dir)[0])) == {"README.txt", "deep/er/x.md"}


# -- two machines -----------------------------------------------------------------------


def test_a_note_from_another_machine_is_attributed_to_its_commit(machine: Machine) -> None:
    a, b = machine("a"), machine("b")
    write_note(a, A, "from a")
    a.sync()
    b.sync()
    write_note(b, B, "from b")
    b.sync()
    write_note(a, C, "a again")
    a.commit_local()
    a.sync()  # a's commit is replayed on top of b's
    by_path = {f.path: c for c in everything(a.repo_dir) for f in c.files}
    assert by_path[B].machine_id == "b"
    assert by_path[A].machine_id == by_path[C].machine_id == "a"
    assert by_path[C].parents == (by_path[B].sha,)


def test_a_resolution_is_attributed_to_the_machine_that_resolved(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, A, "original")
    laptop.sync()
    desktop.sync()
    write_note(laptop, A, "laptop edit")
    write_note(desktop, A, "desktop edit")
    laptop.sync()
    assert desktop.sync().conflicted
    desktop.resolve("ours")
    newest = everything(desktop.repo_dir)[0]
    assert newest.machine_id == "desktop"
    assert newest.message.startswith("anamnesis: resolve conflict (ours)")
    assert files_of(newest) == {A: blob_of("desktop edit")}
    by_blob = {f.blob: c.machine_id for c in everything(desktop.repo_dir) for f in c.files}
    assert by_blob[blob_of("laptop edit")] == "laptop"


# -- merge commits (made by git, not by the sync, which keeps history linear) ------------


def _tree_with(repo: Repo, base_commit: ObjectID, notes: dict[str, str]) -> ObjectID:
    base = repo[base_commit]
    assert isinstance(base, Commit)
    entries = {
        e.path: (e.sha, e.mode)
        for e in iter_tree_contents(repo.object_store, base.tree)
        if e.path is not None and e.sha is not None and e.mode is not None
    }
    for rel, text in notes.items():
        blob = Blob.from_string(text.encode())
        repo.object_store.add_object(blob)
        entries[rel.encode()] = (blob.id, 0o100644)
    return commit_tree(repo.object_store, [(p, sha, mode) for p, (sha, mode) in entries.items()])


def _commit(repo: Repo, tree: ObjectID, parents: list[ObjectID], who: bytes, when: int) -> str:
    commit = Commit()
    commit.tree, commit.parents = tree, parents
    commit.author = commit.committer = who
    commit.author_time = commit.commit_time = when
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"merge\n" if len(parents) > 1 else b"edit\n"
    repo.object_store.add_object(commit)
    return commit.id.decode()


def test_a_merge_owns_only_what_differs_from_every_parent(machine: Machine) -> None:
    a = local(machine)
    base = commit_files(a, {A: "base", B: "bee"})
    with Repo(str(a.repo_dir)) as repo:
        base_commit = repo[ObjectID(base.encode())]
        assert isinstance(base_commit, Commit)
        t = base_commit.commit_time
        ours = _commit(
            repo,
            _tree_with(repo, ObjectID(base.encode()), {A: "ours"}),
            [ObjectID(base.encode())],
            b"anamnesis <anamnesis@a>",
            t + 10,
        )
        theirs = _commit(
            repo,
            _tree_with(repo, ObjectID(base.encode()), {A: "theirs", C: "from b"}),
            [ObjectID(base.encode())],
            b"anamnesis <anamnesis@b>",
            t + 20,
        )
        # The merge settles A with new content and takes C from the other side as it is.
        merged = _tree_with(repo, ObjectID(ours.encode()), {A: "settled", C: "from b"})
        merge = _commit(
            repo,
            merged,
            [ObjectID(ours.encode()), ObjectID(theirs.encode())],
            b"Some One <one@example.com>",
            t + 30,
        )
        repo.refs[Ref(b"refs/heads/main")] = ObjectID(merge.encode())
    walked = everything(a.repo_dir)
    assert walked[0].sha == merge
    commits = {c.sha: c for c in walked}
    assert commits[merge].parents == (ours, theirs)
    assert commits[merge].machine_id == "Some One <one@example.com>"
    assert files_of(commits[merge]) == {A: blob_of("settled")}
    assert files_of(commits[theirs]) == {A: blob_of("theirs"), C: blob_of("from b")}
    assert commits[theirs].machine_id == "b"
    assert files_of(commits[ours]) == {A: blob_of("ours")}
    assert len(commits) == 4  # the shared base comes once


# -- incremental use --------------------------------------------------------------------


def test_known_commits_stop_the_walk(machine: Machine) -> None:
    a = local(machine)
    for i in range(5):
        commit_files(a, {A: f"v{i}"})
    seen = {c.sha for c in everything(a.repo_dir)}
    newest = commit_files(a, {B: "new"})
    asked: list[str] = []

    def known(sha: str) -> bool:
        asked.append(sha)
        return sha in seen

    fresh = list(new_commits(a.repo_dir, known))
    assert [c.sha for c in fresh] == [newest]
    assert asked == [newest, fresh[0].parents[0]]  # nothing older was looked at
    assert list(new_commits(a.repo_dir, lambda sha: sha in seen or sha == newest)) == []


def test_start_pins_the_walk_to_a_head_read_earlier(machine: Machine) -> None:
    a = local(machine)
    first = commit_files(a, {A: "one"})
    commit_files(a, {A: "two"})
    assert [c.sha for c in new_commits(a.repo_dir, lambda sha: False, start=first)] == [first]


def test_unreachable_commits_after_a_replay(machine: Machine) -> None:
    a, b = machine("a"), machine("b")
    write_note(a, A, "shared")
    a.sync()
    b.sync()
    write_note(b, B, "from b")
    b.sync()
    before = commit_files(a, {C: "local only"})
    a.sync()
    after = head_commit(a.repo_dir)
    assert after is not None and after != before
    assert unreachable_commits(a.repo_dir, before, after) == [before]
    assert unreachable_commits(a.repo_dir, everything(a.repo_dir)[1].sha, after) == []
    assert len(unreachable_commits(a.repo_dir, after, None)) == 3
    with pytest.raises(SyncError, match="damaged"):
        unreachable_commits(a.repo_dir, "0" * 40, after)


# -- no repository, empty, damaged ------------------------------------------------------


def test_no_repository(tmp_path: Path) -> None:
    assert head_commit(tmp_path / "never") is None
    assert head_commit(tmp_path) is None
    with pytest.raises(SyncError, match="not a git repository"):
        new_commits(tmp_path, lambda sha: False)
    with pytest.raises(SyncError, match="not a git repository"):
        read_blob(tmp_path, blob_of("x"))


def test_an_empty_repository_has_no_commits(machine: Machine) -> None:
    a = local(machine)
    a.init()
    assert head_commit(a.repo_dir) is None
    assert everything(a.repo_dir) == []


def test_a_git_folder_that_is_no_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    with pytest.raises(SyncError, match="not a git repository"):
        head_commit(tmp_path)
    with pytest.raises(SyncError):
        new_commits(tmp_path, lambda sha: False)


def test_a_missing_commit_is_reported_as_damage(machine: Machine) -> None:
    a = local(machine)
    first = commit_files(a, {A: "one"})
    commit_files(a, {A: "two"})
    objects = a.repo_dir / ".git" / "objects"
    (objects / first[:2] / first[2:]).unlink()
    with pytest.raises(SyncError, match=f"commit {first} is missing"):
        everything(a.repo_dir)


def test_a_missing_tree_is_reported_as_damage(machine: Machine) -> None:
    a = local(machine)
    commit_files(a, {A: "one"})
    with Repo(str(a.repo_dir)) as repo:
        head = repo[repo.head()]
        assert isinstance(head, Commit)
        tree = head.tree.decode()
    shutil.rmtree(a.repo_dir / ".git" / "objects" / tree[:2])
    with pytest.raises(SyncError, match="damaged"):
        everything(a.repo_dir)


# -- blobs ------------------------------------------------------------------------------


def test_read_blob_round_trip_and_unknown_ids(machine: Machine) -> None:
    a = local(machine)
    text = "---\nid: x\n---\nbody with ünïcode\n"
    commit_files(a, {A: text})
    (changed,) = everything(a.repo_dir)[0].files
    assert changed.blob is not None
    assert read_blob(a.repo_dir, changed.blob) == text.encode()
    with pytest.raises(SyncError, match="no blob"):
        read_blob(a.repo_dir, blob_of("never written"))
    with pytest.raises(SyncError, match="40 hex digits"):
        read_blob(a.repo_dir, "HEAD")
    head = head_commit(a.repo_dir)
    assert head is not None
    with pytest.raises(SyncError, match="not a blob"):
        read_blob(a.repo_dir, head)


def test_a_file_replaced_by_a_folder_and_back(machine: Machine) -> None:
    a = local(machine)
    commit_files(a, {"topic": "a file", A: "keep"})
    (a.repo_dir / "topic").unlink()
    commit_files(a, {"topic/inner.md": "in a folder"})
    assert files_of(everything(a.repo_dir)[0]) == {
        "topic": None,
        "topic/inner.md": blob_of("in a folder"),
    }
    (a.repo_dir / "topic" / "inner.md").unlink()
    (a.repo_dir / "topic").rmdir()
    commit_files(a, {"topic": "a file again"})
    assert files_of(everything(a.repo_dir)[0]) == {
        "topic": blob_of("a file again"),
        "topic/inner.md": None,
    }
