"""A note whose timestamp has no UTC form (``9999-12-31T23:59:59-01:00`` is in the year
10000 in UTC) or names no date at all is a broken note: reported, skipped by every read,
never the reason another note or a whole command fails. It used to raise ``OverflowError``
out of search, listing and reindex, on every machine that pulled it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.store import (
    InvalidNote,
    MalformedNote,
    Memory,
    MemoryStore,
    read_jsonl,
    read_markdown_export,
    read_openchronicle,
    validate_note,
)
from store_testing import write_note

POISON_ID = "01JPQRST0000000000000000AB"

# The frontmatter lines that poison a note, and what the reason must name.
POISONS = {
    "a far date quoted": ("updated_at: '9999-12-31T23:59:59-01:00'", "updated_at"),
    "a far date unquoted": ("updated_at: 9999-12-31T23:59:59-01:00", "updated_at"),
    "the first day east of UTC": ("created_at: '0001-01-01T00:00:00+05:00'", "created_at"),
    "the first day unquoted": ("created_at: 0001-01-01T00:00:00+05:00", "created_at"),
    "a day that does not exist": ("updated_at: '2026-02-30T10:00:00+00:00'", "updated_at"),
    "the year 0": ("updated_at: 0000-01-01", "updated_at"),
    # Keys the store does not know are typed by YAML: its date constructor raises
    # ValueError (not a YAML error) for a date-shaped value that names no date.
    "an unknown key YAML cannot build": ("reviewed: 2026-02-30", "reviewed"),
    "an unknown key at hour 25": ("reviewed: 2026-01-01T25:00:00Z", "reviewed"),
}


def poison(store: MemoryStore, line: str, memory_id: str = POISON_ID) -> Path:
    path = store.memory_dir / "semantic" / f"{memory_id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nid: {memory_id}\ntype: semantic\ntitle: poisoned hello\n{line}\n---\n"
        "hello from a machine with a broken clock\n"
    )
    return path


@pytest.mark.parametrize(("line", "field"), POISONS.values(), ids=POISONS.keys())
def test_a_poisoned_note_is_broken_and_every_read_goes_on(
    store: MemoryStore, line: str, field: str
) -> None:
    good = write_note(store, title="good hello", body="hello world")
    path = poison(store, line)
    assert [hit.id for hit in store.search("hello")] == [good.id]  # found by catch-up
    assert [note.id for note in store.list()] == [good.id]
    assert store.count() == 1
    (problem,) = store.problems()
    assert problem.path == str(path) and problem.reason.startswith(f"{field}:")
    with pytest.raises(MalformedNote, match=field):
        store.get(POISON_ID)
    report = store.reindex()
    assert report.indexed == 1 and [skip.path for skip in report.skipped] == [str(path)]
    assert [note.id for note in store.list()] == [good.id]


def test_a_note_edited_into_a_poisoned_one_leaves_the_listing_and_comes_back_fixed(
    store: MemoryStore,
) -> None:
    other = write_note(store, title="other", body="hello again")
    note = write_note(store, title="mine", body="hello")
    path = store.path_of(note)
    text = path.read_text()
    path.write_text(text.replace(note.updated_at, "9999-12-31T23:59:59-01:00"))
    assert [n.id for n in store.list()] == [other.id]
    assert [hit.id for hit in store.search("hello")] == [other.id]
    path.write_text(text)
    assert {n.id for n in store.list()} == {other.id, note.id}


@pytest.mark.parametrize(
    "stamp", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:00:00+05:00", "2026-02-30T00:00:00Z"]
)
def test_a_note_given_an_unusable_timestamp_is_refused_before_anything_is_written(
    store: MemoryStore, stamp: str
) -> None:
    note = Memory(id=POISON_ID, type="semantic", title="t", body="b", updated_at=stamp)
    with pytest.raises(InvalidNote, match="updated_at"):
        validate_note(note)
    with pytest.raises(InvalidNote, match="updated_at"):
        store.put(note)
    assert not list(store.memory_dir.rglob("*.md"))


def test_a_jsonl_import_names_the_poisoned_line_and_reads_the_rest(tmp_path: Path) -> None:
    records = [
        {"id": POISON_ID, "type": "semantic", "title": "bad", "body": "b",
         "updated_at": "9999-12-31T23:59:59-01:00"},
        {"id": "01JPQRST0000000000000000AC", "type": "semantic", "title": "early", "body": "b",
         "created_at": "0001-01-01T00:00:00+05:00"},
        {"id": "01JPQRST0000000000000000AD", "type": "semantic", "title": "fine", "body": "b",
         "updated_at": "2026-01-02T03:04:05+00:00"},
    ]  # fmt: skip
    path = tmp_path / "notes.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    read = read_jsonl(path)
    assert [note.title for note in read.notes] == ["fine"]
    assert [(where, reason.split(":")[0]) for where, reason in read.skipped] == [
        ("line 1", "updated_at"),
        ("line 2", "created_at"),
    ]


def test_a_markdown_import_names_the_poisoned_file_and_reads_the_rest(
    store: MemoryStore,
) -> None:
    good = write_note(store, title="fine")
    path = poison(store, "updated_at: '9999-12-31T23:59:59-01:00'")
    read = read_markdown_export(store.root)
    assert [note.id for note in read.notes] == [good.id]
    ((where, reason),) = read.skipped
    assert where == str(path) and "updated_at" in reason


def test_an_openchronicle_entry_dated_past_the_year_9999_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "topic-clock.md").write_text(
        "---\ndescription: clock\n---\n"
        "## [9999-12-31T23:59:59-01:00] {id: 20260101-0000-aaaaaa}\nfrom the year 10000\n\n"
        "## [2026-04-22T10:00:00Z] {id: 20260422-1000-bbbbbb}\nan ordinary entry\n"
    )
    found = read_openchronicle(tmp_path)
    assert [note.body for note in found.notes] == ["an ordinary entry"]
    assert found.files[0].skipped == [
        ("line 4", "timestamp: '9999-12-31T23:59:59-01:00' is outside the years 1 to 9999"
         " once converted to UTC")
    ]  # fmt: skip
