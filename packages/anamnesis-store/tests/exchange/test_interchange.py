"""Exports (JSONL and markdown) and reading them back: ids, fields and timestamps survive
the round trip; an export never writes outside its folder; bad input is reported."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from anamnesis.store import (
    EXPORT_FORMATS,
    InterchangeError,
    JsonTooDeep,
    Memory,
    MemoryStore,
    export_store,
    load_json,
    new_id,
    parse_note,
    plan_import,
    read_jsonl,
    read_markdown_export,
)
from anamnesis.store.exchange import interchange


def snapshot(store: MemoryStore) -> list[dict[str, Any]]:
    """Every field of every note, extra included, by id."""
    return sorted(
        ({**note.to_dict(), "extra": note.extra} for note in store.list()),
        key=lambda data: data["id"],
    )


@pytest.fixture
def filled(store: MemoryStore) -> MemoryStore:
    old = store.write(type="semantic", title="Old fact", body="Uses vim.", project="p1")
    store.write(
        type="procedural",
        title="Deploy",
        body="Run `make deploy`.\n\n- then check the logs\n",
        project="github.com/me/api",
        machine_id="laptop",
        tags=["deploy", "ops"],
        prov_source="reflection",
        prov_model="claude-x",
        prov_session="s-1",
        prov_agent="codex",
        confidence=0.5,
        supersedes=[old.id],
        extra={"reviewed": "yes please", "count": 3, "nested": {"a": [1, 2.5, None]}},
    )
    store.write(type="episodic", title="Local thing", body="Here only.", scope="machine-local")
    store.write(type="semantic", title="Dated", body="Has a date.", extra={"due": date(2026, 5, 1)})
    store.write(type="semantic", title="Ünïcode ✓", body="emoji 😀 and\ttabs")
    return store


@pytest.mark.parametrize("fmt", EXPORT_FORMATS)
def test_export_then_import_into_an_empty_store_gives_identical_notes(
    filled: MemoryStore, tmp_path: Path, fmt: str
) -> None:
    report = export_store(filled, tmp_path / "out", fmt)
    assert report.notes == 5 and report.format == fmt
    read = read_jsonl(report.files[0]) if fmt == "jsonl" else read_markdown_export(tmp_path / "out")
    assert read.skipped == [] and read.notices == []
    with MemoryStore(tmp_path / "empty") as empty:
        plan = plan_import(empty, read.notes)
        assert len(plan.new) == 5 and plan.updated == plan.unchanged == []
        empty.put_many(plan.changed)
        assert snapshot(empty) == snapshot(filled)
        assert empty.superseded_ids() == filled.superseded_ids() != set()
        # Importing the same export again changes nothing.
        assert len(plan_import(empty, read.notes).unchanged) == 5


def test_jsonl_is_one_object_per_note_with_every_field(filled: MemoryStore, tmp_path: Path) -> None:
    path = export_store(filled, tmp_path / "out", "jsonl").files[0]
    assert path == (tmp_path / "out" / "notes.jsonl").resolve()
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(records) == 5
    deploy = next(r for r in records if r["title"] == "Deploy")
    assert set(deploy) == {*Memory.FIELDS}  # every field of the note, extra included
    assert deploy["extra"]["nested"] == {"a": [1, 2.5, None]}
    assert deploy["supersedes"] and deploy["confidence"] == 0.5
    dated = next(r for r in records if r["title"] == "Dated")
    assert "extra" not in dated and "due: 2026-05-01" in dated["extra_yaml"]  # kept a date


def test_a_jsonl_export_written_a_few_notes_at_a_time_is_the_same_file(
    filled: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = export_store(filled, tmp_path / "whole", "jsonl").files[0].read_bytes()
    monkeypatch.setattr(interchange, "_LINES_A_WRITE", 2)
    report = export_store(filled, tmp_path / "paged", "jsonl")
    assert report.notes == 5
    assert report.files[0].read_bytes() == whole


def test_an_export_that_fails_part_way_leaves_no_file_behind(
    filled: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(interchange, "_LINES_A_WRITE", 2)
    written: list[str] = []

    def failing_line(note: Memory) -> str:
        if len(written) == 3:  # the second write has begun; the first is in the temp file
            raise OSError(28, "No space left on device")
        written.append(note.id)
        return json.dumps({"id": note.id})

    monkeypatch.setattr(interchange, "jsonl_line", failing_line)
    out = tmp_path / "out"
    with pytest.raises(InterchangeError, match="No space left"):
        export_store(filled, out, "jsonl")
    assert list(out.iterdir()) == []  # neither notes.jsonl nor its temp file


def test_markdown_export_holds_the_note_files_as_the_store_wrote_them(
    filled: MemoryStore, tmp_path: Path
) -> None:
    report = export_store(filled, tmp_path / "out", "markdown")
    out = tmp_path / "out"
    assert len(report.files) == 5
    for note in filled.list():
        tree = "local" if note.scope == "machine-local" else "memory"
        exported = out / tree / note.type / f"{note.id}.md"
        assert exported.read_bytes() == filled.file_of(note.id).read_bytes()
        assert parse_note(exported.read_text(), scope=note.scope) == filled.get(note.id)
    assert not (out / "memory" / "episodic").exists()  # the machine-local note is not there


def test_an_export_refuses_a_folder_that_is_not_empty_unless_forced(
    filled: MemoryStore, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(InterchangeError, match="is not empty"):
        export_store(filled, out, "jsonl")
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"]
    export_store(filled, out, "jsonl", force=True)
    export_store(filled, out, "markdown", force=True)
    assert (out / "mine.txt").read_text() == "keep me"
    assert len(read_jsonl(out / "notes.jsonl").notes) == 5


def test_an_export_never_writes_outside_its_folder(filled: MemoryStore, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    (out / "memory").symlink_to(elsewhere)
    with pytest.raises(InterchangeError, match="symbolic link"):
        export_store(filled, out, "markdown", force=True)
    (out / "notes.jsonl").symlink_to(elsewhere / "target")
    with pytest.raises(InterchangeError, match="symbolic link"):
        export_store(filled, out, "jsonl", force=True)
    assert list(elsewhere.iterdir()) == []
    for inside in (filled.root, filled.memory_dir / "export"):
        with pytest.raises(InterchangeError, match="inside the store"):
            export_store(filled, inside, "markdown", force=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InterchangeError, match="not a folder"):
        export_store(filled, tmp_path / "file", "jsonl")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.jsonl").mkdir()
    with pytest.raises(InterchangeError, match="cannot write"):
        export_store(filled, tmp_path / "taken", "jsonl", force=True)
    (tmp_path / "taken" / "memory").write_text("a file where a folder goes")
    with pytest.raises(InterchangeError, match="in the way"):
        export_store(filled, tmp_path / "taken", "markdown", force=True)
    with pytest.raises(InterchangeError, match="unknown export format"):
        export_store(filled, tmp_path / "new", "csv")


def test_an_empty_store_exports_an_empty_file(store: MemoryStore, tmp_path: Path) -> None:
    report = export_store(store, tmp_path / "out", "jsonl")
    assert report.notes == 0 and report.files[0].read_text() == ""


def good(**changes: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"id": new_id(), "type": "semantic", "title": "T", "body": "B"}
    record.update(changes)
    return record


def test_bad_jsonl_lines_are_skipped_with_their_reason(tmp_path: Path) -> None:
    first = good(title="first")
    lines = [
        json.dumps(first),
        "{not json",
        "[1, 2]",
        json.dumps({"id": new_id(), "type": "semantic"}),
        json.dumps(good(type="diary")),
        json.dumps(good(id="not-an-id")),
        json.dumps(good(tags="a,b")),
        json.dumps(good(confidence=7)),
        json.dumps(good(id=first["id"], title="again")),
        "",
        json.dumps(good(title="last", colour="blue")),
    ]
    path = tmp_path / "notes.jsonl"
    path.write_text("\n".join(lines) + "\n")
    read = read_jsonl(path)
    assert [note.title for note in read.notes] == ["first", "last"]
    reasons = dict(read.skipped)
    assert sorted(reasons) == [f"line {n}" for n in (2, 3, 4, 5, 6, 7, 8, 9)]
    assert "expected a JSON object" in reasons["line 3"]
    assert "missing field(s): title, body" in reasons["line 4"]
    assert "diary" in reasons["line 5"] and "not a ULID" in reasons["line 6"]
    assert "tags" in reasons["line 7"] and "confidence" in reasons["line 8"]
    assert "already on line 1" in reasons["line 9"]
    assert read.notices == [("line 11", "ignored unknown field(s): colour")]


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_a_jsonl_line_nested_too_deep_is_skipped_and_the_rest_read(
    tmp_path: Path, depth: int
) -> None:
    # json's parser recurses once a level: such a line used to end the whole import in a
    # RecursionError. A note nests a few levels; past 64 the line is refused unparsed.
    deep_extra = dict(good(title="deep"), extra={"k": json.loads("[" * 60 + "]" * 60)})
    lines = [
        json.dumps(good(title="first")),
        '{"id": ' + "[" * depth + "]" * depth + "}",
        json.dumps(dict(good(title="in a string"), body="[" * depth)),
        json.dumps(deep_extra),
    ]
    path = tmp_path / "notes.jsonl"
    path.write_text("\n".join(lines) + "\n")
    read = read_jsonl(path)
    assert [note.title for note in read.notes] == ["first", "in a string"]
    reasons = dict(read.skipped)
    assert sorted(reasons) == ["line 2", "line 4"]
    assert f"JSON nested {depth + 1} levels deep" in reasons["line 2"]
    assert "extra" in reasons["line 4"]  # the store's own nesting rule, not the parser's


def test_load_json_counts_nesting_outside_strings_only() -> None:
    assert load_json('{"a": [1, {"b": "[[[[{{{{"}]}') == {"a": [1, {"b": "[[[[{{{{"}]}
    assert load_json("[" * 64 + "]" * 64) is not None
    with pytest.raises(JsonTooDeep, match="nested 65 levels deep"):
        load_json("[" * 65 + "]" * 65)
    with pytest.raises(ValueError):
        load_json('{"a": ')


def test_a_jsonl_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InterchangeError, match="cannot read"):
        read_jsonl(tmp_path / "missing.jsonl")
    (tmp_path / "latin.jsonl").write_bytes(b'{"title": "caf\xe9"}\n')
    with pytest.raises(InterchangeError, match="not UTF-8"):
        read_jsonl(tmp_path / "latin.jsonl")


def test_reading_a_markdown_export_skips_links_and_broken_files(
    filled: MemoryStore, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export_store(filled, out, "markdown")
    outside = tmp_path / "outside.md"
    outside.write_text(next(out.rglob("*.md")).read_text().replace("Uses vim.", "Leaked."))
    (out / "memory" / "semantic" / f"{new_id()}.md").symlink_to(outside)
    (out / "memory" / "semantic" / "broken.md").write_text("no frontmatter")
    (out / "local" / "procedural").symlink_to(out / "memory" / "procedural")
    read = read_markdown_export(out)
    assert len(read.notes) == 5 and all(n.body != "Leaked." for n in read.notes)
    reasons = " ".join(reason for _where, reason in read.skipped)
    assert len(read.skipped) == 3
    assert "symbolic link" in reasons and "frontmatter" in reasons
    with pytest.raises(InterchangeError, match="not a folder"):
        read_markdown_export(tmp_path / "nope")


def test_plan_import_tells_new_updated_and_unchanged(store: MemoryStore) -> None:
    kept = store.write(type="semantic", title="kept", body="same")
    changed = store.write(type="semantic", title="changed", body="before")
    fresh = Memory(id=new_id(), type="semantic", title="new", body="n")
    plan = plan_import(
        store, [kept.replace(machine_id="other"), changed.replace(body="after"), fresh],
        ignore=["machine_id"],
    )  # fmt: skip
    assert [n.id for n in plan.new] == [fresh.id]
    assert [n.id for n in plan.updated] == [changed.id]
    assert [n.id for n in plan.unchanged] == [kept.id]
    assert plan.status(changed.id) == "updated" and plan.status(new_id()) == ""
    strict = plan_import(store, [kept.replace(machine_id="other")])
    assert [n.id for n in strict.updated] == [kept.id]
    assert store.get(changed.id).body == "before"  # planning writes nothing
