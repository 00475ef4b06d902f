"""A note's fsync runs on the background flusher while its index row is written.

Faults and delays are injected into ``os.fsync`` and the rename; the store, its files
and its SQLite index are real.
"""

from __future__ import annotations

import errno
import os
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore, StorageError
from anamnesis.store.files import flusher
from anamnesis.store.index import db as ix

real_fsync = os.fsync
real_replace = Path.replace


def _notes_and_temps(store: MemoryStore) -> tuple[list[Path], list[Path]]:
    files = [path for path in store.root.rglob("*") if path.is_file()]
    return (
        [path for path in files if path.suffix == ".md"],
        [path for path in files if path.name.endswith(".tmp")],
    )


def _open_descriptors() -> int:
    return len(list(Path("/proc/self/fd").iterdir()))


def _slow_fsync(events: list[str], delay: float) -> Callable[[int], None]:
    def fsync(fd: int) -> None:
        events.append("fsync started")
        time.sleep(delay)
        real_fsync(fd)
        events.append("fsync done")

    return fsync


def test_the_row_is_written_during_the_flush_and_the_rename_waits_for_it(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    events: list[str] = []
    monkeypatch.setattr(os, "fsync", _slow_fsync(events, 0.3))
    real_upsert = ix.upsert

    def upsert(*args: object, **kwargs: object) -> None:
        events.append("row written")
        real_upsert(*args, **kwargs)  # type: ignore[arg-type]

    def replace(self: Path, target: Path) -> Path:
        events.append("renamed")
        return real_replace(self, target)

    monkeypatch.setattr(ix, "upsert", upsert)
    monkeypatch.setattr(Path, "replace", replace)
    mem = store.write(type="semantic", title="flushed first", body="b", project="p")
    # The row did not wait for the flush; the rename did.
    assert events.index("row written") < events.index("fsync done") < events.index("renamed")
    assert store.get(mem.id).title == "flushed first"
    notes, temps = _notes_and_temps(store)
    assert notes == [store.path_of(mem)] and temps == []


def test_a_failed_fsync_writes_no_file_and_no_row(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(StorageError, match=r"cannot write .*Input/output error"):
        store.write(type="semantic", title="never stored", body="b", project="p")
    assert _notes_and_temps(store) == ([], [])
    assert store.stats().total == 0
    monkeypatch.setattr(os, "fsync", real_fsync)
    # The flusher lives on: the next write goes through.
    mem = store.write(type="semantic", title="stored", body="b", project="p")
    assert [m.id for m in store.list()] == [mem.id]


def test_a_process_that_cannot_start_a_thread_flushes_inline(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*args: object) -> int:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(flusher, "_thread", flusher._Thread())  # not started yet
    monkeypatch.setattr(flusher, "start_new_thread", refuse)
    events: list[str] = []
    monkeypatch.setattr(os, "fsync", _slow_fsync(events, 0))
    mem = store.write(type="semantic", title="inline", body="b", project="p")
    assert events == ["fsync started", "fsync done"]
    assert store.get(mem.id).title == "inline"
    assert _notes_and_temps(store) == ([store.path_of(mem)], [])


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_a_row_refused_during_a_slow_flush_leaves_nothing_behind(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = store.write(type="semantic", title="kept", body="original", project="p")
    before = store.path_of(kept).read_bytes()
    descriptors = _open_descriptors()
    events: list[str] = []
    monkeypatch.setattr(os, "fsync", _slow_fsync(events, 0.3))
    store._connection().execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON memories"
        " BEGIN SELECT RAISE(ABORT, 'index refused'); END"
    )
    with pytest.raises(Exception, match="index refused"):
        store.put(kept.replace(body="changed"))
    with pytest.raises(Exception, match="index refused"):
        store.write(type="semantic", title="new", body="b", project="p")
    assert store.path_of(kept).read_bytes() == before
    assert _notes_and_temps(store) == ([store.path_of(kept)], [])
    # The writer gave up while the flusher still held the temp files open: the flusher
    # closes them when done, and no descriptor is left behind.
    deadline = time.monotonic() + 10
    while _open_descriptors() > descriptors and time.monotonic() < deadline:
        time.sleep(0.02)
    assert events.count("fsync done") == 2
    assert _open_descriptors() == descriptors


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_flushes_with_its_own_thread(store: MemoryStore) -> None:
    store.write(type="semantic", title="parent", body="b", project="p")  # thread running
    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a threaded process may deadlock: what the
        # flusher must survive is exactly that.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: the parent's flusher thread was not copied
        code = 1
        try:
            with MemoryStore(store.root) as child_store:
                child_store.write(type="semantic", title="child", body="b", project="p")
            code = 0
        finally:
            os._exit(code)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        pytest.fail("the child's write never finished: it waited on the parent's flusher")
    assert os.waitstatus_to_exitcode(status) == 0
    assert sorted(m.title for m in store.list()) == ["child", "parent"]
