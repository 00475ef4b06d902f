"""The markdown files are the truth: hand edits, hand-made notes, broken files, rebuilds."""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from anamnesis.store import (
    IndexRebuiltWarning,
    IndexUnavailable,
    MalformedNote,
    Memory,
    MemoryStore,
    NoteNotFound,
)

NOTE = """---
id: {id}
type: semantic
title: {title}
project: p
---
{body}
"""
ID1 = "01J9Z8YPM7Q3X2V4WT6B5N0KG1"
ID2 = "01J9Z8YPM7Q3X2V4WT6B5N0KG2"


def _hand_write(path: Path, memory_id: str = ID1, title: str = "Hand", body: str = "made") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(NOTE.format(id=memory_id, title=title, body=body), encoding="utf-8")


def _touch_later(path: Path) -> None:
    # Give the edit a distinct mtime even on coarse clocks.
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))


def test_a_hand_edit_is_seen_by_get_list_and_search(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="Original title", body="alpha", project="p")
    path = store.path_of(mem)
    path.write_text(path.read_text().replace("alpha", "omega words"), encoding="utf-8")
    _touch_later(path)
    assert store.get(mem.id).body == "omega words"
    assert [m.id for m in store.search("omega")] == [mem.id]
    assert store.search("alpha") == []
    assert store.list()[0].body == "omega words"


def test_unchanged_reads_do_not_parse_the_file(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    mem = store.write(type="semantic", title="T", body="B")
    from anamnesis.store.note import codec

    def refuse(*_args: object, **_kwargs: object) -> Memory:
        raise AssertionError("parsed a file whose stat matched the index")

    monkeypatch.setattr(codec, "parse_note", refuse)
    assert store.get(mem.id) == mem
    assert store.list() == [mem]
    assert store.search("T") == [mem]


def test_a_hand_made_note_appears_without_reindex(store: MemoryStore) -> None:
    store.list()  # the index has looked at the folders once
    _hand_write(store.memory_dir / "semantic" / f"{ID1}.md", title="handmade")
    assert [m.id for m in store.search("handmade")] == [ID1]
    assert store.get(ID1).title == "handmade"


def test_a_hand_deleted_note_disappears(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="doomed", body="b")
    store.path_of(mem).unlink()
    assert store.search("doomed") == []
    with pytest.raises(NoteNotFound):
        store.get(mem.id)
    assert store.stats().total == 0


def test_the_tree_not_the_frontmatter_decides_scope(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="moving", body="b")
    target = store.local_dir / "semantic" / f"{mem.id}.md"
    target.parent.mkdir(parents=True)
    shutil.move(store.path_of(mem), target)
    assert store.get(mem.id).scope == "machine-local"
    assert store.reindex().indexed == 1
    assert store.get(mem.id).scope == "machine-local"


def test_a_broken_file_is_skipped_reported_and_comes_back_when_fixed(store: MemoryStore) -> None:
    good = store.write(type="semantic", title="good note", body="b")
    bad = store.memory_dir / "semantic" / f"{ID1}.md"
    bad.parent.mkdir(parents=True, exist_ok=True)
    bad.write_text("---\nid: [oops\n---\nbody\n", encoding="utf-8")
    report = store.reindex()
    assert report.indexed == 1
    assert [s.path for s in report.skipped] == [str(bad)]
    assert "not valid YAML" in report.skipped[0].reason
    assert [p.path for p in store.problems()] == [str(bad)]
    assert [m.id for m in store.list()] == [good.id]
    _hand_write(bad, title="fixed now")
    _touch_later(bad)
    assert [m.id for m in store.search("fixed")] == [ID1]
    assert store.problems() == []


def test_a_file_broken_by_hand_after_indexing(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="fragile", body="b")
    store.path_of(mem).write_text("not a note any more", encoding="utf-8")
    _touch_later(store.path_of(mem))
    assert store.search("fragile") == []  # skipped, not an exception
    with pytest.raises(MalformedNote, match="must start with a line '---'"):
        store.get(mem.id)  # not "not found": the file is there, and this is what is wrong
    assert len(store.problems()) == 1
    assert "must start with a line '---'" in store.problems()[0].reason


def test_get_of_a_broken_note_says_why(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="fragile", body="b")
    text = store.path_of(mem).read_text().replace("type: semantic", "type: recipe")
    store.path_of(mem).write_text(text, encoding="utf-8")
    _touch_later(store.path_of(mem))
    with pytest.raises(MalformedNote, match="recipe"):
        store.get(mem.id)


def test_duplicate_ids_keep_the_canonical_file_and_report_the_other(store: MemoryStore) -> None:
    canonical = store.memory_dir / "semantic" / f"{ID1}.md"
    stray = store.memory_dir / "semantic" / "copy-of-note.md"
    _hand_write(stray, title="stray copy")
    _hand_write(canonical, title="canonical")
    report = store.reindex()
    assert report.indexed == 1
    assert store.get(ID1).title == "canonical"
    assert any("duplicate id" in s.reason for s in store.problems())


@pytest.mark.parametrize("copy", [shutil.copy2, shutil.copy], ids=["same-mtime", "newer"])
def test_a_note_moved_by_hand_copy_then_delete_stays_visible(
    store: MemoryStore, copy: Callable[[Path, Path], object]
) -> None:
    mem = store.write(type="semantic", title="precious", body="b")
    source = store.path_of(mem)
    moved = store.local_dir / "semantic" / source.name
    moved.parent.mkdir(parents=True, exist_ok=True)
    copy(source, moved)
    assert [m.id for m in store.list()] == [mem.id]  # a read while both copies exist
    source.unlink()
    assert [m.title for m in store.list()] == ["precious"]
    assert store.get(mem.id).scope == "machine-local"
    assert [m.id for m in store.search("precious")] == [mem.id]
    assert store.problems() == []


def test_the_newer_of_two_canonical_copies_wins_whichever_is_seen_first(
    store: MemoryStore,
) -> None:
    older = NOTE.format(id=ID1, title="older", body="b").replace(
        "project: p", "project: p\nupdated_at: 2026-01-01T00:00:00+00:00"
    )
    newer = older.replace("older", "newer").replace("2026-01-01", "2026-02-01")
    local = store.local_dir / "semantic" / f"{ID1}.md"
    portable = store.memory_dir / "semantic" / f"{ID1}.md"
    for first, second in ((local, newer), (portable, older)), ((portable, older), (local, newer)):
        for path in (local, portable):
            path.unlink(missing_ok=True)
        first[0].parent.mkdir(parents=True, exist_ok=True)
        first[0].write_text(first[1], encoding="utf-8")
        assert store.get(ID1).title == first[1].split("title: ")[1].split("\n")[0]
        second[0].parent.mkdir(parents=True, exist_ok=True)
        second[0].write_text(second[1], encoding="utf-8")
        assert store.get(ID1).title == "newer"  # incremental: the same winner either way
        assert [p.path for p in store.problems()] == [str(portable)]
        assert "duplicate id" in store.problems()[0].reason
        report = store.reindex()
        assert (report.indexed, [s.path for s in report.skipped]) == (1, [str(portable)])
        assert store.get(ID1).title == "newer"


def test_the_hidden_copy_returns_when_the_shown_one_is_deleted(store: MemoryStore) -> None:
    shown = store.memory_dir / "semantic" / f"{ID1}.md"
    hidden = store.memory_dir / "semantic" / "copy-of-note.md"
    _hand_write(shown, title="shown")
    _hand_write(hidden, title="hidden")
    assert store.get(ID1).title == "shown"
    assert len(store.problems()) == 1
    shown.unlink()
    assert store.get(ID1).title == "hidden"
    assert store.problems() == []


def test_reindex_rebuilds_everything_from_markdown(store: MemoryStore) -> None:
    notes = [store.write(type="semantic", title=f"note {i}", body="b") for i in range(5)]
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store.db_path}{suffix}").unlink(missing_ok=True)
    with MemoryStore(store.root) as reopened:
        assert {m.id for m in reopened.list()} == {m.id for m in notes}
        assert reopened.reindex().indexed == 5


