"""OpenChronicle memory files read as notes: prefixes, project map, timestamps, tags,
supersedes, re-imports, and every kind of bad input reported without stopping the rest."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from anamnesis_testsupport import SHARED

from anamnesis.store import (
    ChronicleImport,
    InterchangeError,
    Memory,
    MemoryStore,
    derived_id,
    load_project_map,
    openchronicle_note_id,
    plan_import,
    read_openchronicle,
)

PROFILE = """---
description: Identity and background of the user
tags: [identity, background]
status: active # active | dormant | archived
created: 2026-04-20T14:02:11+08:00
updated: 2026-04-21T09:15:00+08:00
entry_count: 3
needs_compact: false
---
# User Profile

## [2026-04-20T14:02:11] {id: 20260420-1402-a1b23c} #identity
User goes by Kming. Based in Shanghai.

## [2026-04-20T16:30:05] {id: 20260420-1630-3f0e99} #work #employer
~~User works at Old Corp as a principal engineer.~~ #superseded-by:20260421-0915-c4f1a5

## [2026-04-21T09:15:00] {id: 20260421-0915-c4f1a5} #work #employer
User joined Acme Corp as a senior engineer.
"""


def entry(entry_id: str, text: str, tags: str = "", stamp: str = "2026-04-22T10:00:00Z") -> str:
    return f"## [{stamp}] {{id: {entry_id}}} {tags}\n{text}\n\n"


def memory_file(description: str, *entries: str, tags: str = "[]") -> str:
    front = f"---\ndescription: {description}\ntags: {tags}\n---\n# Heading\n\n"
    return front + "".join(entries)


def read(folder: Path, **options: object) -> ChronicleImport:
    return read_openchronicle(folder, **options)  # type: ignore[arg-type]


def by_entry(found: ChronicleImport) -> dict[str, Memory]:
    return {note.extra["openchronicle_entry"].split("/")[1]: note for note in found.notes}


def report(found: ChronicleImport, name: str) -> object:
    return next(f for f in found.files if f.name == name)


@pytest.mark.parametrize(
    ("name", "note_type", "project"),
    [
        ("user-profile.md", "semantic", "global"),
        ("user-preferences.md", "semantic", "global"),
        ("project-openchronicle.md", "semantic", "openchronicle"),
        ("project-Big-API.md", "semantic", "big-api"),
        ("tool-cursor.md", "semantic", "global"),
        ("topic-rust-async.md", "semantic", "global"),
        ("person-alice.md", "semantic", "global"),
        ("org-anthropic.md", "semantic", "global"),
        ("event-2026-04-22.md", "episodic", "global"),
    ],
)
def test_the_file_prefix_decides_type_and_project(
    tmp_path: Path, name: str, note_type: str, project: str
) -> None:
    (tmp_path / name).write_text(memory_file("d", entry("e1", "A fact.")))
    found = read(tmp_path)
    (note,) = found.notes
    assert (note.type, note.project) == (note_type, project)
    assert note.prov_source == "import" and note.scope == "portable"
    assert found.files[0].notices == []  # a known prefix is nothing to report
    assert (
        note.id
        == derived_id(f"openchronicle:{name[:-3]}/e1")
        == openchronicle_note_id(name[:-3], "e1")
    )


def test_an_unknown_prefix_is_semantic_and_global_and_reported(tmp_path: Path) -> None:
    (tmp_path / "recipes.md").write_text(memory_file("d", entry("e1", "Salt the pasta water.")))
    (tmp_path / "misc-things.md").write_text(memory_file("d", entry("e1", "Other.")))
    found = read(tmp_path)
    assert [(n.type, n.project) for n in found.notes] == [("semantic", "global")] * 2
    for f in found.files:
        assert f.notices == ["unknown file prefix: read as semantic notes of project global"]


def test_the_project_map_maps_stems_before_prefixes(tmp_path: Path) -> None:
    for name in ("tool-cursor.md", "tool-slack.md", "project-api.md", "notes.md", "org-x.md"):
        (tmp_path / name).write_text(memory_file("d", entry("e1", f"About {name}.")))
    mapping = tmp_path / "map.json"
    mapping.write_text(
        '{"tool-": "tools", "tool-cursor": " editor ", "project-api": "github.com/me/api",'
        ' "notes": "scratch", "org": "orgs"}'
    )
    found = read(tmp_path, project_map=load_project_map(mapping))
    projects = {f.name: f.project for f in found.files}
    assert projects == {
        "tool-cursor.md": "editor",
        "tool-slack.md": "tools",
        "project-api.md": "github.com/me/api",
        "notes.md": "scratch",
        "org-x.md": "orgs",
    }
    assert {n.project for n in found.notes} == set(projects.values())


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("[1, 2]", "must be a JSON object"),
        ('{"tool-": 3}', "must be one line of text"),
        ('{"tool-": "a\\nb"}', "must be one line of text"),
        ("{not json", "is not a JSON file"),
    ],
)
def test_a_bad_project_map_is_refused_saying_why(
    tmp_path: Path, content: str, problem: str
) -> None:
    mapping = tmp_path / "map.json"
    mapping.write_text(content)
    with pytest.raises(InterchangeError, match=problem):
        load_project_map(mapping)
    with pytest.raises(InterchangeError, match="cannot read"):
        load_project_map(tmp_path / "missing.json")


def test_spec_example_maps_titles_tags_timestamps_and_supersedes(tmp_path: Path) -> None:
    (tmp_path / "user-profile.md").write_text(PROFILE)
    found = read(tmp_path)
    notes = by_entry(found)
    kming, old, new = (
        notes["20260420-1402-a1b23c"],
        notes["20260420-1630-3f0e99"],
        notes["20260421-0915-c4f1a5"],
    )
    assert kming.title == "Identity and background of the user: User goes by Kming."
    assert kming.body == "User goes by Kming. Based in Shanghai."
    assert kming.tags == ["identity", "background"]  # the entry's, then the file's, once
    assert new.tags == ["work", "employer", "identity", "background"]
    # No offset in the heading: the file's zone (+08:00, from its frontmatter).
    assert kming.created_at == kming.updated_at == "2026-04-20T06:02:11+00:00"
    assert new.created_at == "2026-04-21T01:15:00+00:00"
    # The struck-through entry: kept, without its strike marks, replaced by the new one.
    assert old.body == "User works at Old Corp as a principal engineer."
    assert new.supersedes == [old.id] and old.supersedes == [] and kming.supersedes == []
    assert found.files[0].entries == 3 and found.files[0].skipped == []
    assert found.files[0].notices == []


def test_superseded_entries_are_hidden_from_search_once_imported(
    tmp_path: Path, store: MemoryStore
) -> None:
    (tmp_path / "user-profile.md").write_text(PROFILE)
    found = read(tmp_path)
    store.put_many(plan_import(store, found.notes).changed)
    notes = by_entry(found)
    hits = [n.id for n in store.search("Corp engineer", mode="keyword")]
    assert hits == [notes["20260421-0915-c4f1a5"].id]
    assert store.superseded_ids() == {notes["20260420-1630-3f0e99"].id}
    assert len(store.list()) == 3  # the history is still there


def test_superseded_by_in_the_heading_and_across_files(tmp_path: Path) -> None:
    (tmp_path / "tool-editor.md").write_text(
        memory_file(
            "Editor",
            entry("old1", "~~Uses vim.~~", "#editor #superseded-by:new1"),
            entry("old2", "~~Uses tabs.~~", "#superseded-by:elsewhere1"),
            entry("new1", "Uses Cursor."),
        )
    )
    (tmp_path / "user-preferences.md").write_text(
        memory_file("Preferences", entry("elsewhere1", "Uses spaces."))
    )
    notes = by_entry(read(tmp_path))
    assert notes["new1"].supersedes == [notes["old1"].id]
    assert notes["elsewhere1"].supersedes == [notes["old2"].id]
    assert notes["old1"].body == "Uses vim." and notes["old1"].tags == ["editor"]
    assert notes["old1"].title == "Editor: Uses vim."


def test_superseded_by_an_unknown_entry_is_reported_and_imported_as_current(
    tmp_path: Path,
) -> None:
    (tmp_path / "topic-x.md").write_text(
        memory_file(
            "X",
            entry("a", "~~Old fact.~~ #superseded-by:ghost"),
            entry("b", "Self.", "#superseded-by:b"),
        )
    )
    found = read(tmp_path)
    notes = by_entry(found)
    assert notes["a"].body == "Old fact."
    assert all(not n.supersedes for n in found.notes)
    assert found.files[0].notices == [
        "entry a: #superseded-by:ghost names no entry that was read: imported as current",
        "entry b: #superseded-by:b names the entry itself: imported as current",
    ]


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("## Notes\nfree text\n\n", "not an entry heading"),
        ("## [yesterday] {id: e9}\nText.\n\n", "'yesterday' is not ISO-8601"),
        ("## [2026-04-22T10:00:00] {id: }\nText.\n\n", "empty or not one word"),
        ("## [2026-04-22T10:00:00] {id: e9}\n\n", "has no text"),
        ("## [2026-04-22T10:00:00] {id: e1}\nAgain.\n\n", "entry e1 again"),
        ("## [2026-04-22T10:00:00] {id: e9} #superseded-by:\nText.\n\n", "names no entry"),
    ],
)
def test_a_malformed_entry_is_skipped_with_its_reason_and_the_rest_read(
    tmp_path: Path, bad: str, reason: str
) -> None:
    text = memory_file("d", entry("e1", "First."), bad, entry("e2", "Last."))
    (tmp_path / "topic-t.md").write_text(text)
    found = read(tmp_path)
    assert sorted(by_entry(found)) == ["e1", "e2"]
    ((where, why),) = found.files[0].skipped
    line = text.split("\n").index(bad.split("\n")[0]) + 1
    assert where == f"line {line}" and reason in why
    assert found.files[0].entries == 3


def test_timestamps_with_an_offset_and_without_any_zone(tmp_path: Path) -> None:
    text = "".join(
        [
            entry("z", "Zulu.", stamp="2026-04-22T10:00:00Z"),
            entry("o", "Offset.", stamp="2026-04-22T10:00:00-05:00"),
            entry("n", "Naive.", stamp="2026-04-22T10:00:00"),
        ]
    )
    (tmp_path / "topic-t.md").write_text(text)  # no frontmatter: no zone from the file
    in_tokyo = by_entry(read(tmp_path, zone=timezone(timedelta(hours=9))))
    assert in_tokyo["z"].created_at == "2026-04-22T10:00:00+00:00"
    assert in_tokyo["o"].created_at == "2026-04-22T15:00:00+00:00"
    assert in_tokyo["n"].created_at == "2026-04-22T01:00:00+00:00"
    here = by_entry(read(tmp_path))["n"]  # this machine's zone
    expected = datetime(2026, 4, 22, 10).astimezone().astimezone(UTC)
    assert here.created_at == expected.isoformat(timespec="seconds")


def test_heading_text_titles_and_fenced_headings_stay_in_the_body(tmp_path: Path) -> None:
    body = "Run it like this:\n```\n## [2026-01-01] {id: fake}\n```"
    (tmp_path / "tool-make.md").write_text(
        "# Make\n\n"  # no frontmatter: the file's own heading is the title's first part
        + entry("h", "Body first. Second sentence.", "Build tips #build")
        + entry("f", body)
        + entry("long", "word " * 80)
    )
    found = read(tmp_path)
    notes = by_entry(found)
    assert notes["h"].title == "Make: Build tips" and notes["h"].tags == ["build"]
    assert notes["f"].body == body and found.files[0].entries == 3
    assert notes["f"].title == "Make: Run it like this:"
    assert len(notes["long"].title) == 200 and notes["long"].title.endswith("…")


def test_file_tags_written_as_text_and_a_file_without_description(tmp_path: Path) -> None:
    (tmp_path / "person-bob.md").write_text(
        "---\ntags: 'team, #infra'\n---\n" + entry("e", "Bob runs the CI.", "#ci #team")
    )
    (note,) = read(tmp_path).notes
    assert note.tags == ["ci", "team", "infra"]
    assert note.title == "person bob: Bob runs the CI."


def test_broken_frontmatter_is_reported_and_the_entries_still_read(tmp_path: Path) -> None:
    (tmp_path / "topic-t.md").write_text("---\ndescription: [unclosed\n---\n" + entry("e", "X."))
    found = read(tmp_path)
    assert len(found.notes) == 1
    assert found.files[0].notices[0].startswith("frontmatter ignored:")


def test_a_missing_folder_or_a_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InterchangeError, match="is not a folder"):
        read(tmp_path / "nope")
    (tmp_path / "file.md").write_text("x")
    with pytest.raises(InterchangeError, match="is not a folder"):
        read(tmp_path / "file.md")


def test_a_file_that_is_not_utf8_is_reported_and_the_others_read(tmp_path: Path) -> None:
    (tmp_path / "topic-latin.md").write_bytes(b"## [2026-04-22] {id: a}\ncaf\xe9\n")
    (tmp_path / "topic-good.md").write_text(entry("b", "Fine."))
    found = read(tmp_path)
    assert [n.body for n in found.notes] == ["Fine."]
    bad = report(found, "topic-latin.md")
    assert bad.error.startswith("not UTF-8 text")  # type: ignore[attr-defined]
    assert bad.note_ids == [] and bad.entries == 0  # type: ignore[attr-defined]


def test_links_and_special_files_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(entry("s", "The secret outside the folder."))
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "topic-link.md").symlink_to(outside / "secret.md")
    (memory / "topic-dir.md").mkdir()
    os.mkfifo(memory / "topic-fifo.md")  # a plain open would block forever
    (memory / "topic-real.md").write_text(entry("r", "Real."))
    (memory / ".hidden.md").write_text(entry("h", "Editor swap."))
    (memory / "index.db").write_text("not markdown")
    found = read(memory)
    assert [n.body for n in found.notes] == ["Real."]
    errors = {f.name: f.error for f in found.files}
    assert set(errors) == {"topic-link.md", "topic-dir.md", "topic-fifo.md", "topic-real.md"}
    assert "symbolic link" in errors["topic-link.md"]
    assert "folder" in errors["topic-dir.md"] and "FIFO" in errors["topic-fifo.md"]


def test_a_reimport_adds_nothing_and_an_edit_updates_one_note(
    tmp_path: Path, store: MemoryStore
) -> None:
    path = tmp_path / "user-profile.md"
    path.write_text(PROFILE)
    first = plan_import(store, read(tmp_path, machine_id="laptop").notes)
    assert len(first.new) == 3
    store.put_many(first.changed)
    # Another machine reading the same files: its id on the notes is no change.
    again = plan_import(store, read(tmp_path, machine_id="desk").notes, ignore=["machine_id"])
    assert (len(again.new), len(again.updated), len(again.unchanged)) == (0, 0, 3)
    assert again.changed == []
    path.write_text(PROFILE.replace("Based in Shanghai", "Based in Hangzhou"))
    edited = plan_import(store, read(tmp_path, machine_id="laptop").notes)
    assert [n.body for n in edited.updated] == ["User goes by Kming. Based in Hangzhou."]
    assert len(edited.unchanged) == 2 and edited.new == []
    store.put_many(edited.changed)
    assert len(store.list()) == 3


def test_the_shared_sample_reads_when_present() -> None:
    sample = SHARED / "fixtures" / "openchronicle"
    if not sample.is_dir():
        pytest.skip("no OpenChronicle sample in ../shared")
    found = read(sample)
    assert found.files and all(f.entries >= len(f.note_ids) for f in found.files)
