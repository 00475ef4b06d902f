"""Messages that say what is so: an id that matches nothing, a command before `init`, the
MCP entry `init --uninstall` could not check, what a dry run would send, and the one place
that explains a local model folder. Real processes of the console script, no LLM (the
default provider, and dry runs)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from anamnesis_testsupport import vectors_unavailable_reason

from anamnesis.store import MODEL_FOLDER_HINT, MemoryStore
from cli_testing import Env, write

DOCS = Path(__file__).resolve().parents[3] / "docs"
PROJECT = "github.com/acme/api"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        (
            "ZZZZZZZ",
            "no note starts with ZZZZZZZ; `anamnesis list` and `anamnesis search QUERY` show ids",
        ),
        ("01zzzzzz", "no note starts with 01ZZZZZZ;"),
        ("0123", "'0123' is too short: give at least 6 characters of the id"),
        ("01ab-c", "'01ab-c' is not a note id: ids have no '-' (only 0-9 and A-Z without I"),
        ("il0o12", "ids have no 'i', 'l', 'o' (only 0-9"),
        ("01ARZ3NDEKTSV4RRFFQ69G5FAV", "no note with id 01ARZ3NDEKTSV4RRFFQ69G5FAV;"),
    ],
)
def test_show_says_what_is_wrong_with_an_id(env: Env, typed: str, said: str) -> None:
    write(env, "seed", "so the store has a note")
    shown = env.run_process("show", typed)
    assert shown.code == 1 and shown.out == ""
    assert len(shown.err_lines) == 1 and said in shown.err, shown.err
    assert "26 characters" not in shown.err  # a prefix of 6+ is enough, as --help says


def test_write_before_init_creates_nothing_and_says_to_run_init(bare: Env) -> None:
    done = bare.run_process("write", "--title", "early", "a note before any store")
    assert done.code == 1 and done.out == ""
    assert done.err_lines == [
        f"anamnesis write: no memory store at {bare.home}; run `anamnesis init` first"
    ]
    assert not bare.home.exists()
    assert bare.run_process("init", "--yes", "--local-only").code == 0
    assert bare.run_process("write", "--title", "after init", "now it is kept").code == 0


def test_uninstall_without_claude_says_how_to_remove_the_mcp_entry(env: Env) -> None:
    assert env.run_process("init", "--yes", "--local-only").code == 0  # no `claude` on PATH
    line = "claude mcp remove --scope user anamnesis"
    planned = env.run_process("init", "--uninstall", "--print")
    assert planned.code == 0 and line in planned.out
    done = env.run_process("init", "--uninstall", "--yes")
    assert done.code == 0, done.err
    assert "`claude` is not on PATH" in done.out and f"\n  {line}\n" in done.out
    again = env.run_process("init", "--uninstall", "--yes")  # nothing of ours left: still said
    assert line in again.out


def test_merge_dry_run_lists_each_group_note_by_note(env: Env) -> None:
    text = "The dev Postgres listens on port 5433, not 5432, because of docker compose"
    ids = [write(env, "Postgres port in dev", text, "--project", PROJECT) for _ in range(2)]
    other = write(env, "Deploys need the VPN", "Connect the VPN before deploying", "-p", PROJECT)
    done = env.run_process("merge")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0] == "1 candidate group(s) of look-alike notes"
    assert lines[1].startswith(f"  group 1: {PROJECT}, semantic (similarity ")
    assert sorted(lines[2:4]) == sorted(f"    {note_id}  Postgres port in dev" for note_id in ids)
    assert other not in done.out
    assert "dry run" in lines[-1]


def test_reflect_dry_run_lists_the_episodes_it_would_send(env: Env) -> None:
    with MemoryStore(env.home) as store:
        episodes = [
            store.write(type="episodic", title=f"session {n}", body="deploy", project=PROJECT).id
            for n in range(5)
        ]
    done = env.run_process("reflect", "--project", PROJECT)
    assert done.code == 0, done.err
    assert f"{PROJECT}: would send 5 episode(s), oldest first:" in done.out
    for number, episode in enumerate(episodes):
        assert f"\n  {episode}  session {number}\n" in done.out
    assert "nothing sent, nothing written" in done.out


def test_nothing_to_reflect_names_the_threshold_and_what_each_project_has(env: Env) -> None:
    none = env.run_process("reflect", "--all")
    assert none.out == (
        "nothing to reflect: no unreflected episodes (session notes not tagged `reflected`)\n"
    )
    with MemoryStore(env.home) as store:
        for n in range(3):
            store.write(type="episodic", title=f"s{n}", body="b", project=PROJECT)
    short = env.run_process("reflect", "--all")
    assert short.code == 0
    assert short.out == (
        "nothing to reflect: a project needs 5 or more unreflected episodes "
        f"(--min-episodes N changes that): {PROJECT} has 3\n"
    )
    lowered = env.run_process("reflect", "--all", "--min-episodes", "3", "--json").json()
    assert [p["project"] for p in lowered["projects"]] == [PROJECT]
    assert lowered["min_episodes"] == 3 and lowered["waiting"] == []


def test_the_model_folder_is_explained_in_one_place_every_message_points_to() -> None:
    title = re.search(r'"([^"]+)"', MODEL_FOLDER_HINT)
    assert title is not None and "docs/configuration.md" in MODEL_FOLDER_HINT
    configuration = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert f"\n## {title.group(1)}\n" in configuration
    section = configuration.split(f"## {title.group(1)}")[1].split("\n## ")[0]
    for way in (
        "anamnesis config set embed_model_path",
        "--embed-model-path",
        "ANAMNESIS_EMBED_MODEL_PATH",
    ):
        assert way in section, way
    troubleshooting = (DOCS / "troubleshooting.md").read_text(encoding="utf-8")
    assert "configuration.md#a-local-copy-of-the-embedding-model" in troubleshooting


@pytest.mark.skipif(vectors_unavailable_reason() is not None, reason="no vectors extra here")
def test_a_folder_without_a_model_points_to_that_place(env: Env, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    del env.variables["ANAMNESIS_EMBED_MODEL_PATH"]
    (env.home / "config.json").write_text(f'{{"embed_model_path": "{empty}"}}')
    doctor = env.run_process("doctor", "--offline", "--json").json()
    vectors = {check["name"]: check for check in doctor["checks"]}["vectors"]
    assert vectors["status"] == "warn" and MODEL_FOLDER_HINT in vectors["detail"]
    status = env.run_process("status", "--json").json()["vectors"]
    assert MODEL_FOLDER_HINT in status["reason"] + status.get("fix", "")


@pytest.mark.parametrize("fmt", ["jsonl", "markdown"])
def test_export_says_how_to_read_it_back_and_that_reads_it(
    env: Env, tmp_path: Path, fmt: str
) -> None:
    note = write(env, "Port", "the API listens on 9090")
    folder = tmp_path / "my export"  # a space: the suggestion must be quoted to run
    done = env.run_process("export", str(folder), "--format", fmt)
    assert done.code == 0, done.err
    said = done.out.splitlines()[-1]
    assert said == (
        f"to read it back, here or on another machine: `anamnesis import {fmt} '{folder}'`"
    )
    other = Env.make(tmp_path, "desktop")
    assert other.run_process("init", "--yes", "--local-only").code == 0
    command = re.search(r"`anamnesis (.*)`", said)
    assert command is not None
    argv = [*shlex.split(command.group(1)), "--apply"]
    imported = other.run_process(*argv)
    assert imported.code == 0, imported.err
    assert "imported: 1 new" in imported.out
    assert other.run_process("show", note, "--json").json()["title"] == "Port"


def test_import_jsonl_of_a_folder_without_an_export_says_so(env: Env, tmp_path: Path) -> None:
    done = env.run_process("import", "jsonl", str(tmp_path))
    assert done.code == 1
    assert done.err_lines == [
        f"anamnesis import jsonl: {tmp_path} is a folder without notes.jsonl (a JSONL export)"
    ]
