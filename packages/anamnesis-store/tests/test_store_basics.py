"""MemoryStore: writing, reading, updating and deleting notes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from anamnesis.store import (
    InvalidNote,
    InvalidQuery,
    Memory,
    MemoryStore,
    NoteNotFound,
    StorageError,
    parse_note,
)


def _write(store: MemoryStore, **overrides: object) -> Memory:
    fields: dict[str, object] = {"type": "semantic", "title": "T", "body": "B", "project": "p"}
    fields.update(overrides)
    return store.write(**fields)  # type: ignore[arg-type]


def test_write_creates_one_file_in_the_scope_tree(store: MemoryStore) -> None:
    mem = _write(store, type="procedural", machine_id="laptop")
    path = store.memory_dir / "procedural" / f"{mem.id}.md"
    assert path.is_file()
    assert parse_note(path.read_text()) == mem
    assert mem.machine_id == "laptop"
    assert mem.created_at == mem.updated_at != ""


def test_machine_local_notes_live_outside_the_synced_tree(store: MemoryStore) -> None:
    mem = _write(store, scope="machine-local")
    assert (store.local_dir / "semantic" / f"{mem.id}.md").is_file()
    assert list(store.memory_dir.rglob("*.md")) == []


def test_get_returns_the_note_and_rejects_bad_ids(store: MemoryStore) -> None:
    mem = _write(store)
    assert store.get(mem.id) == mem
    with pytest.raises(NoteNotFound, match="no note with id"):
        store.get("01J9Z8YPM7Q3X2V4WT6B5N0KGD")
    with pytest.raises(InvalidNote, match="not a ULID"):
        store.get("../../etc/passwd")


def test_duplicate_tags_do_not_lose_the_note(store: MemoryStore) -> None:
    mem = _write(store, tags=["css", "css", " css ", "", "ui"])
    assert mem.tags == ["css", "ui"]
    assert store.get(mem.id).tags == ["css", "ui"]


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"type": "recipe"}, "type"),
        ({"scope": "shared"}, "scope"),
        ({"prov_source": "llm"}, "prov_source"),
        ({"title": "   "}, "title"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": float("nan")}, "confidence"),
        ({"project": ""}, "project"),
        ({"supersedes": ["not-an-id"]}, "supersedes"),
        ({"title": "bad \ud800 surrogate"}, "title"),
    ],
)
def test_invalid_notes_are_refused_before_touching_disk(
    store: MemoryStore, overrides: dict[str, object], field: str
) -> None:
    with pytest.raises(InvalidNote) as caught:
        _write(store, **overrides)
    assert caught.value.field == field
    assert list(store.root.rglob("*.md")) == []
    assert store.stats().total == 0


class _Opaque:
    pass


def _recursive() -> list[object]:
    loop: list[object] = []
    loop.append(loop)
    return loop


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        ({"x": _Opaque()}, "cannot be stored in a note"),
        ({"x": {"deep": [_Opaque()]}}, "cannot be stored in a note"),
        ({"x": "bad \ud800 surrogate"}, "UTF-8"),
        ({"bad \udfff key": 1}, "UTF-8"),
        ({"id": "01J9ZB0C4F8H2K6M3P9R7S5T1W"}, "'id' is a field of the note"),
        ({"tags": ["sneaky"]}, "'tags' is a field of the note"),
        ({1: "number key"}, "keys must be text"),
        ({"x": {(1, 2): "tuple key"}}, "mapping key must be"),
        ({"x": _recursive()}, "refers to itself"),
    ],
)
def test_extra_is_checked_before_touching_disk(
    store: MemoryStore, extra: dict[object, object], says: str
) -> None:
    with pytest.raises(InvalidNote, match=says) as caught:
        _write(store, extra=extra)
    assert caught.value.field.startswith("extra")
    assert list(store.root.rglob("*.md")) == []
    assert store.stats().total == 0


def test_plain_data_in_extra_round_trips(store: MemoryStore) -> None:
    extra = {
        "reviewed": True,
        "when": date(2026, 1, 2),
        "score": 0.5,
        "refs": {"a": [1, 2, None], 3: "three"},
        "blob": b"\x00\x01",
        "labels": {"x", "y"},
    }
    mem = _write(store, extra=extra)
    assert store.get(mem.id).extra == extra
    assert parse_note(store.path_of(mem).read_text()).extra == extra


def test_a_single_string_is_one_tag_and_one_id(store: MemoryStore) -> None:
    older = _write(store)
    mem = _write(store, tags="deploy", supersedes=older.id)
    assert (mem.tags, mem.supersedes) == (["deploy"], [older.id])
    assert store.get(mem.id).tags == ["deploy"]
    assert store.update(mem.id, tags="release").tags == ["release"]
    assert Memory(id=mem.id, type="semantic", title="T", body="", tags="css").tags == ["css"]


def test_put_keeps_the_callers_id_and_timestamps_and_upserts(store: MemoryStore) -> None:
    mem = Memory(
        id="01J9Z8YPM7Q3X2V4WT6B5N0KGD",
        type="semantic",
        title="Imported",
        body="one",
        created_at="2025-01-01T00:00:00Z",
        updated_at="2025-01-02T00:00:00+00:00",
        prov_source="import",
    )
    stored = store.put(mem)
    assert stored.created_at == "2025-01-01T00:00:00+00:00"
    store.put(stored.replace(body="two"))
    assert store.get(mem.id).body == "two"
    assert store.stats().total == 1


def test_changing_type_or_scope_moves_the_file(store: MemoryStore) -> None:
    mem = _write(store)
    old = store.path_of(mem)
    moved = store.update(mem.id, type="procedural", scope="machine-local")
    assert not old.exists()
    assert store.path_of(moved).is_file()
    assert store.get(mem.id).scope == "machine-local"
    assert len(list(store.root.rglob("*.md"))) == 1


def test_update_bumps_updated_at_and_keeps_created_at(store: MemoryStore) -> None:
    mem = store.put(
        Memory(
            id="01J9Z8YPM7Q3X2V4WT6B5N0KGD", type="semantic", title="T", body="B",
            created_at="2025-01-01T00:00:00+00:00", updated_at="2025-01-01T00:00:00+00:00",
        )
    )  # fmt: skip
    updated = store.update(mem.id, body="new")
    assert updated.created_at == mem.created_at
    assert updated.updated_at > mem.updated_at
    with pytest.raises(InvalidNote):
        store.update(mem.id, id="01J9ZB0C4F8H2K6M3P9R7S5T1W")


def test_delete_removes_file_and_rows(store: MemoryStore) -> None:
    mem = _write(store, title="findme")
    gone = store.delete(mem.id)
    assert gone == mem
    assert not store.path_of(mem).exists()
    assert store.search("findme") == []
    with pytest.raises(NoteNotFound):
        store.delete(mem.id)


@pytest.mark.parametrize("indexed", [True, False], ids=["broken-after-indexing", "never-read"])
def test_a_note_that_no_longer_parses_can_still_be_deleted(
    store: MemoryStore, indexed: bool
) -> None:
    mem = _write(store, title="doomed")
    path = store.path_of(mem)
    if not indexed:
        store.close()
        for suffix in ("", "-wal", "-shm"):
            Path(f"{store.db_path}{suffix}").unlink(missing_ok=True)
    path.write_text("---\nid: [not, an, id]\n---\nstill my words\n", encoding="utf-8")
    with MemoryStore(store.root) as again:
        assert again.problems() != []
        gone = again.delete(mem.id)
        assert gone.id == mem.id
        assert not path.exists()
        assert again.problems() == []
        with pytest.raises(NoteNotFound):
            again.get(mem.id)
    if not indexed:  # the raw text comes back, so a caller can still show what went
        assert "still my words" in gone.body


def test_delete_removes_every_known_copy_of_the_id(store: MemoryStore) -> None:
    mem = _write(store)
    copy = store.memory_dir / "semantic" / "copy-of-note.md"  # not at a canonical path
    copy.write_text(store.path_of(mem).read_text(), encoding="utf-8")
    store.list()  # the copy is seen and reported as a duplicate
    store.delete(mem.id)
    assert list(store.root.rglob("*.md")) == []
    assert store.list() == [] and store.problems() == []


def test_update_fills_a_missing_created_at(store: MemoryStore) -> None:
    path = store.memory_dir / "semantic" / "01J9Z8YPM7Q3X2V4WT6B5N0KGD.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("---\nid: 01J9Z8YPM7Q3X2V4WT6B5N0KGD\ntype: semantic\ntitle: Hand\n---\nb\n")
    assert store.get("01J9Z8YPM7Q3X2V4WT6B5N0KGD").created_at == ""
    updated = store.update("01J9Z8YPM7Q3X2V4WT6B5N0KGD", body="edited")
    assert updated.created_at == updated.updated_at != ""
    assert parse_note(path.read_text()).created_at == updated.created_at


def test_a_move_that_cannot_remove_the_old_file_changes_nothing(
    store: MemoryStore, make_unwritable: Callable[[Path], None]
) -> None:
    mem = _write(store, body="original")
    old = store.path_of(mem)
    make_unwritable(old.parent)
    with pytest.raises(StorageError, match="cannot delete"):
        store.update(mem.id, type="procedural", body="moved")
    assert list(store.root.rglob("*.md")) == [old]
    assert store.get(mem.id) == mem
    assert [m.id for m in store.search("original")] == [mem.id]


def test_list_is_newest_first_with_confidence_breaking_ties(store: MemoryStore) -> None:
    stamp = "2026-01-01T00:00:00+00:00"
    ids = ["01J9Z8YPM7Q3X2V4WT6B5N0KG1", "01J9Z8YPM7Q3X2V4WT6B5N0KG2", "01J9Z8YPM7Q3X2V4WT6B5N0KG3"]
    for memory_id, updated, confidence in [
        (ids[0], "2026-01-03T00:00:00+00:00", 1.0),
        (ids[1], stamp, 0.5),
        (ids[2], stamp, 0.9),
    ]:
        store.put(Memory(id=memory_id, type="semantic", title="t", body="b", created_at=stamp,
                         updated_at=updated, confidence=confidence))  # fmt: skip
    assert [m.id for m in store.list()] == [ids[0], ids[2], ids[1]]
    assert [m.id for m in store.list(limit=1)] == [ids[0]]
    assert all(m.body == "" for m in store.list(include_body=False))


def ids(notes: list[Memory]) -> set[str]:
    return {m.id for m in notes}


def test_list_filters(store: MemoryStore) -> None:
    a = _write(store, project="a", type="episodic", tags=["reflected"])
    b = _write(store, project="a", type="semantic", scope="machine-local")
    c = _write(store, project="b", type="procedural")
    assert ids(store.list(project="a")) == {a.id, b.id}
    assert ids(store.list(type=["semantic", "procedural"])) == {b.id, c.id}
    assert ids(store.list(scope="machine-local")) == {b.id}
    assert ids(store.list(tag="reflected")) == {a.id}
    assert ids(store.list(exclude_tag="reflected")) == {b.id, c.id}
    with pytest.raises(InvalidQuery):
        store.list(type="recipe")


def test_supersession_hides_from_search_but_not_from_list(store: MemoryStore) -> None:
    old1 = _write(store, title="deploy with fabric")
    old2 = _write(store, title="deploy with ansible")
    new = _write(store, title="deploy with kamal", supersedes=[old1.id, old2.id])
    assert [m.id for m in store.search("deploy")] == [new.id]
    assert {m.id for m in store.list()} == {old1.id, old2.id, new.id}
    assert store.superseded_ids() == {old1.id, old2.id}
    assert store.superseders() == {old1.id: [new.id], old2.id: [new.id]}
    assert {m.id for m in store.list(include_superseded=False)} == {new.id}
    assert store.stats().superseded == 2
    store.delete(new.id)  # the replacement is gone: the old notes come back
    assert {m.id for m in store.search("deploy")} == {old1.id, old2.id}


def test_stats(store: MemoryStore) -> None:
    _write(store, project="a")
    _write(store, project="a", type="episodic", scope="machine-local")
    _write(store, project="global", type="procedural")
    stats = store.stats()
    assert stats.total == 3
    assert stats.by_type == {"semantic": 1, "episodic": 1, "procedural": 1}
    assert stats.by_project == {"a": 2, "global": 1}
    assert stats.by_scope == {"portable": 2, "machine-local": 1}


def test_a_failed_index_write_leaves_no_new_file(store: MemoryStore) -> None:
    conn = store._connection()
    conn.execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON memories"
        " BEGIN SELECT RAISE(ABORT, 'index refused'); END"
    )
    with pytest.raises(Exception, match="index refused"):
        _write(store)
    assert list(store.root.rglob("*.md")) == []


def test_a_failed_index_write_on_put_restores_the_previous_file(store: MemoryStore) -> None:
    mem = _write(store, body="original")
    before = store.path_of(mem).read_text()
    store._connection().execute(
        "CREATE TEMP TRIGGER refuse BEFORE INSERT ON memories"
        " BEGIN SELECT RAISE(ABORT, 'index refused'); END"
    )
    with pytest.raises(Exception, match="index refused"):
        store.put(mem.replace(body="changed"))
    assert store.path_of(mem).read_text() == before


def test_unwritable_tree_is_a_clear_error_and_writes_nothing(
    store: MemoryStore, make_unwritable: Callable[[Path], None]
) -> None:
    (store.memory_dir / "semantic").mkdir()
    make_unwritable(store.memory_dir / "semantic")
    with pytest.raises(StorageError, match="cannot write"):
        _write(store)
    assert store.stats().total == 0


def test_a_store_that_cannot_be_created_says_so(
    tmp_path: Path, make_unwritable: Callable[[Path], None]
) -> None:
    parent = tmp_path / "locked"
    parent.mkdir()
    make_unwritable(parent)
    with pytest.raises(StorageError, match="cannot create the store"):
        MemoryStore(parent / "store")


def test_store_is_a_context_manager_and_refuses_use_after_close(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "s") as store:
        _write(store)
    with pytest.raises(Exception, match="closed"):
        store.list()


def test_default_root_comes_from_anamnesis_home(isolated_home: Path) -> None:
    with MemoryStore() as store:
        assert store.root == isolated_home
        assert store.db_path == isolated_home / "index.db"


def test_index_db_is_sqlite_wal(store: MemoryStore) -> None:
    conn = sqlite3.connect(store.db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


@pytest.mark.parametrize("build", ["on open", "by reindex"])
def test_the_index_has_the_specs_secondary_indexes(store: MemoryStore, build: str) -> None:
    if build == "by reindex":
        store.reindex()
    conn = sqlite3.connect(store.db_path)
    names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    # The list order must still come from the recency index, not a sort of every row.
    plan = " ".join(
        row[3]
        for row in conn.execute(
            "EXPLAIN QUERY PLAN SELECT id FROM memories WHERE project = ? AND type IN (?)"
            " ORDER BY updated_at DESC, confidence DESC, id DESC LIMIT 5",
            ("p", "semantic"),
        )
    )
    conn.close()
    assert {"idx_mem_scope", "idx_mem_prov", "idx_mem_recency"} <= names
    assert "idx_mem_project_recency" in plan and "TEMP B-TREE" not in plan


def test_full_text_index_stays_consistent_through_edits(store: MemoryStore) -> None:
    import random

    rng = random.Random(3)
    live: list[Memory] = []
    for step in range(300):
        action = rng.random()
        if live and action < 0.3:
            mem = rng.choice(live)
            live.remove(mem)
            tags = rng.sample(["a", "b", "c", "d"], rng.randint(0, 3))
            live.append(
                store.update(mem.id, body=f"edited {step} " * rng.randint(1, 50), tags=tags)
            )
        elif live and action < 0.4:
            mem = rng.choice(live)
            live.remove(mem)
            new_type = rng.choice(["semantic", "procedural"])
            new_scope = rng.choice(["portable", "machine-local"])
            live.append(store.update(mem.id, type=new_type, scope=new_scope))
        elif live and action < 0.5:
            store.delete(live.pop(rng.randrange(len(live))).id)
        else:
            live.append(_write(store, body=f"note {step} " * rng.randint(1, 50)))
    conn = store._connection()
    conn.execute("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)")
    assert {m.id for m in store.list()} == {m.id for m in live}
    store.reindex()
    conn = store._connection()
    conn.execute("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)")
    assert {m.id for m in store.list()} == {m.id for m in live}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("machine_id", "two\nlines"),
        ("machine_id", "a/b"),
        ("machine_id", "back\\slash"),
        ("machine_id", "x" * 129),
        ("project", "tab\there"),
        ("project", "p" * 301),
    ],
)
def test_one_line_names_are_checked_on_write(store: MemoryStore, field: str, value: str) -> None:
    names = {"project": "p", "machine_id": "m", field: value}
    with pytest.raises(InvalidNote, match=field):
        store.write(
            type="semantic", title="t", body="b", project=names["project"],
            machine_id=names["machine_id"],
        )  # fmt: skip
    assert store.list() == []


def test_a_hand_written_odd_machine_id_still_reads(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="t", body="b", machine_id="laptop")
    path = store.path_of(note)
    path.write_text(path.read_text().replace("machine_id: laptop", "machine_id: a/b"))
    assert store.get(note.id).machine_id == "a/b"