def test_reindex_reports_progress(store: MemoryStore) -> None:
    for i in range(3):
        store.write(type="semantic", title=f"n{i}", body="b")
    seen: list[tuple[int, int]] = []
    store.reindex(progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


def test_reindex_paths_indexes_and_removes_only_given_files(store: MemoryStore) -> None:
    kept = store.write(type="semantic", title="kept", body="b")
    gone = store.write(type="semantic", title="gone", body="b")
    store.path_of(gone).unlink()
    _hand_write(store.memory_dir / "episodic" / f"{ID2}.md", ID2, title="pulled")
    report = store.reindex_paths(
        [
            store.path_of(gone),
            Path("memory") / "episodic" / f"{ID2}.md",  # relative to the store root
            store.root / "memory" / "README.txt",  # not a note: ignored
            "/elsewhere/x.md",  # outside the trees: reported
        ]
    )
    assert (report.indexed, report.removed) == (1, 1)
    assert [s.path for s in report.skipped] == ["/elsewhere/x.md"]
    assert {m.id for m in store.list()} == {kept.id, ID2}


def test_a_corrupt_index_is_moved_aside_and_rebuilt_with_a_warning(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with MemoryStore(root) as store:
        mem = store.write(type="semantic", title="survivor", body="b")
    for suffix in ("-wal", "-shm"):
        Path(f"{root / 'index.db'}{suffix}").unlink(missing_ok=True)
    (root / "index.db").write_bytes(b"this is not a database at all" * 100)
    with pytest.warns(IndexRebuiltWarning, match="unreadable"), MemoryStore(root) as store:
        assert [m.id for m in store.search("survivor")] == [mem.id]
    assert list(root.glob("index.db.corrupt-*"))


def _index_files(root: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{root / 'index.db'}{suffix}").unlink(missing_ok=True)


def test_a_folder_in_place_of_the_index_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with MemoryStore(root) as store:
        mem = store.write(type="semantic", title="survivor", body="b")
    _index_files(root)
    (root / "index.db").mkdir()  # SQLite: "unable to open database file"
    with pytest.warns(IndexRebuiltWarning, match="unreadable"), MemoryStore(root) as store:
        assert [m.id for m in store.search("survivor")] == [mem.id]
    assert (root / "index.db").is_file()
    assert [path.is_dir() for path in root.glob("index.db.corrupt-*")] == [True]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_index_file_without_permissions_is_moved_aside_and_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "s"
    with MemoryStore(root) as store:
        mem = store.write(type="semantic", title="survivor", body="b")
    (root / "index.db").chmod(0)
    with pytest.warns(IndexRebuiltWarning), MemoryStore(root) as store:
        assert [m.id for m in store.search("survivor")] == [mem.id]


@pytest.mark.parametrize("in_place", ["nothing", "a folder"])
def test_an_index_the_store_cannot_replace_names_the_real_fix(
    tmp_path: Path, make_unwritable: Callable[[Path], None], in_place: str
) -> None:
    root = tmp_path / "s"
    with MemoryStore(root) as store:
        mem = store.write(type="semantic", title="survivor", body="b")
    _index_files(root)
    if in_place == "a folder":
        (root / "index.db").mkdir()
    make_unwritable(root)
    with pytest.raises(IndexUnavailable) as raised:
        MemoryStore(root)
    message = str(raised.value)
    assert str(root) in message and "writ" in message  # "make ... writable" / "write files"
    assert "reindex" not in message  # a rebuild cannot work while the folder is locked
    assert "markdown notes are safe" in message
    assert (root / "memory" / "semantic" / f"{mem.id}.md").is_file()


def test_corruption_found_mid_session_is_repaired(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="survivor", body="b" * 5000)
    conn = store._connection()
    conn.execute("PRAGMA writable_schema = ON")
    # Point the FTS table's storage at a page that does not hold it.
    conn.execute("UPDATE sqlite_master SET rootpage = 2 WHERE name = 'memories_fts_data'")
    conn.execute("PRAGMA writable_schema = OFF")
    store.close()
    with pytest.warns(IndexRebuiltWarning), MemoryStore(store.root) as reopened:
        assert [m.id for m in reopened.search("survivor")] == [mem.id]


def test_an_index_from_the_published_release_is_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "s"
    (root / "memory" / "semantic").mkdir(parents=True)
    _hand_write(root / "memory" / "semantic" / f"{ID1}.md", title="from the old release")
    conn = sqlite3.connect(root / "index.db")
    conn.executescript(
        "CREATE TABLE memories (id TEXT PRIMARY KEY, type TEXT);"
        "CREATE VIRTUAL TABLE memories_fts USING fts5(id UNINDEXED, title, body, tags);"
        "PRAGMA user_version = 3;"
    )
    conn.close()
    with pytest.warns(IndexRebuiltWarning, match="another version"), MemoryStore(root) as store:
        assert [m.id for m in store.search("release")] == [ID1]


def _store_with_index_of_schema_108(tmp_path: Path, title: str) -> Path:
    """A store of one note titled ``title``, its index file as schema 108 left it: 4 KB
    pages, no incremental vacuum, WAL."""
    root = tmp_path / "s"
    (root / "memory" / "semantic").mkdir(parents=True)
    _hand_write(root / "memory" / "semantic" / f"{ID1}.md", title=title)
    conn = sqlite3.connect(root / "index.db")
    conn.execute("PRAGMA page_size = 4096")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.executescript(
        "CREATE TABLE memories (seq INTEGER PRIMARY KEY, id TEXT, body TEXT);"
        "INSERT INTO memories (id, body) VALUES ('x', 'old');"
        "PRAGMA user_version = 108;"
        f"PRAGMA application_id = {0x414E4D53};"
    )
    conn.close()
    return root


def test_an_index_of_an_older_schema_is_rebuilt_in_the_current_file_format(
    tmp_path: Path,
) -> None:
    root = _store_with_index_of_schema_108(tmp_path, "from schema 108")
    with pytest.warns(IndexRebuiltWarning, match="another version"):
        store = MemoryStore(root)
    with store:
        assert [m.id for m in store.search("schema")] == [ID1]
        conn = store._connection()
        assert conn.execute("PRAGMA page_size").fetchone()[0] == 8192
        assert conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA freelist_count").fetchone()[0] == 0


def test_an_older_index_held_open_elsewhere_is_rebuilt_in_its_old_format(
    tmp_path: Path,
) -> None:
    root = _store_with_index_of_schema_108(tmp_path, "held open")
    other = sqlite3.connect(root / "index.db")  # another process's connection, say
    try:
        other.execute("SELECT count(*) FROM sqlite_master").fetchone()
        with pytest.warns(IndexRebuiltWarning):
            store = MemoryStore(root)
        with store:
            assert [m.id for m in store.search("held")] == [ID1]
            conn = store._connection()
            assert conn.execute("PRAGMA page_size").fetchone()[0] == 4096
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    finally:
        other.close()
