"""`anamnesis import openchronicle|jsonl|markdown` and `anamnesis export`, end to end on
real stores; the bare `anamnesis import` stays Claude Code's own memory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anamnesis.store import MemoryStore, derived_id
from cli_testing import Env

PROFILE = """---
description: Identity and background of the user
tags: [identity]
created: 2026-04-20T14:02:11+08:00
---
# User Profile

## [2026-04-20T16:30:05] {id: 20260420-1630-3f0e99} #work
~~User works at Old Corp as a principal engineer.~~ #superseded-by:20260421-0915-c4f1a5

## [2026-04-21T09:15:00] {id: 20260421-0915-c4f1a5} #work
User joined Acme Corp as a senior engineer.
"""


def chronicle(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "user-profile.md").write_text(PROFILE)
    (folder / "event-2026-04-22.md").write_text(
        "---\ndescription: Activity on 2026-04-22\n---\n"
        "## [2026-04-22T10:00:00+00:00] {id: 20260422-1000-aaaaaa} #session\n"
        "Debugged the flaky upload test with the user.\n"
    )
    (folder / "project-api.md").write_text(
        "## [2026-04-22T11:00:00Z] {id: 20260422-1100-bbbbbb}\nThe API uses Postgres 16.\n"
    )
    return folder


def snapshot(root: Path) -> list[dict[str, Any]]:
    with MemoryStore(root) as store:
        notes = store.list()
    return sorted(({**n.to_dict(), "extra": n.extra} for n in notes), key=lambda d: d["id"])


def by_file(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {f["file"]: f for f in data["files"]}


def test_a_bare_import_is_still_claude_codes_memory_and_so_is_import_claude(env: Env) -> None:
    memory = env.claude / "projects" / "-work-api" / "memory"
    memory.mkdir(parents=True)
    (memory / "testing.md").write_text("---\ntype: feedback\n---\nRun pytest -x first.\n")
    named = env.run("import", "claude", "--json")
    assert named.code == 0, named.err
    assert named.json()["created"] == 1
    bare = env.run("import", "--json")
    assert bare.json()["unchanged"] == 1 and bare.json()["created"] == 0
    assert env.run("import").out.startswith("from ")
    help_text = env.run("import", "--help").out
    assert all(source in help_text for source in ("claude", "openchronicle", "jsonl", "markdown"))


def test_openchronicle_is_a_dry_run_until_apply_and_a_reimport_adds_nothing(
    bare: Env, tmp_path: Path
) -> None:
    source = chronicle(tmp_path / "oc")
    dry = bare.run("import", "openchronicle", str(source), "--json")
    assert dry.code == 0, dry.err
    data = dry.json()
    assert (data["applied"], data["new"], data["updated"], data["unchanged"]) == (False, 4, 0, 0)
    files = by_file(data)
    assert files["user-profile.md"]["entries"] == 2
    assert (files["event-2026-04-22.md"]["type"], files["project-api.md"]["project"]) == (
        "episodic",
        "api",
    )
    assert not bare.home.exists()  # a dry run created no store

    applied = bare.run("import", "openchronicle", str(source), "--apply")
    assert applied.code == 0, applied.err
    assert "imported: 4 new, 0 updated, 0 unchanged, 0 entries skipped" in applied.out
    notes = {n["title"]: n for n in snapshot(bare.home)}
    assert len(notes) == 4 and all(n["prov_source"] == "import" for n in notes.values())
    assert all(n["machine_id"] == "laptop" for n in notes.values())
    base = "Identity and background of the user"
    new = notes[f"{base}: User joined Acme Corp as a senior engineer."]
    old = notes[f"{base}: User works at Old Corp as a principal engineer."]
    assert new["supersedes"] == [old["id"]] and new["created_at"] == "2026-04-21T01:15:00+00:00"
    hits = bare.run("search", "Corp engineer", "--json").json()
    assert [hit["id"] for hit in hits] == [new["id"]]  # the superseded entry is hidden

    again = bare.run("import", "openchronicle", str(source), "--apply", "--json").json()
    assert (again["new"], again["updated"], again["unchanged"]) == (0, 0, 4)
    (source / "project-api.md").write_text(
        "## [2026-04-22T11:00:00Z] {id: 20260422-1100-bbbbbb}\nThe API uses Postgres 17.\n"
    )
    before = snapshot(bare.home)
    preview = bare.run("import", "openchronicle", str(source), "--json").json()
    assert (preview["new"], preview["updated"], preview["unchanged"]) == (0, 1, 3)
    assert snapshot(bare.home) == before  # a dry run on an existing store writes nothing
    edited = bare.run("import", "openchronicle", str(source), "--apply", "--json").json()
    assert (edited["new"], edited["updated"], edited["unchanged"]) == (0, 1, 3)
    assert len(snapshot(bare.home)) == 4
    assert "The API uses Postgres 17." in [n["body"] for n in snapshot(bare.home)]


def test_openchronicle_reports_bad_input_per_file_and_imports_the_rest(
    env: Env, tmp_path: Path
) -> None:
    source = chronicle(tmp_path / "oc")
    (source / "topic-latin.md").write_bytes(b"## [2026-04-22] {id: x}\ncaf\xe9\n")
    (source / "recipes.md").write_text(
        "## Ingredients\nflour\n\n"
        "## [2026-04-22T10:00:00Z] {id: r1}\n~~Salt first.~~ #superseded-by:ghost\n"
    )
    (source / "tool-link.md").symlink_to(tmp_path / "oc" / "user-profile.md")
    result = env.run("import", "openchronicle", str(source), "--json")
    assert result.code == 0, result.err
    files = by_file(result.json())
    assert files["topic-latin.md"]["error"].startswith("not UTF-8 text")
    assert "symbolic link" in files["tool-link.md"]["error"]
    recipes = files["recipes.md"]
    assert (recipes["entries"], recipes["new"]) == (2, 1)
    assert recipes["skipped"][0]["where"] == "line 1"
    assert recipes["notices"] == [
        "unknown file prefix: read as semantic notes of project global",
        "entry r1: #superseded-by:ghost names no entry that was read: imported as current",
    ]
    assert result.json()["skipped"] == 1 and result.json()["unread_files"] == 2

    human = env.run("import", "openchronicle", str(source))
    assert human.code == 0 and human.err == ""
    lines = human.out.splitlines()
    assert lines[0] == f"from {source} (dry run: nothing written)"
    assert lines[1].split() == [
        "file", "type", "project", "entries", "new", "updated", "unchanged", "skipped",
    ]  # fmt: skip
    assert "recipes.md: skipped line 1: not an entry heading" in human.out
    assert any(line.startswith("topic-latin.md: not read: not UTF-8") for line in lines)
    assert lines[-1] == (
        "would import: 5 new, 0 updated, 0 unchanged, 1 entry skipped, 2 file(s) not read;"
        " add --apply to write them"
    )


def test_the_project_map_and_a_json_flag_given_to_the_group(env: Env, tmp_path: Path) -> None:
    source = chronicle(tmp_path / "oc")
    mapping = tmp_path / "map.json"
    mapping.write_text('{"user-": "me", "project-api": "github.com/acme/api"}')
    result = env.run(
        "import", "--json", "openchronicle", str(source), "--project-map", str(mapping)
    )
    assert result.code == 0, result.err
    projects = {name: f["project"] for name, f in by_file(result.json()).items()}
    assert projects == {
        "user-profile.md": "me",
        "project-api.md": "github.com/acme/api",
        "event-2026-04-22.md": "global",
    }


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["openchronicle", "{tmp}/missing"], "missing is not a folder"),
        (["openchronicle", "{tmp}", "--project-map", "{tmp}/nope.json"], "cannot read"),
        (["jsonl", "{tmp}/missing.jsonl"], "cannot read"),
        (["markdown", "{tmp}/missing"], "missing is not a folder"),
    ],
)
def test_a_source_that_cannot_be_read_is_one_line(
    env: Env, tmp_path: Path, args: list[str], message: str
) -> None:
    result = env.run("import", *(arg.format(tmp=tmp_path) for arg in args))
    assert result.code == 1
    assert len(result.err_lines) == 1 and message in result.err
    assert result.err.startswith(f"anamnesis import {args[0]}: ")


def fill(root: Path) -> None:
    with MemoryStore(root) as store:
        old = store.write(type="semantic", title="Old", body="Uses vim.", project="p")
        store.write(
            type="procedural",
            title="Deploy",
            body="Run `make deploy`.",
            tags=["ops"],
            supersedes=[old.id],
            prov_source="reflection",
            confidence=0.7,
            machine_id="laptop",
        )
        store.write(type="episodic", title="Here", body="Only here.", scope="machine-local")


@pytest.mark.parametrize(("fmt", "source"), [("jsonl", "out/notes.jsonl"), ("markdown", "out")])
def test_export_then_import_into_an_empty_store_gives_the_same_notes(
    env: Env, tmp_path: Path, fmt: str, source: str
) -> None:
    fill(env.home)
    exported = env.run("export", "--format", fmt, str(tmp_path / "out"), "--json")
    assert exported.code == 0, exported.err
    assert exported.json()["notes"] == 3
    other = Env.make(tmp_path, "desk")
    dry = other.run("import", fmt, str(tmp_path / source), "--json")
    assert dry.code == 0, dry.err
    assert (dry.json()["new"], dry.json()["skipped"]) == (3, [])
    applied = other.run("import", fmt, str(tmp_path / source), "--apply")
    assert applied.code == 0, applied.err
    assert applied.out.endswith("imported: 3 new, 0 updated, 0 unchanged, 0 skipped\n")
    assert snapshot(other.home) == snapshot(env.home)
    again = other.run("import", fmt, str(tmp_path / source), "--json").json()
    assert (again["new"], again["updated"], again["unchanged"]) == (0, 0, 3)


def test_export_refuses_a_folder_that_is_not_empty_unless_forced(env: Env, tmp_path: Path) -> None:
    fill(env.home)
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    refused = env.run("export", str(out))
    assert refused.code == 1 and "is not empty" in refused.err and "--force" in refused.err
    forced = env.run("export", "--format", "markdown", str(out), "--force")
    assert forced.code == 0, forced.err
    assert forced.out.splitlines() == [
        f"exported 3 note(s) to {out}",
        f"to read it back, here or on another machine: `anamnesis import markdown {out}`",
    ]
    assert (out / "keep.txt").read_text() == "mine"
    assert len(list(out.rglob("*.md"))) == 3
    bad = env.run("export", "--format", "csv", str(tmp_path / "x"))
    assert bad.code == 2 and "--format must be one of jsonl, markdown" in bad.err
    inside = env.run("export", str(env.home / "backup"))
    assert inside.code == 1 and "inside the store" in inside.err
    assert not (env.home / "backup").exists()


def _record(key: str, **fields: Any) -> str:
    note = {"id": derived_id(key), "type": "semantic", "title": key, "body": f"{key}.", **fields}
    return json.dumps(note)


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"body": "x" * 5_000_000}, "body: is 5,000,000 bytes, over the limit of 1,000,000"),
        ({"body": "x" * 50_000_000}, "body: is 50,000,000 bytes, over the limit of 1,000,000"),
        ({"title": "t" * 1_000_000}, "title: is 1,000,000 characters, over the limit of 500"),
    ],
    ids=["5 MB body", "50 MB body", "1,000,000-character title"],
)
def test_import_jsonl_skips_a_note_over_a_limit_by_line_and_imports_the_rest(
    env: Env, tmp_path: Path, fields: dict[str, Any], reason: str
) -> None:
    # A record the store would have taken and a reindex then dropped (or a title no other
    # way of writing a note accepts) is skipped as any bad line is: named, the rest kept.
    source = tmp_path / "notes.jsonl"
    lines = [_record("before"), _record("huge", **fields), _record("after")]
    source.write_text("\n".join(lines) + "\n")
    result = env.run("import", "jsonl", str(source), "--apply", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert (data["new"], data["updated"]) == (2, 0)
    (skipped,) = data["skipped"]
    assert skipped["where"] == "line 2" and skipped["reason"].startswith(reason), skipped
    assert len(result.out) < 2_000  # the message names the size, never the text
    reindexed = env.run("reindex", "--json")
    assert reindexed.code == 0, reindexed.err
    with MemoryStore(env.home) as store:
        assert sorted(note.title for note in store.list()) == ["after", "before"]
        assert not store.problems()
    assert all(path.stat().st_size < 10_000 for path in env.home.rglob("*.md"))


def test_import_markdown_skips_a_note_over_a_limit_by_file(env: Env, tmp_path: Path) -> None:
    fill(env.home)
    exported = env.run("export", "--format", "markdown", str(tmp_path / "out"))
    assert exported.code == 0, exported.err
    (first, *_rest) = sorted((tmp_path / "out").rglob("*.md"))
    text = first.read_text()
    title = next(line for line in text.splitlines() if line.startswith("title: "))
    first.write_text(text.replace(title, "title: " + "t" * 600, 1))
    other = Env.make(tmp_path, "desk")
    result = other.run("import", "markdown", str(tmp_path / "out"), "--apply", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert data["new"] == 2
    assert data["skipped"] == [
        {"where": str(first), "reason": "title: is 600 characters, over the limit of 500"}
    ]
