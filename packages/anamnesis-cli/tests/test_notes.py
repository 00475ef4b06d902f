"""write, search, list, show, delete: through the real console script, happy and error paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.cli.app import main
from anamnesis.store import Memory, MemoryStore, new_id
from cli_testing import Env, write


def test_write_then_search_list_show(env: Env) -> None:
    first = write(env, "Use WAL mode", "Set busy_timeout on every connection", "-t", "procedural",
                  "--project", "acme", "--tag", "sqlite")  # fmt: skip
    second = env.run("write", "--title", "Deploy day", "-", stdin="We deploy on Tuesdays.\n")
    assert second.code == 0, second.err
    assert second.out.startswith("wrote ")

    found = env.run("search", "busy_timeout", "--json")
    assert found.code == 0
    assert found.err_lines == ["anamnesis: keyword search: 1 result"]  # the mode that ran
    hits = found.json()
    assert [h["id"] for h in hits] == [first]
    assert hits[0]["machine_id"] == "laptop"  # from ANAMNESIS_MACHINE_ID
    assert hits[0]["body"] == "Set busy_timeout on every connection"
    assert hits[0]["mode"] == "keyword" and hits[0]["score"] > 0

    table = env.run("search", "busy_timeout")
    assert table.code == 0
    header, row = table.out.splitlines()
    assert header.split() == ["id", "score", "type", "project", "updated", "title"]
    assert row.startswith(first) and "Use WAL mode" in row and "acme" in row
    assert row.split()[1] == "1.00" and hits[0]["relative_score"] == 1.0  # the best hit

    listed = env.run("list", "--json").json()
    assert {n["title"] for n in listed} == {"Use WAL mode", "Deploy day"}
    assert all("body" not in n for n in listed)
    assert [n["title"] for n in env.run("list", "--project", "acme", "--json").json()] == [
        "Use WAL mode"
    ]
    assert [n["title"] for n in env.run("list", "--tag", "sqlite", "--json").json()] == [
        "Use WAL mode"
    ]

    shown = env.run("show", first)
    assert shown.code == 0
    assert shown.out.startswith("# Use WAL mode\n")
    assert "Set busy_timeout on every connection" in shown.out
    as_json = env.run("show", first, "--json").json()
    assert as_json["tags"] == ["sqlite"] and as_json["superseded_by"] == []
    raw = env.run("show", first, "--raw").out
    assert raw == Path(as_json["path"]).read_text()
    assert raw.startswith("---\nid: " + first)


def test_show_says_which_agent_wrote_a_note_and_list_and_search_filter_by_it(
    env: Env,
) -> None:
    mine = write(env, "Deploy by hand", "deploy notes")
    with MemoryStore(env.home) as store:
        codex = store.write(type="episodic", title="Deploy session", body="deploy notes",
                            prov_source="session-end", prov_agent="codex",
                            machine_id="laptop").id  # fmt: skip
    shown = env.run("show", codex)
    assert shown.code == 0, shown.err
    assert "machine:  laptop    source: session-end    agent: codex\n" in shown.out
    assert env.run("show", codex, "--json").json()["prov_agent"] == "codex"
    # A person's own note (written with `anamnesis write`) records no agent, and says none.
    assert env.run("show", mine, "--json").json()["prov_agent"] == ""
    assert "agent:" not in env.run("show", mine).out
    for command in (["list"], ["search", "deploy"]):
        by_codex = env.run(*command, "--agent", "codex", "--json").json()
        assert [note["id"] for note in by_codex] == [codex], command
        assert env.run(*command, "--agent", "Codex", "--json").json() == by_codex  # plainly
        assert env.run(*command, "--agent", "gemini", "--json").json() == []
        refused = env.run(*command, "--agent", "codex cli")
        assert refused.code == 2 and "--agent must be an agent's name" in refused.err


def test_search_filters_and_limits(env: Env) -> None:
    for index in range(5):
        write(env, f"deploy step {index}", "deploy notes", "--project", "a" if index % 2 else "b")
    assert len(env.run("search", "deploy", "-k", "3", "--json").json()) == 3
    hits = env.run("search", "deploy", "--project", "a", "--json").json()
    assert {h["project"] for h in hits} == {"a"} and len(hits) == 2
    assert env.run("search", "deploy", "--type", "episodic", "--json").json() == []
    none = env.run("search", "zebra")
    assert none.code == 0 and "no notes match" in none.out
    listed = env.run("list", "--limit", "2")
    assert "... 3 more (--limit 0 shows all)" in listed.out


def test_list_here_uses_the_project_of_the_directory(env: Env, tmp_path: Path) -> None:
    checkout = tmp_path / "api"
    (checkout / ".git").mkdir(parents=True)
    (checkout / ".git" / "config").write_text(
        '[remote "origin"]\n\turl = git@github.com:acme/api.git\n'
    )
    write(env, "api note", "body", "--project", "github.com/acme/api")
    write(env, "other note", "body", "--project", "other")
    here = env.run("list", "--here", "--json", cwd=checkout).json()
    assert [n["title"] for n in here] == ["api note"]
    written = env.run("write", "--title", "from here", "--here", "x", "--json", cwd=checkout)
    assert written.json()["project"] == "github.com/acme/api"
    assert env.run("project", cwd=checkout).out.strip() == "github.com/acme/api"


def test_secrets_are_masked_on_write(env: Env) -> None:
    secret = "ghp_" + "A1b2C3d4E5" * 4
    result = env.run("write", "--title", "CI token", f"the token is {secret}", "--json")
    assert result.code == 0
    assert secret not in result.out
    assert result.json()["redacted"] == 1
    assert "masked 1 secret" in result.err
    assert secret not in Path(result.json()["path"]).read_text()


def test_supersedes_hides_the_old_note_from_search(env: Env) -> None:
    old = write(env, "API port", "The API listens on 8080")
    new = write(env, "API port", "The API listens on 9090", "--supersedes", old)
    assert [h["id"] for h in env.run("search", "API listens", "--json").json()] == [new]
    assert env.run("show", old, "--json").json()["superseded_by"] == [new]
    typo = env.run("write", "--title", "x", "body", "--supersedes", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert typo.code == 1 and "no note with id" in typo.err


def test_delete_asks_for_confirmation_when_not_told(env: Env) -> None:
    note = write(env, "temporary", "to be deleted")
    refused = env.run("delete", note)
    assert refused.code == 2 and "--yes" in refused.err
    assert env.run("show", note).code == 0
    done = env.run("delete", note, "--yes")
    assert done.code == 0 and "deleted" in done.out
    gone = env.run("show", note)
    assert gone.code == 1 and "no note with id" in gone.err


@pytest.mark.parametrize(
    ("args", "stdin", "code", "message"),
    [
        (["write", "body text"], None, 2, "--title is required"),
        (["write", "--title", "t", "--type", "fact", "b"], None, 2, "--type must be one of"),
        (["write", "--title", "t", "--scope", "team", "b"], None, 2, "--scope must be one of"),
        (["write", "--title", "t", "-"], "   \n", 2, "body is empty"),
        (["search", "x", "-k", "0"], None, 2, "-k must be from 1 to 1000"),
        (["search", "x", "--project", "a", "--here"], None, 2, "contradict"),
        (["search"], None, 2, "Missing argument"),
        (["show", "not-an-id"], None, 1, "not-an-id"),
        (["show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"], None, 1, "no note with id"),
        (["delete", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "--yes"], None, 1, "no note with id"),
        (["list", "--limit", "-1"], None, 2, "--limit"),
        (["list", "--bogus"], None, 2, "No such option"),
        (["frobnicate"], None, 2, "No such command"),
        (["config"], None, 2, "anamnesis config: missing a command: list, get, set or unset"),
        (["config", "bogus"], None, 2, "(see `anamnesis config --help`)"),
        (["config", "get", "colour"], None, 2, "anamnesis config get: unknown setting"),
        (["config", "set", "remote", "a b"], None, 2, "anamnesis config set: not a usable"),
        (["config", "get"], None, 2, "anamnesis config get: Missing argument"),
    ],
)
def test_errors_are_one_line_with_an_exit_status(
    env: Env, args: list[str], stdin: str | None, code: int, message: str
) -> None:
    write(env, "seed", "so the store exists")
    result = env.run(*args, stdin=stdin)
    assert result.code == code, (result.out, result.err)
    assert len(result.err_lines) == 1, result.err
    assert message in result.err
    assert "Traceback" not in result.err and "Usage:" not in result.err


def test_reading_commands_before_init_say_how_to_start(bare: Env) -> None:
    before_init = (
        ["search", "x"],
        ["list"],
        ["status"],
        ["show", "01ARZ3NDEKTSV4RRFFQ69G5FAV"],
        ["write", "--title", "t", "a note before any store"],  # never a store without hooks
    )
    for args in before_init:
        result = bare.run(*args)
        assert result.code == 1
        assert result.err_lines == [
            f"anamnesis {args[0]}: no memory store at {bare.home}; run `anamnesis init` first"
        ]
    assert not bare.home.exists()


def test_a_malformed_note_is_reported_not_fatal(env: Env) -> None:
    good = write(env, "good", "fine")
    bad = env.home / "memory" / "semantic" / "01ARZ3NDEKTSV4RRFFQ69G5FAV.md"
    bad.write_text("---\ntitle: [broken\n---\nx\n")
    assert [n["id"] for n in env.run("list", "--json").json()] == [good]
    status = env.run("status", "--json").json()
    assert [p["path"] for p in status["problems"]] == [str(bad)]
    shown = env.run("show", "01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert shown.code == 1 and "not valid YAML" in shown.err


def test_in_process_crash_is_one_line_and_logged(
    env: Env, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    MemoryStore(env.home).close()

    def explode(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(MemoryStore, "search_scored", explode)
    assert main(["search", "anything"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "unexpected error: RuntimeError: kaboom" in err[0]
    log = env.home / "logs" / "cli.log"
    assert str(log) in err[0]
    assert "Traceback" in log.read_text()


def test_list_json_streams_the_same_document_as_one_list(env: Env) -> None:
    # More notes than a page (note_pages.PAGE), ties in updated_at decided by id, text
    # JSON escapes ("quotes", a line break, non-ASCII): the streamed array must be the
    # very text json.dumps gives the whole list.
    with MemoryStore(env.home) as store:
        base = [
            Memory(id=new_id(), type="semantic", title=f'note "{i}"\nline two é', body="body",
                   project=f"p{i % 3}", tags=[f"t{i % 5}"], machine_id="laptop",
                   updated_at=f"2026-01-01T00:00:{i % 7:02d}+00:00")
            for i in range(1010)
        ]  # fmt: skip
        store.put_many(base)
        notes = store.list(include_body=False)
    expected = json.dumps(
        [{**n.to_dict(include_body=False), "expired": False, "due": False} for n in notes],
        indent=2,
        ensure_ascii=False,
        default=str,
    )
    listed = env.run("list", "--limit", "0", "--json")
    assert listed.code == 0, listed.err
    assert listed.out == expected + "\n"
    assert len(json.loads(listed.out)) == 1010
    limited = env.run("list", "--limit", "3", "--project", "p1", "--json")
    assert [n["id"] for n in limited.json()] == [n.id for n in notes if n.project == "p1"][:3]
    assert env.run("list", "--project", "none", "--json").out == "[]\n"
