"""A pull that runs out of disk space says so (DiskFull: how many notes were written, how
much the rest need, where), leaves nothing half-written, and the next sync, with space,
finishes it. It used to end in a bare ``OSError`` (a traceback in the CLI)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from anamnesis_testsupport.full_disk import no_space_at, small_disk

from anamnesis.sync import GitSyncBackend, SyncError, durable_writes
from sync_testing import Machine, files, write_note


def _publish(machine: Machine, count: int, words: int = 20) -> dict[str, str]:
    """``count`` notes pushed to the remote by another machine; the files, by path."""
    laptop = machine("laptop")
    rng = random.Random(7)  # text that does not compress away: the pack has a real size
    for n in range(count):
        text = " ".join(f"{rng.getrandbits(40):x}" for _ in range(words))
        write_note(laptop, f"semantic/note-{n:04d}.md", f"note {n}\n{text}\n")
    assert laptop.sync().pushed
    return files(laptop)


def _no_temp_files(backend: GitSyncBackend) -> None:
    leftovers = [p for p in backend.repo_dir.rglob(".*.tmp") if ".git" not in p.parts]
    assert leftovers == []


def test_a_pull_that_meets_a_full_disk_says_what_it_wrote_and_the_next_sync_finishes_it(
    machine: Machine, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _publish(machine, 12)
    desktop = machine("desktop")
    monkeypatch.setattr(durable_writes, "ROUND_FILES", 4)
    # SyncError: what every caller of sync catches already (DiskFull is one).
    with no_space_at(write=7) as writes, pytest.raises(SyncError) as raised:
        desktop.sync()  # the 7th note written finds the disk full: in the second round
    assert writes == [7]
    assert type(raised.value).__name__ == "DiskFull"
    message = str(raised.value)
    assert message.startswith(f"the disk holding {desktop.repo_dir} is full: ")
    assert "the pull wrote 4 of the 12 notes it brings" in message
    assert "The other 8 need about " in message and " free" in message
    assert "sync again" in message
    assert len(files(desktop)) == 4  # the first round, whole; the second undone
    assert all(files(desktop)[path] == expected[path] for path in files(desktop))
    _no_temp_files(desktop)
    again = desktop.sync()
    assert (again.conflicted, again.remote_error) == (False, "")
    assert files(desktop) == expected
    assert not desktop.local_changes()


def test_a_full_disk_on_a_real_small_file_system(
    machine: Machine, remote: Path, tmp_path: Path
) -> None:
    """A tmpfs too small first for the pulled notes, then for the fetch itself; made larger,
    the same folder syncs to the end. Skipped where mounting is not permitted."""
    expected = _publish(machine, 300, words=80)  # some 250 KB of pack, 300 files to write
    for size, step in (("600k", "writing the notes"), ("128k", "fetching")):
        with small_disk(tmp_path / f"disk-{size}", size) as disk:
            desktop = GitSyncBackend(disk.path / "memory", remote=str(remote), machine_id="d")
            with pytest.raises(SyncError) as raised:
                desktop.sync()
            message = str(raised.value)
            assert type(raised.value).__name__ == "DiskFull", step
            assert f"the disk holding {desktop.repo_dir} is full" in message, step
            if step == "writing the notes":
                assert "the pull wrote 0 of the 300 notes it brings" in message
            else:
                assert "the sync stopped (No space left on device)" in message
            _no_temp_files(desktop)
            disk.resize("16m")
            again = desktop.sync()
            assert (again.conflicted, again.remote_error, again.pulled) == (False, "", 1), step
            assert files(desktop) == expected, step
