"""A hand-written note without an id is adopted by a full reindex: a new id, the file
rewritten in place in the exact format, the body and the author's own keys kept."""

from __future__ import annotations

from pathlib import Path

from anamnesis.store import MemoryStore, parse_note, serialize_note


def _hand_write(store: MemoryStore, rel: str, text: str) -> Path:
    path = store.memory_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_minimal_note_is_adopted_with_its_folder_as_type(store: MemoryStore) -> None:
    path = _hand_write(
        store, "procedural/wal.md", "---\ntitle: Use WAL mode\n---\nSet busy_timeout.\n"
    )
    assert [p.path for p in store.problems()] == [str(path)]  # not a note yet
    report = store.reindex()
    assert [a.path for a in report.adopted] == [str(path)]
    note = store.get(report.adopted[0].memory_id)
    assert (note.type, note.title, note.body) == ("procedural", "Use WAL mode", "Set busy_timeout.")
    assert note.created_at and note.updated_at and note.machine_id
    text = path.read_text(encoding="utf-8")
    assert serialize_note(parse_note(text)) == text  # the exact format, byte for byte
    assert store.problems() == []
    assert [m.id for m in store.search("busy_timeout")] == [note.id]
    assert store.reindex().adopted == ()  # once adopted, it is a note like any other


def test_the_authors_keys_and_values_are_kept(store: MemoryStore) -> None:
    path = _hand_write(
        store,
        "notes/anything.md",
        "---\ntype: semantic\ntitle: Team\nproject: web\ntags: [people]\nowner: ana\n"
        "created_at: 2026-01-02T03:04:05Z\n---\n# Team\n\nAna owns the deploys.\n",
    )
    (adopted,) = store.reindex().adopted
    note = store.get(adopted.memory_id)
    assert (note.project, note.tags, note.extra) == ("web", ["people"], {"owner": "ana"})
    assert note.created_at.startswith("2026-01-02T03:04:05") and note.updated_at == note.created_at
    assert note.body == "# Team\n\nAna owns the deploys."
    assert path.exists()  # rewritten in place, not moved
    assert store.file_of(note.id) == path != store.path_of(note)


def test_the_title_may_come_from_the_first_line_and_the_id_from_the_file_name(
    store: MemoryStore,
) -> None:
    name = "01JDEP10YSRVNFR1DAYS00000A"
    path = _hand_write(
        store, f"semantic/{name}.md", "---\ntags: [ops]\n---\n# Deploys run on Fridays\n"
    )
    (adopted,) = store.reindex().adopted
    assert adopted.memory_id == name and adopted.path == str(path)
    note = store.get(name)
    assert (note.type, note.title, note.tags) == ("semantic", "Deploys run on Fridays", ["ops"])


def test_a_file_named_after_an_id_in_use_gets_a_new_one(store: MemoryStore) -> None:
    existing = store.write(type="semantic", title="first", body="b")
    _hand_write(store, f"episodic/{existing.id}.md", "---\ntitle: second\n---\nb\n")
    (adopted,) = store.reindex().adopted
    assert adopted.memory_id != existing.id
    assert {store.get(existing.id).title, store.get(adopted.memory_id).title} == {
        "first",
        "second",
    }


def test_files_that_cannot_be_adopted_are_left_alone_and_reported(store: MemoryStore) -> None:
    cases = {
        "misc/no-type.md": "---\ntitle: No type and no type folder\n---\nbody\n",
        "semantic/no-title.md": "---\nproject: x\n---\n\n",
        "semantic/bad-type.md": "---\ntype: musing\ntitle: t\n---\nbody\n",
        "semantic/broken-yaml.md": "---\ntitle: [unclosed\n---\nbody\n",
        # No frontmatter: maybe a note that lost its header; guessing would hide that.
        "semantic/plain.md": "# Deploys run on Fridays\n\nNever on Monday.\n",
    }
    paths = {rel: _hand_write(store, rel, text) for rel, text in cases.items()}
    report = store.reindex()
    assert report.adopted == ()
    assert sorted(s.path for s in report.skipped) == sorted(str(p) for p in paths.values())
    for rel, path in paths.items():
        assert path.read_text(encoding="utf-8") == cases[rel]


def test_a_note_with_an_id_is_never_rewritten(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="kept", body="as is")
    path = store.path_of(note)
    before = path.read_bytes()
    assert store.reindex().adopted == ()
    assert path.read_bytes() == before


def test_machine_local_notes_are_adopted_in_their_own_tree(store: MemoryStore) -> None:
    path = store.local_dir / "semantic" / "secret-host.md"
    path.parent.mkdir(parents=True)
    path.write_text("---\ntitle: Local host\n---\nbuild box is b7\n", encoding="utf-8")
    (adopted,) = store.reindex().adopted
    note = store.get(adopted.memory_id)
    assert note.scope == "machine-local" and path.exists()
