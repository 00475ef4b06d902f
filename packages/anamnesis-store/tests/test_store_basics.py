"""MemoryStore: writing, reading, updating and deleting notes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import pytest

from anamnesis.store import (
    InvalidNote,
    Memory,
    MemoryStore,
    NoteNotFound,
    StorageError,
    parse_note,
)
from store_testing import write_note


def test_write_creates_one_file_in_the_scope_tree(store: MemoryStore) -> None:
    mem = write_note(store, type="procedural", machine_id="laptop")
    path = store.memory_dir / "procedural" / f"{mem.id}.md"
    assert path.is_file()
    assert parse_note(path.read_text()) == mem
    assert mem.machine_id == "laptop"
    assert mem.created_at == mem.updated_at != ""


def test_machine_local_notes_live_outside_the_synced_tree(store: MemoryStore) -> None:
    mem = write_note(store, scope="machine-local")
    assert (store.local_dir / "semantic" / f"{mem.id}.md").is_file()
    assert list(store.memory_dir.rglob("*.md")) == []


def test_get_returns_the_note_and_rejects_bad_ids(store: MemoryStore) -> None:
    mem = write_note(store)
    assert store.get(mem.id) == mem
    with pytest.raises(NoteNotFound, match="no note with id"):
        store.get("01J9Z8YPM7Q3X2V4WT6B5N0KGD")
    with pytest.raises(InvalidNote, match="not a ULID"):
        store.get("../../etc/passwd")


def test_duplicate_tags_do_not_lose_the_note(store: MemoryStore) -> None:
    mem = write_note(store, tags=["css", "css", " css ", "", "ui"])
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
        write_note(store, **overrides)
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
        write_note(store, extra=extra)
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
    mem = write_note(store, extra=extra)
    assert store.get(mem.id).extra == extra
    assert parse_note(store.path_of(mem).read_text()).extra == extra


def test_a_single_string_is_one_tag_and_one_id(store: MemoryStore) -> None:
    older = write_note(store)
    mem = write_note(store, tags="deploy", supersedes=older.id)
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
    mem = write_note(store)
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
    mem = write_note(store, title="findme")
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
    mem = write_note(store, title="doomed")
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
    mem = write_note(store)
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
    mem = write_note(store, body="original")
    old = store.path_of(mem)
    make_unwritable(old.parent)
    with pytest.raises(StorageError, match="cannot delete"):
        store.update(mem.id, type="procedural", body="moved")
    assert list(store.root.rglob("*.md")) == [old]
    assert store.get(mem.id) == mem
    assert [m.id for m in store.search("original")] == [mem.id]
