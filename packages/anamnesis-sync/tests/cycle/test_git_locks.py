"""A sync killed mid-write (``kill -9``, a hook at its timeout) leaves git lock files behind.

Under our own sync lock no other sync of ours can be writing, so an old git lock is a dead
writer's: it is removed (logged), and the next sync works. A young one may be a git command
running right now: it is waited for first. ``state()`` lists every lock it sees.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from dulwich.objects import Blob

from anamnesis.sync import GitLock, GitSyncBackend, SyncError
from anamnesis.sync.cycle.locks import find_git_locks, recover_stale_locks
from sync_testing import Machine, remote_files, write_note

TWO_HOURS_AGO = time.time() - 2 * 3600


def die_holding_lock(target: Path) -> Path:
    """Run a process that takes dulwich's lock on ``target``, writes half of it and is
    killed (SIGKILL where there is one): what a sync killed at a hook's timeout leaves."""
    code = textwrap.dedent(
        f"""
        import os, signal
        from dulwich.file import GitFile
        os.makedirs(os.path.dirname({str(target)!r}), exist_ok=True)
        handle = GitFile({str(target)!r}, "wb")
        handle.write(b"half of it")
        handle._file.flush()
        if hasattr(signal, "SIGKILL"):
            os.kill(os.getpid(), signal.SIGKILL)
        os._exit(9)
        """
    )
    subprocess.run([sys.executable, "-c", code], check=False)
    lock = target.with_name(target.name + ".lock")
    assert lock.exists(), "the killed process should have left its lock"
    return lock


def age(path: Path, when: float = TWO_HOURS_AGO) -> None:
    os.utime(path, (when, when))


def test_locks_left_by_a_killed_sync_are_recovered_and_the_next_sync_pushes(
    machine: Machine, remote: Path, caplog: pytest.LogCaptureFixture
) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "first\n")
    assert laptop.sync().pushed
    git_dir = laptop.repo_dir / ".git"
    # The killed sync was committing note b: the index, the branch and b's blob were
    # being written.
    note_b = b"second\n"
    blob = Blob.from_string(note_b).id.decode()
    locks = [
        die_holding_lock(git_dir / "index"),
        die_holding_lock(git_dir / "refs" / "heads" / "main"),
        die_holding_lock(git_dir / "objects" / blob[:2] / blob[2:]),
    ]
    for lock in locks:
        age(lock)
    write_note(laptop, "semantic/b.md", note_b.decode())

    seen = laptop.state().git_locks
    assert {lock.path for lock in seen} == {
        ".git/index.lock",
        ".git/refs/heads/main.lock",
        f".git/objects/{blob[:2]}/{blob[2:]}.lock",
    }
    assert all(isinstance(lock, GitLock) and lock.age_s > 3000 for lock in seen)
    assert ".git/index.lock" in laptop.state().detail

    with caplog.at_level(logging.WARNING, logger="anamnesis.sync"):
        result = laptop.sync()
    assert result.pushed, result.detail
    assert remote_files(remote)["semantic/b.md"] == note_b
    assert not any(lock.exists() for lock in locks)
    warned = [r.getMessage() for r in caplog.records if r.name.startswith("anamnesis.sync")]
    assert any(".git/index.lock" in m and "2 h" in m for m in warned), warned
    assert any(".git/refs/heads/main.lock" in m for m in warned), warned
    assert laptop.state().git_locks == ()
    assert laptop.sync().detail.endswith("nothing to push")  # and it stays well


def test_a_lock_held_by_a_git_command_that_finishes_is_waited_for_not_removed(
    machine: Machine, caplog: pytest.LogCaptureFixture
) -> None:
    laptop = machine("laptop", remote_url=None)
    write_note(laptop, "semantic/a.md", "first\n")
    laptop.sync()
    index = laptop.repo_dir / ".git" / "index"
    lock = index.with_name("index.lock")
    # A live git command (`git status` refreshing the index): it holds the lock a moment,
    # then renames its new index into place.
    fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, index.read_bytes())
    os.close(fd)

    def finish() -> None:
        time.sleep(0.5)
        lock.replace(index)

    git_command = threading.Thread(target=finish)
    git_command.start()
    write_note(laptop, "semantic/b.md", "second\n")
    try:
        with caplog.at_level(logging.WARNING, logger="anamnesis.sync"):
            result = laptop.sync()
    finally:
        git_command.join()
    assert result.committed
    assert not [r for r in caplog.records if "lock" in r.getMessage()]


def test_a_young_lock_that_stays_is_removed_once_old_enough(tmp_path: Path) -> None:
    git_dir = tmp_path / ".git"
    (git_dir / "refs" / "heads").mkdir(parents=True)
    (git_dir / "HEAD.lock").write_bytes(b"ref: refs/heads/main\n")
    (git_dir / "packed-refs.lock").write_bytes(b"")
    age(git_dir / "packed-refs.lock")
    started = time.monotonic()
    removed = recover_stale_locks(tmp_path, stale_after_s=0.4)
    waited = time.monotonic() - started
    assert {lock.path for lock in removed} == {".git/HEAD.lock", ".git/packed-refs.lock"}
    assert 0.3 <= waited < 5, waited  # waited for the young one to age, no longer
    assert find_git_locks(tmp_path) == []


def test_a_lock_that_cannot_be_removed_is_an_error_that_says_what_to_do(
    machine: Machine,
) -> None:
    laptop = machine("laptop", remote_url=None)
    write_note(laptop, "semantic/a.md", "first\n")
    laptop.sync()
    # A directory where the lock file would be: it cannot be removed as a file.
    stuck = laptop.repo_dir / ".git" / "index.lock"
    stuck.mkdir()
    (stuck / "keep").write_text("x")
    age(stuck)
    write_note(laptop, "semantic/b.md", "second\n")
    with pytest.raises(SyncError, match=r"\.git/index\.lock"):
        laptop.sync()


def test_without_a_repository_there_are_no_locks(tmp_path: Path) -> None:
    backend = GitSyncBackend(tmp_path / "memory", remote=None, machine_id="m")
    assert backend.state().git_locks == ()
