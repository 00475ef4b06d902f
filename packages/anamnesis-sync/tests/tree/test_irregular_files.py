"""Symlinks, FIFOs and devices in the notes tree are never followed, read or committed, and a
symlink (or submodule) arriving from the remote is never created here: both are reported."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest
from anamnesis_testsupport.repos import every_blob
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.repo import Repo

from anamnesis.sync import SyncResult, Unsynced
from anamnesis.sync.objects.integrate import apply_changes, build_tree, flat_tree, tree_of
from sync_testing import MAIN, Machine, files, remote_files, write_note

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="symlinks and FIFOs need a POSIX file system"
)

SECRET = b"TOP-SECRET-OUTSIDE-THE-STORE\n"


def sync_within(backend: object, seconds: float = 20.0) -> SyncResult:
    """Run ``backend.sync()`` but fail, not hang, if it blocks (a FIFO opened for reading
    waits for a writer forever)."""
    box: list[object] = []
    worker = threading.Thread(target=lambda: box.append(backend.sync()), daemon=True)  # type: ignore[attr-defined]
    worker.start()
    worker.join(seconds)
    assert box, "sync blocked: it opened something that is not a plain file"
    result = box[0]
    assert isinstance(result, SyncResult)
    return result


def test_symlinks_fifos_and_devices_here_are_never_read_or_committed(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_bytes(SECRET)
    (outside / "folder").mkdir()
    (outside / "folder" / "inside.md").write_bytes(SECRET)
    laptop = machine("laptop")
    write_note(laptop, "semantic/real.md", "a real note\n")
    root = laptop.repo_dir
    (root / "semantic" / "leak.md").symlink_to(outside / "secret.md")
    (root / "semantic" / "passwd.md").symlink_to("/etc/passwd")
    (root / "semantic" / "zero.md").symlink_to("/dev/zero")
    (root / "linked").symlink_to(outside / "folder", target_is_directory=True)
    os.mkfifo(root / "semantic" / "pipe.md")

    result = sync_within(laptop)
    assert result.pushed, result.detail
    assert remote_files(remote) == {"semantic/real.md": b"a real note\n"}
    pushed = every_blob(remote)
    assert not any(SECRET in blob or b"root:" in blob for blob in pushed)
    assert set(result.unsynced) == {
        Unsynced("semantic/leak.md", "symlink", incoming=False),
        Unsynced("semantic/passwd.md", "symlink", incoming=False),
        Unsynced("semantic/zero.md", "symlink", incoming=False),
        Unsynced("linked", "symlink", incoming=False),
        Unsynced("semantic/pipe.md", "fifo", incoming=False),
    }
    assert set(laptop.state().unsynced) == set(result.unsynced)
    # Still left alone, and still reported, on the next sync.
    again = sync_within(laptop)
    assert len(again.unsynced) == 5
    assert remote_files(remote) == {"semantic/real.md": b"a real note\n"}
    assert (root / "semantic" / "leak.md").is_symlink()  # not ours to remove


def commit_on_remote(remote: Path, entries: dict[str, tuple[int, bytes]]) -> None:
    """Commit files with the given modes on the remote's branch: what a git client that
    commits symlinks (or submodules) pushes."""
    with Repo(str(remote)) as repo:
        head = repo.refs[MAIN]
        tree = flat_tree(repo, tree_of(repo, head))
        for path, (mode, data) in entries.items():
            if mode == 0o160000:  # a submodule: the id of a commit that is not here
                tree[path.encode()] = (mode, ObjectID(data))
                continue
            blob = Blob.from_string(data)
            repo.object_store.add_object(blob)
            tree[path.encode()] = (mode, blob.id)
        commit = Commit()
        commit.tree = build_tree(repo, apply_changes(tree, {}))
        commit.parents = [head]
        commit.author = commit.committer = b"elsewhere <elsewhere@example.com>"
        commit.author_time = commit.commit_time = int(time.time())
        commit.author_timezone = commit.commit_timezone = 0
        commit.message = b"a symlink, from a git client\n"
        repo.object_store.add_object(commit)
        repo.refs[MAIN] = commit.id


def test_a_symlink_or_submodule_from_the_remote_is_never_created_here(
    machine: Machine, remote: Path
) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", "a\n")
    laptop.sync()
    commit_on_remote(
        remote,
        {
            "semantic/evil.md": (0o120000, b"/etc/passwd"),
            "semantic/up.md": (0o120000, b"../../../outside"),
            "vendor/sub": (0o160000, b"1" * 40),
            "semantic/b.md": (0o100644, b"b\n"),
        },
    )
    result = desktop.sync()
    assert not result.conflicted, result.detail
    root = desktop.repo_dir
    assert files(desktop) == {"semantic/a.md": "a\n", "semantic/b.md": "b\n"}
    for name in ("semantic/evil.md", "semantic/up.md", "vendor/sub"):
        assert not os.path.lexists(root / name), name
    assert set(result.unsynced) == {
        Unsynced("semantic/evil.md", "symlink", incoming=True),
        Unsynced("semantic/up.md", "symlink", incoming=True),
        Unsynced("vendor/sub", "submodule", incoming=True),
    }
    assert set(desktop.state().unsynced) == set(result.unsynced)
    # The next syncs neither delete them from the remote nor turn them into files.
    write_note(desktop, "semantic/c.md", "c\n")
    again = desktop.sync()
    assert again.pushed and set(again.unsynced) == set(result.unsynced)
    with Repo(str(remote)) as repo:
        tree = flat_tree(repo, tree_of(repo, repo.refs[MAIN]))
    assert tree[b"semantic/evil.md"][0] == 0o120000
    assert tree[b"semantic/up.md"][0] == 0o120000
    assert tree[b"vendor/sub"] == (0o160000, b"1" * 40)
    assert laptop.sync().pulled >= 1
    assert not os.path.lexists(laptop.repo_dir / "semantic" / "evil.md")
    assert files(laptop) == files(desktop)


def test_an_incoming_note_where_a_fifo_sits_is_written_without_opening_the_fifo(
    machine: Machine,
) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", "a\n")
    laptop.sync()
    desktop.sync()
    os.mkfifo(desktop.repo_dir / "semantic" / "b.md")  # not a note: never synced
    write_note(laptop, "semantic/b.md", "b arrives\n")
    laptop.sync()
    result = sync_within(desktop)
    assert not result.conflicted, result.detail
    assert "semantic/b.md" in result.changed
    assert (desktop.repo_dir / "semantic" / "b.md").read_text() == "b arrives\n"
