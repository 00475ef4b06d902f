"""Another machine's notes folder used as a remote, and a branch moved behind our back.

git refuses to push into the checked-out branch of a repository with files
(receive.denyCurrentBranch); so does sync. And should the branch move anyway (an older
tool, a git command), the next sync brings the files in line instead of committing the
old files over what arrived.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

from anamnesis.sync import GitSyncBackend
from anamnesis.sync.objects.integrate import Changes, apply_changes, build_tree, flat_tree, tree_of
from sync_testing import MAIN, Machine, edit_once_before, files, remote_files, write_note


def move_branch(folder: Path, changes: dict[str, str | None]) -> bytes:
    """Commit ``changes`` on the folder's branch with dulwich, touching no file on disk:
    what a push into the folder from an older tool does."""
    repo = Repo(str(folder))
    try:
        head = repo.refs[MAIN]
        tree = flat_tree(repo, tree_of(repo, head))
        delta: Changes = {}
        for path, text in changes.items():
            if text is None:
                delta[path.encode()] = None
            else:
                blob = Blob.from_string(text.encode())
                repo.object_store.add_object(blob)
                delta[path.encode()] = (0o100644, blob.id)
        commit = Commit()
        commit.tree = build_tree(repo, apply_changes(tree, delta))
        commit.parents = [head]
        commit.author = commit.committer = b"elsewhere <elsewhere@example.com>"
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"moved by another program\n"
        repo.object_store.add_object(commit)
        repo.refs[MAIN] = commit.id
        return commit.id
    finally:
        repo.close()


def test_pushing_into_another_machines_notes_folder_is_refused(machine: Machine) -> None:
    desktop = machine("desktop", remote_url=None)
    write_note(desktop, "semantic/d.md", "from the desktop")
    desktop.sync()
    head = desktop.state().head
    laptop = machine("laptop", remote_url=desktop.repo_dir)
    assert laptop.sync().pulled == 1  # fetching from it is fine
    write_note(laptop, "semantic/l.md", "from the laptop")
    result = laptop.sync()
    assert not result.pushed and result.committed
    assert "checked out" in result.remote_error
    assert "init --bare" in result.detail  # says how to make a proper remote
    assert desktop.state().head == head
    assert desktop.sync().head == head  # its branch did not move, so nothing to undo
    assert files(desktop) == {"semantic/d.md": "from the desktop"}


def test_a_bare_repository_opened_through_its_git_dir_path_is_still_pushable(
    machine: Machine, remote: Path
) -> None:
    laptop = machine("laptop", remote_url=f"file://{remote}")
    write_note(laptop, "semantic/a.md", "x")
    assert laptop.sync().pushed
    assert set(remote_files(remote)) == {"semantic/a.md"}


def test_a_folder_whose_branch_moved_takes_the_new_files_and_keeps_its_own(
    machine: Machine,
) -> None:
    desktop = machine("desktop", remote_url=None)
    write_note(desktop, "semantic/d.md", "mine")
    write_note(desktop, "semantic/old.md", "to be deleted elsewhere")
    desktop.sync()
    moved = move_branch(
        desktop.repo_dir, {"semantic/pushed.md": "arrived", "semantic/old.md": None}
    )
    assert "moved by another program" in desktop.state().detail
    result = desktop.sync()
    assert not result.conflicted
    assert set(result.changed) == {"semantic/pushed.md", "semantic/old.md"}
    assert files(desktop) == {"semantic/d.md": "mine", "semantic/pushed.md": "arrived"}
    assert result.head == moved.decode()[:7]  # nothing of ours to add on top
    assert not desktop.state().dirty
    assert "moved" not in desktop.state().detail


def test_local_edits_made_before_the_branch_moved_are_replayed_on_it(
    machine: Machine,
) -> None:
    desktop = machine("desktop", remote_url=None)
    write_note(desktop, "semantic/d.md", "mine")
    desktop.sync()
    move_branch(desktop.repo_dir, {"semantic/pushed.md": "arrived"})
    write_note(desktop, "semantic/d.md", "mine, edited")
    write_note(desktop, "semantic/new.md", "new here")
    result = desktop.sync()
    assert result.committed and not result.conflicted
    assert files(desktop) == {
        "semantic/d.md": "mine, edited",
        "semantic/new.md": "new here",
        "semantic/pushed.md": "arrived",
    }
    repo = Repo(str(desktop.repo_dir))
    try:  # the history keeps the moved commit: nothing was committed over it
        commit = repo[repo.refs[MAIN]]
        assert isinstance(commit, Commit)
        parent = repo[commit.parents[0]]
        assert isinstance(parent, Commit) and parent.message == b"moved by another program\n"
    finally:
        repo.close()


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        ("ours", ["edited here"]),
        ("theirs", ["edited elsewhere"]),
        ("keep-both", ["edited elsewhere", "edited here"]),
    ],
)
def test_a_moved_branch_that_edited_the_same_note_is_a_conflict_to_resolve(
    machine: Machine, remote: Path, strategy: str, expected: list[str]
) -> None:
    desktop = machine("desktop", remote_url=None)
    write_note(desktop, "semantic/d.md", "original")
    desktop.sync()
    moved = move_branch(desktop.repo_dir, {"semantic/d.md": "edited elsewhere"})
    write_note(desktop, "semantic/d.md", "edited here")
    result = desktop.sync()
    assert result.conflicted and result.conflicts == ("semantic/d.md",)
    assert "another program" in result.detail
    assert files(desktop) == {"semantic/d.md": "edited here"}
    assert desktop.commit_local() == moved.decode()[:7]  # never committed over the move
    resolved = desktop.resolve(strategy)  # type: ignore[arg-type]
    assert not resolved.conflicted and resolved.committed
    assert sorted(files(desktop).values()) == expected
    assert not desktop.sync().conflicted
    # Once a remote is configured, the settled history travels as usual.
    online = GitSyncBackend(desktop.repo_dir, remote=str(remote), machine_id="desktop")
    assert online.sync().pushed
    assert sorted(text.decode() for text in remote_files(remote).values()) == expected


def test_an_edit_while_catching_up_with_a_moved_branch_stops_before_the_network(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    desktop = machine("desktop")
    write_note(desktop, "semantic/d.md", "original")
    desktop.sync()
    pushed = remote_files(remote)
    moved = move_branch(desktop.repo_dir, {"semantic/d.md": "edited elsewhere"})
    calls = edit_once_before(
        monkeypatch, "apply_tree_change", lambda: write_note(desktop, "semantic/d.md", "mine")
    )
    result = desktop.sync()
    assert calls
    assert not result.pushed and "nothing was overwritten" in result.detail
    assert files(desktop) == {"semantic/d.md": "mine"}
    assert desktop.commit_local() is not None
    assert remote_files(remote) == pushed  # nothing went out while the folder was unsettled
    monkeypatch.undo()
    again = desktop.sync()  # the edit now meets the moved commit as a conflict
    assert again.conflicted and again.conflicts == ("semantic/d.md",)
    assert desktop.state().head == moved.decode()[:7]
