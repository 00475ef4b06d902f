"""Unreachable and refusing remotes, two syncs at once, unsafe input from a remote."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from dulwich.objects import Blob, Commit, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import SyncBusy, SyncError, check_remote, redact_url
from anamnesis.sync.lock import sync_lock
from anamnesis.sync.transport import list_remote_branches
from anamnesis.sync.worktree import LOCK_FILE, safe_path
from sync_testing import Machine, remote_files, write_note


def test_an_unreachable_remote_keeps_the_local_commit(machine: Machine, tmp_path: Path) -> None:
    lonely = machine("laptop", remote_url=tmp_path / "no" / "such" / "remote.git")
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert not result.pushed and not result.conflicted
    assert "cannot fetch from remote" in result.detail
    assert "next sync" in result.detail
    assert result.committed and lonely.state().head == result.head
    assert not lonely.state().dirty
    assert result.remote_error.startswith("cannot fetch from remote")
    assert result.remote_error in result.detail


def test_an_ssh_remote_that_does_not_answer_is_a_detail_not_a_traceback(machine: Machine) -> None:
    lonely = machine("laptop", remote_url="ssh://nobody@127.0.0.1:1/srv/memory.git")
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert not result.pushed
    assert "cannot fetch from remote ssh://nobody@127.0.0.1:1/srv/memory.git" in result.detail


def test_a_refusing_remote_keeps_the_local_commit(
    machine: Machine, remote: Path, make_remote_read_only: Callable[[Path], None]
) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    make_remote_read_only(remote)
    result = laptop.sync()
    assert not result.pushed
    assert "cannot push to remote" in result.detail and "refused" in result.detail
    assert result.committed
    assert "cannot push to remote" in result.remote_error


def test_check_remote_says_whether_a_remote_answers(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    assert check_remote(str(remote)) is None  # an empty bare repository answers
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    assert laptop.sync().remote_error == ""
    assert list_remote_branches(str(remote)) == ["main"]
    missing = check_remote(str(tmp_path / "nowhere.git"))
    assert missing is not None and "nowhere.git" in missing
    refused = check_remote("ssh://nobody@127.0.0.1:1/srv/memory.git")
    assert refused is not None and refused.startswith("cannot reach remote")
    assert "hunter2" not in (check_remote("https://me:hunter2@127.0.0.1:1/m.git") or "")


def test_passwords_never_show_in_details(machine: Machine) -> None:
    secret = "https://me:hunter2@127.0.0.1:1/memory.git"
    lonely = machine("laptop", remote_url=secret)
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert "hunter2" not in result.detail
    assert "hunter2" not in (lonely.state().remote or "")
    assert redact_url(secret) == "https://me:***@127.0.0.1:1/memory.git"
    assert redact_url("git@github.com:me/memory.git") == "git@github.com:me/memory.git"


def test_a_second_sync_waits_then_reports_busy(machine: Machine) -> None:
    laptop = machine("laptop")
    laptop.repo_dir.mkdir(parents=True)
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with sync_lock(laptop.repo_dir / LOCK_FILE, wait_s=1):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    started = time.monotonic()
    try:
        with pytest.raises(SyncBusy, match="sync already running"):
            laptop.sync()
        assert 1.5 <= time.monotonic() - started < 10  # waited its bounded time first
    finally:
        release.set()
        holder.join()
    assert laptop.sync() is not None  # and works once the other is done


def test_two_processes_syncing_at_once_both_finish_or_report_busy(
    machine: Machine, remote: Path
) -> None:
    laptop = machine("laptop")
    for i in range(30):
        write_note(laptop, f"semantic/{i}.md", f"note {i}")
    script = textwrap.dedent(
        f"""
        from anamnesis.sync import GitSyncBackend, SyncBusy
        b = GitSyncBackend({str(laptop.repo_dir)!r}, remote={str(remote)!r}, machine_id="laptop")
        try:
            print(b.sync().detail)
        except SyncBusy as exc:
            print("BUSY", exc)
        """
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    assert all(err == "" for _out, err in outs), outs
    assert len(remote_files(remote)) == 30


def test_a_remote_tree_with_an_escaping_path_is_refused(machine: Machine, remote: Path) -> None:
    with pytest.raises(SyncError, match="unsafe path"):
        safe_path(Path("/tmp/x"), b"../../etc/passwd")
    repo = Repo(str(remote))
    blob = Blob.from_string(b"pwned")
    inner = Tree()
    inner.add(b"passwd", 0o100644, blob.id)
    evil = Tree()
    evil.add(b"..", 0o040000, inner.id)
    commit = Commit()
    commit.tree = evil.id
    commit.author = commit.committer = b"x <x@x>"
    commit.author_time = commit.commit_time = 0
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"evil\n"
    for obj in (blob, inner, evil, commit):
        repo.object_store.add_object(obj)
    repo.refs[Ref(b"refs/heads/main")] = commit.id
    repo.close()
    victim = machine("victim")
    with pytest.raises(SyncError, match="unsafe path"):
        victim.sync()
    assert not (victim.repo_dir.parent / "passwd").exists()


@pytest.fixture
def make_remote_read_only(make_unwritable: Callable[[Path], None]) -> Callable[[Path], None]:
    def lock(remote: Path) -> None:
        for sub in (remote, remote / "objects", remote / "refs", remote / "refs" / "heads"):
            make_unwritable(sub)

    return lock


def test_the_suite_really_runs_without_git() -> None:
    import shutil

    assert shutil.which("git") is None


def test_sync_error_for_a_broken_remote_path_is_readable(machine: Machine, tmp_path: Path) -> None:
    not_a_repo = tmp_path / "plain-folder"
    not_a_repo.mkdir()
    lonely = machine("laptop", remote_url=not_a_repo)
    write_note(lonely, "semantic/a.md", "x")
    result = lonely.sync()
    assert "not a git repository" in result.detail
