"""Files in the notes tree that are not what they seem: links out of the store, FIFOs, device
files, huge files, leftovers of killed writes, and another program's database at index.db.
None of them is followed, read, hung on or destroyed; each is reported with what it is."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from anamnesis.store import IndexRebuiltWarning, MemoryStore
from anamnesis.store.files.leftovers import SAFE_AGE_S
from anamnesis.store.files.safe_files import MAX_NOTE_BYTES, UnsafeFile, read_regular

NOTE = "---\nid: {id}\ntype: semantic\ntitle: {title}\n---\n{body}\n"
OUTSIDE_ID = "01JOUTS1DE0000000000000000"


def outside_note(tmp_path: Path, body: str = "secret from outside the store") -> Path:
    path = tmp_path / "outside.md"
    path.write_text(NOTE.format(id=OUTSIDE_ID, title="outside", body=body))
    return path


def within(seconds: float, action: object) -> None:
    """Run ``action`` in a thread and fail (instead of hanging the suite) if it blocks."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            action()  # type: ignore[operator]
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"blocked for {seconds} s"
    if errors:
        raise errors[0]


def test_a_link_to_a_note_outside_the_store_is_reported_never_read(
    store: MemoryStore, tmp_path: Path
) -> None:
    target = outside_note(tmp_path)
    link = store.memory_dir / "semantic" / f"{OUTSIDE_ID}.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(target)
    assert store.search("secret outside") == []
    assert store.reindex().indexed == 0
    (problem,) = store.problems()
    assert problem.path == str(link) and "symbolic link" in problem.reason
    assert store.list() == []


def test_links_to_system_files_and_linked_folders_are_never_entered(
    store: MemoryStore, tmp_path: Path
) -> None:
    folder = store.memory_dir / "semantic"
    folder.mkdir(parents=True)
    (folder / "passwd.md").symlink_to("/etc/passwd")
    (folder / "zero.md").symlink_to("/dev/zero")
    elsewhere = tmp_path / "elsewhere" / "semantic"
    elsewhere.mkdir(parents=True)
    (elsewhere / f"{OUTSIDE_ID}.md").write_text(NOTE.format(id=OUTSIDE_ID, title="t", body="b"))
    (store.memory_dir / "linked").symlink_to(elsewhere, target_is_directory=True)
    within(20, store.reindex)
    assert store.count() == 0
    reasons = {Path(p.path).name: p.reason for p in store.problems()}
    assert set(reasons) == {"passwd.md", "zero.md"}
    assert all("symbolic link" in reason for reason in reasons.values())


def test_a_fifo_named_like_a_note_never_blocks_a_read(store: MemoryStore) -> None:
    store.write(type="semantic", title="real note", body="stays findable")
    fifo = store.memory_dir / "semantic" / "01JF1F0000000000000000000A.md"
    os.mkfifo(fifo)
    within(20, lambda: store.list())
    within(20, lambda: store.search("findable"))
    within(20, store.reindex)
    assert [m.title for m in store.search("findable")] == ["real note"]
    (problem,) = store.problems()
    assert "FIFO" in problem.reason and "not a regular file" in problem.reason


def test_a_note_file_over_the_cap_is_reported_with_the_cap(store: MemoryStore) -> None:
    huge = store.memory_dir / "semantic" / "01JHVGE000000000000000000A.md"
    huge.parent.mkdir(parents=True)
    text = NOTE.format(id="01JHVGE000000000000000000A", title="huge", body="x" * MAX_NOTE_BYTES)
    huge.write_text(text)
    store.reindex()
    (problem,) = store.problems()
    assert f"over the {MAX_NOTE_BYTES:,}-byte cap" in problem.reason


def test_read_regular_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeFile, match="FIFO"):
        read_regular(fifo)
    with pytest.raises(UnsafeFile, match="character device"):
        read_regular("/dev/zero", follow=True)  # even when links may be followed
    with pytest.raises(UnsafeFile, match="folder"):
        read_regular(tmp_path)
    link = tmp_path / "link"
    link.symlink_to(outside_note(tmp_path))
    with pytest.raises(UnsafeFile, match="symbolic link"):
        read_regular(link)
    assert read_regular(link, follow=True)[0].startswith(b"---\n")


def test_leftovers_of_killed_writes_are_swept_once_old_and_reported(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="kept", body="body")
    folder = store.path_of(note).parent
    old = folder / f".{note.id}.md.0badc0de.tmp"
    fresh = folder / f".{note.id}.md.12345678.tmp"
    config_temp = store.root / ".config.json.deadbeef.tmp"
    for path in (old, fresh, config_temp):
        path.write_bytes(b"half a note" * 1000)
    past = time.time() - SAFE_AGE_S - 60
    os.utime(old, (past, past))
    os.utime(config_temp, (past, past))
    found = {Path(f.path).name for f in store.leftovers()}
    assert found == {old.name, fresh.name, config_temp.name}
    report = store.reindex()
    assert sorted(Path(f.path).name for f in report.swept) == sorted([old.name, config_temp.name])
    assert all(f.size == 11000 for f in report.swept)
    assert not old.exists() and not config_temp.exists()
    assert fresh.exists()  # a live writer may still own it
    assert store.get(note.id).title == "kept"


def test_another_programs_database_at_index_db_is_moved_aside_untouched(tmp_path: Path) -> None:
    root = tmp_path / "store"
    root.mkdir()
    foreign = sqlite3.connect(root / "index.db")
    foreign.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    foreign.execute("INSERT INTO invoices (total) VALUES (12.5)")
    foreign.commit()
    foreign.close()
    with pytest.warns(IndexRebuiltWarning, match="not an Anamnesis index") as caught:
        store = MemoryStore(root)
    with store:
        note = store.write(type="semantic", title="after", body="works")
        assert store.search("works")[0].id == note.id
    moved = [p for p in root.iterdir() if p.name.startswith("index.db.corrupt-")]
    (aside,) = [p for p in moved if not p.name.endswith(("-wal", "-shm"))]
    assert str(aside) in str(caught[0].message)
    kept = sqlite3.connect(aside)
    assert kept.execute("SELECT total FROM invoices").fetchall() == [(12.5,)]
    kept.close()
