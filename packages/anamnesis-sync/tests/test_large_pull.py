"""A new machine pulls a store larger than its open-file limit (issue 29: it failed with
EMFILE and stayed empty), and a pull that fails part-way keeps what it wrote indexed, so
the next sync finishes it without a conflict."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anamnesis.sync import durable_writes, packed_reader
from sync_testing import Machine, files, remote_files, write_note

NOTES = 600  # more than the open-file limit the child runs under


def _publish(machine: Machine, count: int) -> dict[str, str]:
    laptop = machine("laptop")
    for n in range(count):
        write_note(laptop, f"semantic/note-{n:04d}.md", f"note {n}\n" + "body line\n" * 20)
    laptop.sync()
    return files(laptop)


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE is POSIX")
def test_a_new_machine_pulls_more_files_than_it_may_open(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    expected = _publish(machine, NOTES)
    assert len(remote_files(remote)) == NOTES
    folder = tmp_path / "desktop" / "memory"
    child = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
        from anamnesis.sync import GitSyncBackend
        backend = GitSyncBackend({str(folder)!r}, remote={str(remote)!r}, machine_id="d")
        result = backend.sync()
        print(result.pulled, result.conflicted, repr(result.remote_error))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != "PATH"} | {"PATH": "/nonexistent"}
    run = subprocess.run(
        [sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=300
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split()[1:] == ["False", "''"], run.stdout  # pulled, no conflict
    pulled = {
        p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
        for p in folder.rglob("*.md")
    }
    assert pulled == expected
    assert not list(folder.rglob(".*.tmp"))  # no temp file left behind


def test_a_pull_that_fails_part_way_keeps_its_files_indexed(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _publish(machine, 12)
    desktop = machine("desktop")
    monkeypatch.setattr(durable_writes, "ROUND_FILES", 4)
    real = packed_reader.PackedBlobs.__call__
    reads: list[int] = []

    def failing_read(reader: packed_reader.PackedBlobs, sha: bytes) -> bytes:
        reads.append(1)
        if len(reads) == 7:  # the second round: a full disk, say
            raise OSError(28, "No space left on device")
        return real(reader, sha)  # type: ignore[arg-type]

    monkeypatch.setattr(packed_reader.PackedBlobs, "__call__", failing_read)
    with pytest.raises(OSError, match="No space left"):
        desktop.sync()
    on_disk = files(desktop)
    assert len(on_disk) == 4  # the first round is in place, the second was undone
    assert not list(desktop.repo_dir.rglob(".*.tmp"))
    monkeypatch.undo()
    second = desktop.sync()
    assert files(desktop) == expected
    assert not second.conflicted  # the files already in place were not taken for edits
    assert not second.remote_error


@pytest.mark.parametrize("one_sync_a_round", [True, False], ids=["sync() a round", "fsync a file"])
def test_both_ways_of_making_a_pull_durable_write_every_file(
    machine: Machine, monkeypatch: pytest.MonkeyPatch, one_sync_a_round: bool
) -> None:
    # Linux makes a round durable with one sync(); macOS and Windows fsync each file.
    expected = _publish(machine, 9)
    monkeypatch.setattr(durable_writes, "ROUND_FILES", 4)
    monkeypatch.setattr(durable_writes, "_SYNC_IS_DURABLE", one_sync_a_round)
    synced: list[int] = []
    real_fsync, real_sync = os.fsync, os.sync

    def counted_fsync(fd: int) -> None:
        synced.append(fd)
        real_fsync(fd)

    def counted_sync() -> None:
        synced.append(-1)
        real_sync()

    monkeypatch.setattr(os, "fsync", counted_fsync)
    monkeypatch.setattr(os, "sync", counted_sync)
    desktop = machine("desktop")
    desktop.sync()
    assert files(desktop) == expected
    # one sync() for each round of 4 files, or one fsync a file
    assert synced.count(-1) == (3 if one_sync_a_round else 0)
    assert len([fd for fd in synced if fd >= 0]) >= (0 if one_sync_a_round else 9)
