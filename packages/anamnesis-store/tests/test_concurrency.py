"""Many threads and many processes using one store at once."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.index import catch_up, folder_marks
from anamnesis.store.index import db as ix


def test_threads_share_one_store(store: MemoryStore) -> None:
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(25):
                store.write(type="semantic", title=f"thread {n} note {i}", body="shared words")
                store.search("shared words thread")
                store.list(limit=5)
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert store.stats().total == 200


WRITER = textwrap.dedent(
    """
    import sys
    from anamnesis.store import MemoryStore
    root, worker, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with MemoryStore(root) as store:
        for i in range(count):
            store.write(type="episodic" if i % 3 else "semantic",
                        title=f"worker {worker} note {i}", body="concurrent " * 50,
                        project=f"p{worker % 3}", tags=["load", f"w{worker}"])
            if i % 25 == 0:
                store.search("concurrent worker")
    """
)


@pytest.mark.slow
def test_eight_processes_writing_at_once_lose_nothing(tmp_path: Path) -> None:
    root = tmp_path / "store"
    MemoryStore(root).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(root), str(worker), "250"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(8)
    ]
    outcomes = [
        (proc.wait(timeout=600), proc.stderr.read() if proc.stderr else "") for proc in procs
    ]
    assert all(code == 0 for code, _ in outcomes), outcomes
    assert all(err == "" for _, err in outcomes), outcomes
    with MemoryStore(root) as store:
        on_disk = sorted(p.stem for p in (root / "memory").rglob("*.md"))
        assert len(on_disk) == 2000
        incremental = sorted(m.id for m in store.list(include_body=False))
        assert incremental == on_disk
        titles = {(m.title) for m in store.list(include_body=False)}
        assert len(titles) == 2000
        report = store.reindex()
        assert (report.indexed, report.skipped_count) == (2000, 0)
        assert sorted(m.id for m in store.list(include_body=False)) == on_disk


MOVER = textwrap.dedent(
    """
    import sys
    from anamnesis.store import MemoryStore
    root, me, count, note_id = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    types = ("semantic", "procedural", "episodic")
    scopes = ("portable", "machine-local")
    with MemoryStore(root) as store:
        for i in range(count):
            store.update(
                note_id,
                type=types[(i + me) % 3],
                scope=scopes[(i // 3 + me) % 2],
                body=f"writer {me} step {i}",
            )
    """
)


@pytest.mark.slow
def test_processes_moving_one_note_never_lose_or_duplicate_it(tmp_path: Path) -> None:
    # Each update changes the note's type or scope, so each one moves its file. The old file
    # used to be removed after the index lock was released: the other process could write
    # its new file there in between, and it was then deleted (note lost), or seen as a
    # second copy (note hidden behind a "duplicate id" record).
    root = tmp_path / "store"
    with MemoryStore(root) as store:
        note = store.write(type="semantic", title="moved around", body="start")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", MOVER, str(root), str(me), "200", note.id],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me in range(2)
    ]
    outcomes = [
        (proc.wait(timeout=600), proc.stderr.read() if proc.stderr else "") for proc in procs
    ]
    assert outcomes == [(0, ""), (0, "")]
    files = sorted(root.rglob("*.md"))
    assert [path.name for path in files] == [f"{note.id}.md"]
    with MemoryStore(root) as store:
        current = store.get(note.id)
        assert store.path_of(current) == files[0]
        assert current.body.startswith("writer ")
        assert [m.id for m in store.list()] == [note.id]
        assert store.problems() == []
        report = store.reindex()
        assert (report.indexed, report.skipped_count) == (1, 0)


# Holds the index's write lock from another process until its stdin closes.
LOCK_HOLDER = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    print("held", flush=True)
    sys.stdin.read()
    """
)


@contextmanager
def write_lock_held(root: Path) -> Iterator[None]:
    holder = subprocess.Popen(
        [sys.executable, "-c", LOCK_HOLDER, str(root / "index.db")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)


@pytest.fixture
def impatient(monkeypatch: pytest.MonkeyPatch) -> None:
    """A store that must wait for the write lock gives up within a second (StoreBusy)."""
    monkeypatch.setattr(ix, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr(ix, "WRITE_LOCK_PATIENCE_S", 1.0)


@pytest.mark.usefixtures("impatient")
def test_a_store_opens_and_reads_while_another_process_holds_the_write_lock(
    tmp_path: Path,
) -> None:
    """Every hook opens the index: opening it never waits for another session's write."""
    root = tmp_path / "store"
    with MemoryStore(root) as store:
        note = store.write(type="semantic", title="Ingress quirk", body="use pathType")
        assert [m.id for m in store.list()] == [note.id]  # caught up with its new folder
    with write_lock_held(root), MemoryStore(root) as reader:
        assert [m.id for m in reader.list()] == [note.id]
        assert [m.id for m in reader.search("ingress")] == [note.id]
        assert reader.get(note.id).body == "use pathType"


@pytest.mark.usefixtures("impatient")
def test_a_reader_that_waited_for_a_write_records_the_folder_as_the_write_left_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader that saw a folder change, then waited for the write lock while a note was
    written there, records the folder as it is once it holds the lock: the next reader has
    nothing to catch up (it needs no write lock), instead of rescanning in its turn."""
    root = tmp_path / "store"
    with MemoryStore(root) as store:
        store.write(type="semantic", title="first", body="one")
        store.list()
    with MemoryStore(tmp_path / "elsewhere") as other:  # a note copied in by hand
        copied = other.write(type="semantic", title="copied", body="two")
        (root / "memory" / "semantic" / f"{copied.id}.md").write_bytes(
            other.file_of(copied.id).read_bytes()
        )
    looked = folder_marks.watched_folders  # what the catch-up calls
    landed: list[str] = []

    def then_a_write_lands(layout: StoreLayout) -> list[folder_marks.WatchedFolder]:
        folders = looked(layout)
        if not landed:  # right after the reader looked: another session writes there
            with MemoryStore(root) as writer:
                landed.append(writer.write(type="semantic", title="meanwhile", body="3").id)
        return folders

    monkeypatch.setattr(catch_up, "watched_folders", then_a_write_lands)
    with MemoryStore(root) as reader:
        assert sorted(m.title for m in reader.list()) == ["copied", "first", "meanwhile"]
    assert landed
    monkeypatch.setattr(catch_up, "watched_folders", looked)
    with write_lock_held(root), MemoryStore(root) as next_reader:
        assert sorted(m.title for m in next_reader.list()) == ["copied", "first", "meanwhile"]


@pytest.mark.usefixtures("impatient")
def test_a_read_never_waits_for_another_process_to_catch_up_and_the_next_one_does(
    tmp_path: Path,
) -> None:
    """A folder changed while another process holds the write lock (most often by that
    write itself): the read answers from the index as committed instead of queueing behind
    the write (under twenty sessions a third of the prompt hooks waited up to 0.65 s), and
    the next read, with the lock free, indexes the change."""
    root = tmp_path / "store"
    with MemoryStore(root) as store:
        store.write(type="semantic", title="first", body="one")
    with MemoryStore(tmp_path / "elsewhere") as other:  # a note copied in by hand
        copied = other.write(type="semantic", title="copied", body="two")
        (root / "memory" / "semantic" / f"{copied.id}.md").write_bytes(
            other.file_of(copied.id).read_bytes()
        )
    with write_lock_held(root), MemoryStore(root) as reader:
        assert [m.title for m in reader.list()] == ["first"]  # no StoreBusy, no wait
    with MemoryStore(root) as reader:
        assert sorted(m.title for m in reader.list()) == ["copied", "first"]
