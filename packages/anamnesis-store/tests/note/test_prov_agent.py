"""Which coding agent wrote a note (``prov_agent``): written right after ``prov_session``
only when set, read back, held by the index and filtered on; a hand-written name that is
not an agent's makes the note broken (reported, skipped) like any other bad field."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from anamnesis.store import (
    InvalidNote,
    InvalidQuery,
    MalformedNote,
    Memory,
    MemoryStore,
    is_agent_name,
    parse_note,
    read_jsonl,
    serialize_note,
    validate_note,
)
from store_testing import write_note

NOTE_ID = "01JPQRST0000000000000000AB"


def test_the_agent_is_written_after_the_session_and_read_back(store: MemoryStore) -> None:
    old = write_note(store, title="old")
    note = write_note(
        store,
        title="From codex",
        prov_source="session-end",
        prov_model="gpt-x",
        prov_session="s-1",
        prov_agent="codex",
        supersedes=[old.id],
    )
    text = store.path_of(note).read_text()
    keys = [line.split(":")[0] for line in text.split("---\n")[1].splitlines()]
    at = keys.index("prov_session")
    assert keys[at : at + 3] == ["prov_session", "prov_agent", "supersedes"]
    assert "prov_agent: codex\n" in text
    assert store.get(note.id).prov_agent == "codex"
    assert parse_note(text) == note
    assert note.to_dict()["prov_agent"] == "codex"
    assert note.to_dict(include_body=False)["prov_agent"] == "codex"


def test_a_note_no_agent_wrote_has_no_key(store: MemoryStore) -> None:
    note = write_note(store)
    assert note.prov_agent == "" and note.to_dict()["prov_agent"] == ""
    assert "prov_agent" not in store.path_of(note).read_text()


def test_the_index_holds_the_agent_and_a_rebuild_keeps_it(store: MemoryStore) -> None:
    codex = write_note(store, title="a", prov_agent="codex")
    human = write_note(store, title="b")
    with sqlite3.connect(store.layout.db_path) as conn:
        rows = dict(conn.execute("SELECT id, prov_agent FROM memories").fetchall())
    assert rows == {codex.id: "codex", human.id: None}
    store.reindex()
    listed = {note.id: note.prov_agent for note in store.list(include_body=False)}
    assert listed == {codex.id: "codex", human.id: ""}


def test_a_file_an_older_version_rewrote_still_gives_the_agent(store: MemoryStore) -> None:
    """An older version keeps ``prov_agent`` as a key it does not know and writes it back
    after ``tags``; this version reads it as the field, and writes it back in its place."""
    note = write_note(store, prov_session="s-1", prov_agent="codex")
    path = store.path_of(note)
    text = path.read_text()
    moved = text.replace("prov_agent: codex\n", "").replace(
        "tags: []\n", "tags: []\nprov_agent: codex\n"
    )
    assert moved.index("prov_agent") > moved.index("tags: []")
    assert parse_note(moved) == note
    assert serialize_note(parse_note(moved)) == text


@pytest.mark.parametrize(
    "name", ["claude-code", "codex", "gemini", "gemini-cli", "copilot", "a", "x1.2_y-z", "9" * 40]
)
def test_an_agent_name_is_short_and_lowercase(name: str) -> None:
    assert is_agent_name(name)
    assert validate_note(Memory(NOTE_ID, "semantic", "t", "b", prov_agent=name)).prov_agent


BAD_NAMES = ["Codex", "codex cli", "-codex", ".codex", "a" * 41, "codé", "co\ndex", "co/dex"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_bad_agent_name_is_refused_before_anything_is_written(
    store: MemoryStore, name: str
) -> None:
    assert not is_agent_name(name)
    with pytest.raises(InvalidNote, match="prov_agent"):
        write_note(store, prov_agent=name)
    assert not list(store.memory_dir.rglob("*.md"))


def test_an_agent_that_is_not_text_is_refused() -> None:
    with pytest.raises(InvalidNote, match="prov_agent: must be text"):
        validate_note(Memory(NOTE_ID, "semantic", "t", "b", prov_agent=3))  # type: ignore[arg-type]


@pytest.mark.parametrize("value", ["Codex CLI", "'-codex'", "[codex]"])
def test_a_hand_written_bad_agent_makes_a_broken_note_and_every_read_goes_on(
    store: MemoryStore, value: str
) -> None:
    good = write_note(store, title="good hello", body="hello world")
    path = store.memory_dir / "semantic" / f"{NOTE_ID}.md"
    path.write_text(
        f"---\nid: {NOTE_ID}\ntype: semantic\ntitle: bad hello\nprov_agent: {value}\n---\n"
        "hello from a hand-edited note\n"
    )
    assert [note.id for note in store.list()] == [good.id]
    assert [hit.id for hit in store.search("hello")] == [good.id]
    (problem,) = store.problems()
    assert problem.path == str(path) and problem.reason.startswith("prov_agent")
    with pytest.raises(MalformedNote, match="prov_agent"):
        store.get(NOTE_ID)
    report = store.reindex()
    assert [skip.path for skip in report.skipped] == [str(path)]


def test_a_hand_written_empty_agent_is_no_agent(store: MemoryStore) -> None:
    path = store.memory_dir / "semantic" / f"{NOTE_ID}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nid: {NOTE_ID}\ntype: semantic\ntitle: t\nprov_agent:\n---\nb\n")
    assert store.get(NOTE_ID).prov_agent == ""


def test_list_count_and_search_filter_by_agent(store: MemoryStore) -> None:
    codex = write_note(store, title="deploy from codex", prov_agent="codex")
    claude = write_note(store, title="deploy from claude", prov_agent="claude-code")
    human = write_note(store, title="deploy by hand")
    assert [note.id for note in store.list(agent="codex")] == [codex.id]
    assert store.count(agent="claude-code") == 1 and store.count() == 3
    assert [note.id for note in store.search("deploy", agent="codex", mode="keyword")] == [codex.id]
    assert {note.id for note in store.search("deploy", mode="keyword")} == {
        codex.id,
        claude.id,
        human.id,
    }
    assert store.list(agent="gemini") == []


@pytest.mark.parametrize("agent", ["Codex", "", "codex cli"])
def test_a_filter_that_names_no_agent_is_refused(store: MemoryStore, agent: str) -> None:
    with pytest.raises(InvalidQuery, match="agent"):
        store.list(agent=agent)
    with pytest.raises(InvalidQuery, match="agent"):
        store.search("deploy", agent=agent, mode="keyword")


def test_an_older_versions_jsonl_export_gives_the_agent(tmp_path: Path) -> None:
    """An older version exported ``prov_agent`` among the keys it did not know."""
    record = {"id": NOTE_ID, "type": "semantic", "title": "t", "body": "b",
              "extra": {"prov_agent": "codex", "reviewed": "yes"}}  # fmt: skip
    path = tmp_path / "notes.jsonl"
    path.write_text(json.dumps(record) + "\n")
    read = read_jsonl(path)
    assert read.skipped == []
    (note,) = read.notes
    assert note.prov_agent == "codex" and note.extra == {"reviewed": "yes"}
