"""MemoryStore: listing and counting, supersession, failed writes, the index file itself
(WAL, the spec's secondary indexes, full-text consistency) and names checked on write."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from anamnesis.store import (
    InvalidNote,
    InvalidQuery,
    Memory,
    MemoryStore,
    StorageError,
)
from store_testing import ids, write_note


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


def test_list_filters(store: MemoryStore) -> None:
    a = write_note(store, project="a", type="episodic", tags=["reflected"])
    b = write_note(store, project="a", type="semantic", scope="machine-local")
    c = write_note(store, project="b", type="procedural")
    assert ids(store.list(project="a")) == {a.id, b.id}
    assert ids(store.list(type=["semantic", "procedural"])) == {b.id, c.id}
    assert ids(store.list(scope="machine-local")) == {b.id}
    assert ids(store.list(tag="reflected")) == {a.id}
    assert ids(store.list(exclude_tag="reflected")) == {b.id, c.id}
    with pytest.raises(InvalidQuery):
        store.list(type="recipe")


def test_supersession_hides_from_search_but_not_from_list(store: MemoryStore) -> None:
    old1 = write_note(store, title="deploy with fabric")
    old2 = write_note(store, title="deploy with ansible")
    new = write_note(store, title="deploy with kamal", supersedes=[old1.id, old2.id])
    assert [m.id for m in store.search("deploy")] == [new.id]
    assert {m.id for m in store.list()} == {old1.id, old2.id, new.id}
    assert store.superseded_ids() == {old1.id, old2.id}
    assert store.superseders() == {old1.id: [new.id], old2.id: [new.id]}
    assert {m.id for m in store.list(include_superseded=False)} == {new.id}
    assert store.stats().superseded == 2
    store.delete(new.id)  # the replacement is gone: the old notes come back
    assert {m.id for m in store.search("deploy")} == {old1.id, old2.id}


def test_stats(store: MemoryStore) -> None:
    write_note(store, project="a")
    write_note(store, project="a", type="episodic", scope="machine-local")
    write_note(store, project="global", type="procedural")
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
        write_note(store)
    assert list(store.root.rglob("*.md")) == []


def test_a_failed_index_write_on_put_restores_the_previous_file(store: MemoryStore) -> None:
    mem = write_note(store, body="original")
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
        write_note(store)
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
        write_note(store)
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
            " ORDER BY ranked_at DESC, confidence DESC, id DESC LIMIT 5",
            ("p", "semantic"),
        )
    )
    conn.close()
    assert {"idx_mem_scope", "idx_mem_prov", "idx_mem_recency", "idx_mem_dated_ahead"} <= names
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
            live.append(write_note(store, body=f"note {step} " * rng.randint(1, 50)))
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
