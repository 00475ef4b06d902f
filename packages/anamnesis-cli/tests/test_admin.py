"""status, reindex, import, migrate, dedup, project, config and doctor."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from cli_testing import Env, bare_remote, write


def test_status_human_and_json(env: Env) -> None:
    write(env, "a", "x", "--project", "p1")
    write(env, "b", "y", "--scope", "machine-local")
    data = env.run("status", "--json").json()
    assert data["total"] == 2
    assert data["by_project"] == {"global": 1, "p1": 1}
    assert data["by_scope"] == {"machine-local": 1, "portable": 1}
    assert data["machine_id"] == "laptop"
    assert data["sync"]["initialized"] is False
    # The tests' environment pins keyword search and points at no model: vectors are off,
    # and status says why (the extra, this Python's sqlite3, or the missing model).
    vectors = data["vectors"]
    assert vectors["available"] is False and vectors["reason"]
    assert vectors["default_mode"] == "keyword"
    human = env.run("status")
    assert human.code == 0
    assert "notes:    2" in human.out and "p1" in human.out
    assert "search:   keyword by default" in human.out
    assert f"vectors:  off: {vectors['reason']}" in human.out


def test_reindex_rebuilds_from_markdown_and_reports_bad_files(env: Env) -> None:
    note = write(env, "indexed", "body words")
    (env.home / "index.db").unlink()
    bad = env.home / "memory" / "semantic" / "01ARZ3NDEKTSV4RRFFQ69G5FAV.md"
    bad.write_text("no frontmatter here")
    result = env.run("reindex", "--json")
    assert result.code == 0
    data = result.json()
    assert data["indexed"] == 1
    assert data["embedded"] is None  # vectors are off here: nothing embedded, no notice
    assert [s["path"] for s in data["skipped"]] == [str(bad)]
    assert [h["id"] for h in env.run("search", "words", "--json").json()] == [note]
    human = env.run("reindex")
    assert "indexed 1 notes" in human.out and str(bad) in human.err


def test_reindex_error_paths(bare: Env) -> None:
    missing = bare.run("reindex")
    assert missing.code == 1
    assert missing.err_lines == [
        f"anamnesis reindex: no memory store at {bare.home}; run `anamnesis init` first"
    ]
    bare.create_store()
    write(bare, "a", "x")
    bad = bare.run("reindex", "--all")
    assert bad.code == 2 and len(bad.err_lines) == 1 and "No such option" in bad.err


def test_import_reads_claude_codes_own_memory_once(env: Env, tmp_path: Path) -> None:
    memory = env.claude / "projects" / "-work-api" / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("- index, skipped")
    (memory / "testing.md").write_text(
        "---\nname: Testing\ndescription: how to test\ntype: feedback\n---\nRun pytest -x first.\n"
    )
    first = env.run("import", "--json")
    assert first.code == 0, first.err
    assert first.json()["created"] == 1
    again = env.run("import", "--json").json()
    assert again["created"] == 0 and again["unchanged"] == 1
    hits = env.run("search", "pytest", "--json").json()
    assert hits[0]["type"] == "procedural" and hits[0]["prov_source"] == "import"


def test_import_reports_unreadable_files_and_imports_the_rest(env: Env) -> None:
    memory = env.claude / "projects" / "-work-api" / "memory"
    memory.mkdir(parents=True)
    (memory / "good.md").write_text("Always run the migrations before the tests.\n")
    (memory / "latin1.md").write_bytes(b"caf\xe9 is not UTF-8")
    (memory / "empty.md").write_text("")
    result = env.run("import", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert data["created"] == 1
    assert sorted(Path(p["path"]).name for p in data["problems"]) == ["empty.md", "latin1.md"]
    human = env.run("import")
    assert human.code == 0 and "0 new" in human.out
    assert len(human.err_lines) == 2
    assert all(line.startswith("anamnesis: could not import ") for line in human.err_lines)
    named = {Path(line.split("could not import ")[1].split(": ")[0]).name
             for line in human.err_lines}  # fmt: skip
    assert named == {"empty.md", "latin1.md"}


def test_import_into_an_unusable_store_is_one_line(bare: Env) -> None:
    bare.home.parent.mkdir(parents=True, exist_ok=True)
    bare.home.write_text("a file where the store folder should be")
    result = bare.run("import")
    assert result.code == 1
    assert len(result.err_lines) == 1 and result.err.startswith("anamnesis import: ")
    assert "Traceback" not in result.err


def test_migrate_is_a_dry_run_until_applied(env: Env, tmp_path: Path) -> None:
    moved = write(env, "old key", "x", "--project", "api")
    write(env, "stays", "y", "--project", "web")
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"api": "github.com/acme/api", "nothing": "else"}))
    dry = env.run("migrate", str(mapping), "--json").json()
    assert dry == {
        "applied": False, "total": 1, "moved": 0,
        "moves": [{"from": "api", "to": "github.com/acme/api", "notes": 1}],
    }  # fmt: skip
    assert env.run("show", moved, "--json").json()["project"] == "api"
    before = env.run("show", moved, "--json").json()["updated_at"]
    applied = env.run("migrate", str(mapping), "--apply")
    assert applied.code == 0 and "moved 1 note" in applied.out
    after = env.run("show", moved, "--json").json()
    assert after["project"] == "github.com/acme/api"
    assert after["updated_at"] == before  # a re-key is not an edit
    mapping.write_text("[1, 2]")
    bad = env.run("migrate", str(mapping))
    assert bad.code == 1 and "JSON object" in bad.err
    missing = env.run("migrate", str(tmp_path / "nope.json"))
    assert missing.code == 1 and "cannot read" in missing.err


def test_dedup_keeps_the_oldest_and_repoints_supersedes(env: Env) -> None:
    keep = write(env, "first", "identical body")
    drop = write(env, "second", "identical body", "--tag", "from-second")
    newer = write(env, "newer", "replaces the second", "--supersedes", drop)
    write(env, "unique", "different body")
    dry = env.run("dedup", "--json").json()
    assert dry["groups"] == [
        {"keep": keep, "title": "first", "project": "global", "type": "semantic",
         "remove": [drop]}
    ]  # fmt: skip
    assert env.run("show", drop).code == 0
    applied = env.run("dedup", "--apply")
    assert applied.code == 0 and "removed 1 duplicate" in applied.out
    assert env.run("show", drop).code == 1
    assert env.run("show", newer, "--json").json()["supersedes"] == [keep]
    assert env.run("show", keep, "--json").json()["tags"] == ["from-second"]  # nothing lost
    assert env.run("dedup").out.strip() == "no duplicate notes"


def test_dedup_never_merges_across_projects_or_types(env: Env) -> None:
    in_a = write(env, "setup", "run make bootstrap first", "--project", "projA")
    in_b = write(env, "setup", "run make bootstrap first", "--project", "projB")
    as_rule = write(env, "setup", "run make bootstrap first", "--project", "projB",
                    "-t", "procedural")  # fmt: skip
    copy_a = write(env, "setup again", "run make bootstrap first", "--project", "projA")
    dry = env.run("dedup")
    assert dry.code == 0
    assert "dry run: 1 duplicate note(s) would be removed" in dry.out
    row = next(line for line in dry.out.splitlines() if in_a in line)
    assert row.split()[:3] == ["projA", in_a, copy_a]
    assert env.run("dedup", "--apply").code == 0
    remaining = {n["id"] for n in env.run("list", "--json").json()}
    assert remaining == {in_a, in_b, as_rule}


def test_dedup_never_moves_machine_local_content_into_a_synced_note(env: Env) -> None:
    synced = write(env, "deploy", "deploy with make release", "--tag", "team")
    local = write(env, "deploy", "deploy with make release", "--scope", "machine-local",
                  "--tag", "host-b7-secret", "--supersedes", synced)  # fmt: skip
    assert env.run("dedup", "--json").json()["groups"] == []
    assert env.run("dedup", "--apply").code == 0
    kept = {n["id"]: n for n in env.run("list", "--json").json()}
    assert set(kept) == {synced, local}
    assert kept[synced]["tags"] == ["team"] and kept[synced]["supersedes"] == []


def test_dedup_keeps_the_copy_still_in_force(env: Env) -> None:
    old = write(env, "port", "the API listens on 8080")
    write(env, "port", "the API listens on 9090", "--supersedes", old)
    again = write(env, "port", "the API listens on 8080")  # newer, and not superseded
    groups = env.run("dedup", "--json").json()["groups"]
    assert [(g["keep"], g["remove"]) for g in groups] == [(again, [old])]


def test_dedup_error_paths(bare: Env) -> None:
    missing = bare.run("dedup")
    assert missing.code == 1
    assert missing.err_lines == [
        f"anamnesis dedup: no memory store at {bare.home}; run `anamnesis init` first"
    ]
    bare.create_store()
    write(bare, "a", "x")
    bad = bare.run("dedup", "--apply", "extra")
    assert bad.code == 2 and len(bad.err_lines) == 1 and "dedup --help" in bad.err


def test_project_prints_the_key(env: Env, tmp_path: Path) -> None:
    work = tmp_path / "work" / "Service"
    work.mkdir(parents=True)
    assert env.run("project", "--cwd", str(work)).out.strip() == "service"
    (work / ".anamnesis").mkdir()
    (work / ".anamnesis" / "project").write_text("acme/service\n")
    data = env.run("project", "--cwd", str(work), "--json").json()
    assert data == {"project": "acme/service", "cwd": str(work.resolve())}
    missing = env.run("project", "--cwd", str(tmp_path / "missing"))
    assert missing.code == 1 and "not a directory" in missing.err


def test_config_list_get_set_unset(env: Env) -> None:
    assert env.run("config", "set", "remote", "https://me:hunter2@example.com/m.git").code == 0
    listed = env.run("config", "list")
    assert "hunter2" not in listed.out and "example.com/m.git" in listed.out
    assert env.run("config", "get", "remote").out.strip() == "https://me:hunter2@example.com/m.git"
    assert env.run("config", "list", "--json").json()["remote"].startswith("https://me:")
    assert env.run("config", "unset", "remote").code == 0
    unset = env.run("config", "get", "remote")
    assert unset.code == 0 and unset.out == "" and "not set: the default applies" in unset.err
    unknown = env.run("config", "set", "colour", "blue")
    assert unknown.code == 2 and "unknown setting colour" in unknown.err
    empty = env.run("config", "set", "machine_id", " ")
    assert empty.code == 2
    assert oct((env.home / "config.json").stat().st_mode & 0o777) == "0o600"


def test_doctor_on_a_healthy_setup(env: Env, tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    env.fake_claude()
    assert env.run("init", "--yes", "--remote", str(remote)).code == 0
    result = env.run("doctor", "--json")
    checks = {c["name"]: c for c in result.json()["checks"]}
    assert checks["store"]["status"] == "ok"
    assert checks["index"]["status"] == "ok"
    assert checks["hooks"]["status"] == "ok"
    assert checks["remote"]["status"] == "ok"
    assert checks["sync"]["status"] == "ok"
    assert checks["mcp"]["status"] == "ok"
    assert checks["config"]["status"] == "ok"
    assert checks["vectors"]["status"] in ("ok", "warn")  # depends on this Python's sqlite3
    assert result.code == 0
    assert result.json()["ok"] is True
    env.run("init", "--uninstall", "--yes")
    after = {c["name"]: c for c in env.run("doctor", "--json").json()["checks"]}
    assert after["mcp"]["status"] == "fail" and "anamnesis init" in after["mcp"]["fix"]
    assert after["hooks"]["status"] == "fail"


def test_doctor_names_each_problem_and_its_fix(bare: Env, tmp_path: Path) -> None:
    missing = bare.run("doctor")
    assert missing.code == 1
    assert "[FAIL] store" in missing.out and "fix: run `anamnesis init`" in missing.out
    assert bare.run("init", "--yes", "--local-only").code == 0
    bare.settings.write_text("{broken")
    assert bare.run("config", "set", "remote", str(tmp_path / "gone.git")).code == 0
    (bare.home / "config.json").chmod(0o644)  # after the set, which writes it 0600 again
    data = {c["name"]: c for c in bare.run("doctor", "--json").json()["checks"]}
    assert data["config"]["status"] == "warn" and "readable by others" in data["config"]["detail"]
    assert data["config"]["fix"] == f"`chmod 600 {bare.home / 'config.json'}`"
    assert data["hooks"]["status"] == "fail" and "not valid JSON" in data["hooks"]["detail"]
    assert data["remote"]["status"] == "fail" and "gone.git" in data["remote"]["detail"]
    offline = {c["name"]: c for c in bare.run("doctor", "--offline", "--json").json()["checks"]}
    assert offline["remote"]["status"] == "ok" and "not contacted" in offline["remote"]["detail"]
    (bare.home / "index.db").write_bytes(b"garbage, not sqlite" * 100)
    rebuilt = {c["name"]: c for c in bare.run("doctor", "--json").json()["checks"]}
    assert rebuilt["index"]["status"] == "warn" and "rebuilt" in rebuilt["index"]["detail"]


def test_a_capture_a_dead_worker_left_is_named_by_doctor_and_filed_by_sync(env: Env) -> None:
    """The capture hook queues a session's note and a background process files it; when
    that process died, doctor says so and `anamnesis sync` files the note."""
    assert env.run("init", "--yes", "--local-only").code == 0
    queue = env.home / "queue" / "captures"
    queue.mkdir(parents=True)
    entry = queue / "00000000000000000001-1-aaaaaa.json"
    entry.write_text(json.dumps({
        "session_id": "s1", "started_at": "2026-03-01T10:00:00+00:00", "source": "session-end",
        "project": "github.com/acme/api", "title": "Fix the importer", "body": "**Ask:** fix it",
        "model": "", "captured_at": "2026-03-01T11:00:00+00:00", "transcript": "/t.jsonl",
        "truncated": False,
    }))  # fmt: skip
    old = time.time() - 3600  # queued an hour ago: no worker is coming for it
    os.utime(entry, (old, old))
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert checks["captures"]["status"] == "warn", checks["captures"]
    assert "1 session capture(s) not filed yet" in checks["captures"]["detail"]
    assert "anamnesis sync" in checks["captures"]["fix"]
    assert env.run("sync").code == 0
    assert not entry.exists()
    (note,) = env.run("list", "--json").json()
    assert (note["title"], note["prov_session"], note["type"]) == (
        "Fix the importer",
        "s1",
        "episodic",
    )
    checks = {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}
    assert checks["captures"]["status"] == "ok"


def test_doctor_on_an_index_even_the_store_cannot_replace(
    env: Env, make_unwritable: Callable[[Path], None]
) -> None:
    write(env, "a", "x")
    (env.home / "index.db").write_bytes(b"garbage, not sqlite" * 100)
    make_unwritable(env.home)  # the store can neither open the index nor move it aside
    result = env.run("doctor", "--offline", "--json")
    assert result.code == 1
    index = {c["name"]: c for c in result.json()["checks"]}["index"]
    assert index["status"] == "fail" and "cannot be moved aside" in index["detail"]
    # A reindex would fail the same way: the fix is the folder, not `anamnesis reindex`.
    assert "reindex" not in index["fix"]
    assert f"make {env.home} and {env.home / 'index.db'} writable" in index["fix"]
