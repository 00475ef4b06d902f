"""Two syncs at once: racing pushes to one remote, our lock, two processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from dulwich.repo import Repo

from anamnesis.sync import GitSyncBackend, SyncBusy, SyncError
from anamnesis.sync.cycle.lock import sync_lock
from anamnesis.sync.objects import pack_copy
from anamnesis.sync.remote import transport
from anamnesis.sync.remote.transport import PushRejected, push_branch
from anamnesis.sync.tree.worktree import LOCK_FILE
from sync_testing import MAIN, Machine, remote_files, write_note


def test_a_push_racing_another_on_a_local_remote_is_retried_not_refused(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/base.md", "base")
    laptop.sync()
    desktop.sync()
    write_note(laptop, "semantic/l.md", "from laptop")
    write_note(desktop, "semantic/d.md", "from desktop")
    laptop.commit_local()
    # Another push lands while ours makes its pack: the moment between a local push
    # reading the remote branch and setting it.
    real = pack_copy.copy_packed
    raced: list[int] = []

    def racing(*args: Any, **kwargs: Any) -> Any:
        if not raced:
            raced.append(1)
            assert desktop.sync().pushed
        return real(*args, **kwargs)

    monkeypatch.setattr(transport, "copy_packed", racing)
    repo = Repo(str(laptop.repo_dir))
    try:
        head = repo.refs[MAIN]
        with pytest.raises(PushRejected):  # the branch moved meanwhile
            push_branch(repo, str(remote), MAIN, head)
    finally:
        repo.close()
    monkeypatch.undo()
    result = laptop.sync()
    assert result.pushed and result.pulled == 1
    assert set(remote_files(remote)) == {"semantic/base.md", "semantic/l.md", "semantic/d.md"}


def _laptop_meeting_a_locked_branch(machine: Machine, remote: Path) -> tuple[GitSyncBackend, Path]:
    """A laptop with a note to push, and the remote branch's lock file, taken."""
    laptop = machine("laptop")
    write_note(laptop, "semantic/base.md", "base")
    laptop.sync()
    write_note(laptop, "semantic/l.md", "from laptop")
    lock = remote / "refs" / "heads" / "main.lock"
    lock.write_bytes(b"")
    return laptop, lock


def test_a_push_meeting_the_branch_locked_waits_and_goes_through(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another machine's push holds the remote branch's lock (git and dulwich both write a
    # ref through "<ref>.lock"), and lets go while ours pauses: ours fetches again and
    # goes through.
    laptop, lock = _laptop_meeting_a_locked_branch(machine, remote)
    pauses: list[float] = []

    def other_push_finishes(seconds: float) -> None:
        pauses.append(seconds)
        lock.unlink(missing_ok=True)

    monkeypatch.setattr(time, "sleep", other_push_finishes)
    result = laptop.sync()
    assert result.pushed, result.detail
    assert len(pauses) == 1 and 0 < pauses[0] < 1
    assert set(remote_files(remote)) == {"semantic/base.md", "semantic/l.md"}


def test_a_branch_lock_left_on_the_remote_is_named_and_nothing_is_lost(
    machine: Machine, remote: Path
) -> None:
    laptop, lock = _laptop_meeting_a_locked_branch(machine, remote)  # a push killed half-way
    stopped = laptop.sync()
    assert not stopped.pushed and stopped.committed
    assert str(lock) in stopped.detail and "remove that file" in stopped.detail
    assert set(remote_files(remote)) == {"semantic/base.md"}
    lock.unlink()
    assert laptop.sync().pushed
    assert set(remote_files(remote)) == {"semantic/base.md", "semantic/l.md"}


def test_the_lock_file_is_excluded_from_git_status(machine: Machine) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    laptop.sync()
    laptop.sync()  # the exclude list is written once, not once per sync
    exclude = (laptop.repo_dir / ".git" / "info" / "exclude").read_text().splitlines()
    assert exclude.count(f"/{LOCK_FILE}") == 1
    assert ".*.tmp" in exclude and "*.db" in exclude


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


def test_exclusive_holds_off_syncs_without_running_one(machine: Machine) -> None:
    """A wipe holds the folder's sync lock: a sync meanwhile reports busy, and nothing
    was committed by holding it."""
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    other = GitSyncBackend(laptop.repo_dir, remote=None, machine_id="other", lock_wait_s=0.2)
    with laptop.exclusive():
        with pytest.raises(SyncBusy):
            other.sync()
        with pytest.raises(SyncBusy):
            other.commit_local("while held")
    assert laptop.local_changes() == ("semantic/a.md",)  # holding it committed nothing


def test_a_link_in_place_of_the_lock_is_never_followed(machine: Machine, tmp_path: Path) -> None:
    laptop = machine("laptop")
    laptop.repo_dir.mkdir(parents=True)
    outside = tmp_path / "precious.txt"
    outside.write_text("keep me")
    (laptop.repo_dir / LOCK_FILE).symlink_to(outside)
    with pytest.raises(SyncError, match="remove it"):
        laptop.sync()
    assert outside.read_text() == "keep me"  # not truncated by the pid the lock writes


def test_two_processes_syncing_at_once_both_finish_or_report_busy(
    machine: Machine, remote: Path
) -> None:
    laptop = machine("laptop")
    for i in range(30):
        write_note(laptop, f"semantic/{i}.md", f"note {i}")
    script = textwrap.dedent(
        f"""
        from anamnesis.sync import GitSyncBackend, SyncBusy, SyncError
        from anamnesis.sync.remote import transport
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
