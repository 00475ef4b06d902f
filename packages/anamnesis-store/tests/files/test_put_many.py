"""put_many writes a batch of notes all or nothing, even when the process dies mid-batch:
a crash before the journal leaves none of them, a crash after it leaves all of them once a
store opens the folder again."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from anamnesis.store import InvalidNote, Memory, MemoryStore, new_id


def _notes(count: int, *, body: str = "distilled from sessions") -> list[Memory]:
    return [
        Memory(id=new_id(), type="semantic", title=f"lesson {n}", body=f"{body} {n}")
        for n in range(count)
    ]


def test_a_batch_lands_whole_and_is_indexed(store: MemoryStore) -> None:
    old = store.write(type="episodic", title="session", body="the episode")
    batch = [*_notes(3), old.replace(tags=["reflected"])]
    written = store.put_many(batch)
    assert [note.id for note in written] == [note.id for note in batch]
    assert {note.id for note in store.list()} == {note.id for note in batch}
    assert store.get(old.id).tags == ["reflected"]
    assert [hit.id for hit in store.search("lesson 2", mode="keyword", k=1)] == [batch[2].id]


def test_a_batch_masks_secrets_like_any_write(store: MemoryStore) -> None:
    (note,) = store.put_many(_notes(1, body="token ghp_16C7e42F292c6912E7710c838347Ae178B4a"))
    assert "ghp_" not in store.file_of(note.id).read_text()


def test_a_batch_that_moves_a_note_to_another_type_leaves_one_file(store: MemoryStore) -> None:
    note = store.write(type="episodic", title="t", body="b")
    before = store.file_of(note.id)
    store.put_many([note.replace(type="procedural")])
    assert not before.exists()
    assert store.file_of(note.id).parent.name == "procedural"


@pytest.mark.parametrize(
    "bad",
    [
        lambda notes: [*notes, notes[0]],  # the same id twice
        lambda notes: [*notes, notes[0].replace(id=new_id(), type="diary")],  # not a type
    ],
)
def test_a_bad_note_refuses_the_whole_batch(store: MemoryStore, bad: object) -> None:
    assert callable(bad)
    with pytest.raises(InvalidNote):
        store.put_many(bad(_notes(3)))
    assert store.list() == []
    assert not any(store.memory_dir.rglob("*.md"))


CRASH = textwrap.dedent(
    """
    import json, os, sys
    import anamnesis.store.files.batch_journal as journal
    from anamnesis.store import Memory, MemoryStore
    store = MemoryStore(sys.argv[1])
    notes = [Memory(**fields) for fields in json.loads(sys.argv[3])]
    if sys.argv[2] == "before-journal":
        journal.write_journal = lambda *args: os._exit(9)
    else:
        journal.finish = lambda *args: os._exit(9)
    store.put_many(notes)
    """
)


def _crash(root: Path, when: str, notes: list[Memory]) -> None:
    fields = json.dumps([{"id": n.id, "type": n.type, "title": n.title, "body": n.body}
                         for n in notes])  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-c", CRASH, str(root), when, fields], capture_output=True, text=True
    )
    assert done.returncode == 9, done.stderr


def test_a_crash_before_the_journal_leaves_none_of_the_batch(tmp_path: Path) -> None:
    root = tmp_path / "store"
    MemoryStore(root).close()
    _crash(root, "before-journal", _notes(4))
    with MemoryStore(root) as store:
        assert store.list() == []
        assert len(store.leftovers()) == 4  # flushed temp files, swept once old enough
        assert len(store.sweep_leftovers(min_age_s=0)) == 4


def test_a_crash_after_the_journal_leaves_all_of_the_batch(tmp_path: Path) -> None:
    root = tmp_path / "store"
    MemoryStore(root).close()
    notes = _notes(4)
    _crash(root, "after-journal", notes)
    assert (root / ".batch-journal.json").exists()
    assert not any(root.rglob("*.md"))  # nothing renamed yet: the crash came first
    with MemoryStore(root) as store:
        assert sorted(note.id for note in store.list()) == sorted(note.id for note in notes)
        assert store.leftovers() == []
    assert not (root / ".batch-journal.json").exists()


def test_a_journal_never_moves_files_outside_the_note_trees(tmp_path: Path) -> None:
    root = tmp_path / "store"
    MemoryStore(root).close()
    victim = tmp_path / "elsewhere.txt"
    victim.write_text("keep me")
    target = root / "memory" / "semantic" / "x.md"
    journal = {"renames": [[str(victim), str(target)], [str(victim), str(tmp_path / "y.md")]]}
    (root / ".batch-journal.json").write_text(json.dumps(journal))
    with MemoryStore(root) as store:
        assert store.list() == []
    assert victim.read_text() == "keep me" and not target.exists()
    assert not (root / ".batch-journal.json").exists()
