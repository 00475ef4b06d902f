"""Every other screen the CLI draws fits an 80-column terminal by the same rule as `list`:
ids whole, titles and project keys cut with an ellipsis or wrapped under their label, the
tables of `merge`, `reflect`, `compact`, `dedup`, `status`, `import` and `eval` one line a
row; doctor's commands each whole on one line, so they can be copied; `show`'s header
within the width, its path whole. Through a real `anamnesis` process on a
pseudo-terminal; piped output stays whole."""

from __future__ import annotations

import json
import re
from pathlib import Path

from anamnesis_testsupport.fake_llm import FakeLLMServer

from anamnesis.store import MemoryStore
from cli_testing import Env, edited_on_both, write
from tty_testing import ULID, Screen, cells, on_terminal

LONG_PROJECT = "github.com/someone/a-very-long-project-name-for-the-tables"
LONG_TITLE = "How the deploy runs the migrations first and then restarts every worker in turn"


def assert_fits(screen: Screen, ids: list[str], width: int = 80) -> None:
    """No line wider than the terminal but a path longer than it (alone on its line, from
    column 0: the temporary folders are long), and every id in ``ids`` whole."""
    assert screen.code == 0, screen.err
    for line in screen.lines:
        assert cells(line) <= width or re.fullmatch(r"/\S+", line), (cells(line), line)
    assert set(ids) <= set(ULID.findall(screen.text)), screen.text


def test_merge_dry_run_lists_each_group_within_80_columns(env: Env, llm: FakeLLMServer) -> None:
    body = "run the migrations before deploying the api, then restart the workers"
    with MemoryStore(env.home) as store:
        notes = [
            store.write(type="procedural", title=f"{LONG_TITLE} ({n})", body=body + " x" * n,
                        project=LONG_PROJECT)
            for n in range(3)
        ]  # fmt: skip
    data = env.run("merge", "--project", LONG_PROJECT, "--json").json()
    assert len(data["candidates"]) == 1 and llm.received == []
    screen = on_terminal(env, "merge", "--project", LONG_PROJECT)
    assert_fits(screen, [note.id for note in notes])
    rows = [line for line in screen.lines if ULID.search(line)]
    assert len(rows) == 3 and all(line.endswith("…") for line in rows)  # titles cut, one a row
    group = screen.text[screen.text.index("group 1:") :]
    assert LONG_PROJECT in group  # the project whole, wrapped under its label
    piped = env.run("merge", "--project", LONG_PROJECT).out
    assert all(f"{note.id}  {note.title}" in piped for note in notes)  # piped: whole


def test_reflect_dry_run_fits_with_the_episodes_it_would_send(env: Env, llm: FakeLLMServer) -> None:
    with MemoryStore(env.home) as store:
        episodes = [
            store.write(type="episodic", title=f"{LONG_TITLE} {n}", body="deploy",
                        project=LONG_PROJECT, tags=["session"]).id
            for n in range(5)
        ]  # fmt: skip
    screen = on_terminal(env, "reflect", "--project", LONG_PROJECT)
    assert_fits(screen, episodes)
    assert "…" in screen.text and llm.received == []


def chronicle(folder: Path) -> Path:
    """An OpenChronicle folder whose file names and project keys are long."""
    folder.mkdir(parents=True)
    for n in range(2):
        (folder / f"project-someone-a-very-long-project-name-for-the-import-{n}.md").write_text(
            f"## [2026-04-22T11:00:00Z] {{id: 20260422-1100-bbbbb{n}}}\nThe API uses Postgres.\n"
        )
    (folder / "event-2026-04-22.md").write_text(
        "## [2026-04-22T10:00:00+00:00] {id: 20260422-1000-aaaaaa} #session\nDebugged it.\n"
    )
    return folder


def test_import_fits_80_columns_dry_run_and_apply(env: Env, tmp_path: Path) -> None:
    source = chronicle(tmp_path / "oc")
    dry = on_terminal(env, "import", "openchronicle", str(source))
    assert_fits(dry, [])
    assert len([line for line in dry.lines if line.startswith("project-someone")]) == 2
    assert "…" in dry.text
    applied = on_terminal(env, "import", "openchronicle", str(source), "--apply")
    assert_fits(applied, [])
    assert "imported: 3 new" in applied.text
    piped = env.run("import", "openchronicle", str(source)).out
    assert "project-someone-a-very-long-project-name-for-the-import-0.md" in piped


def test_dedup_status_and_compact_tables_keep_ids_whole(env: Env) -> None:
    body = "run make bootstrap first, then make test " + "and check the output again " * 40
    keep = write(env, LONG_TITLE, body, "--project", LONG_PROJECT)
    copies = [write(env, f"{LONG_TITLE} copy {n}", body, "--project", LONG_PROJECT)
              for n in range(2)]  # fmt: skip
    dedup = on_terminal(env, "dedup")
    assert_fits(dedup, [keep, sorted(copies)[0]])
    row = next(line for line in dedup.lines if keep in line)
    assert "+1" in row  # the second copy is counted; --json and piped output list it
    assert all(copy in env.run("dedup").out for copy in copies)
    status = on_terminal(env, "status")
    assert_fits(status, [])
    assert any(line.startswith("│ github.com/someone/") for line in status.lines)  # boxed
    compact = on_terminal(env, "compact", "--min-tokens", "100", "--project", LONG_PROJECT)
    assert_fits(compact, [keep, *copies])


def test_eval_tables_fit(env: Env, tmp_path: Path) -> None:
    note = write(env, "Postgres pool size", "the api keeps 20 connections per worker")
    cases = tmp_path / "cases.jsonl"
    kind = "a-kind-of-question-with-a-rather-long-name-to-cut-in-the-table"
    case = {"qid": "q1", "query": "connections per worker", "relevant": [note], "kind": kind}
    cases.write_text(json.dumps(case) + "\n")
    screen = on_terminal(env, "eval", "run", "--cases", str(cases), "--mode", "keyword")
    assert_fits(screen, [])
    assert "by kind" in screen.text and "1.000" in screen.text


def test_every_command_doctor_prints_is_whole_on_one_line(tmp_path: Path) -> None:
    """A realistic store: a remote, no `claude` on PATH, a config others can read, no
    model, and a sync conflict."""
    _laptop, desktop, _note_id = edited_on_both(tmp_path)
    assert desktop.run("sync").code == 1  # the conflict, left unresolved
    (desktop.home / "config.json").chmod(0o644)
    checks = desktop.run("doctor", "--offline", "--json").json()["checks"]
    said = " ".join(f"{check['detail']} {check['fix']}" for check in checks)
    commands = re.findall(r"`([^`]+)`", said)
    by_name = {check["name"]: check for check in checks}
    assert by_name["sync"]["status"] == "fail"  # the conflict, with its command
    assert "`claude mcp add " in by_name["mcp"]["fix"]
    assert "`chmod 600 " in by_name["config"]["fix"]
    screen = on_terminal(desktop, "doctor", "--offline")
    for command in commands:
        assert any(command in line for line in screen.lines), (command, screen.text)
    long = [command for command in commands if len(command) > 80 - 21]
    assert long and all(command in screen.lines for command in long)  # alone, from column 0
    for line in screen.lines:
        assert cells(line) <= 80 or line in commands or len(line.split()) == 1, line


def test_show_header_fits_with_the_id_and_path_whole(env: Env) -> None:
    title = " ".join([LONG_TITLE, LONG_TITLE])
    tags = [f"tag-number-{n}" for n in range(12)]
    note_id = write(env, title, "body", "--project", LONG_PROJECT + "-and-more-of-it",
                    *(word for tag in tags for word in ("--tag", tag)))  # fmt: skip
    path = env.run("show", note_id, "--json").json()["path"]
    screen = on_terminal(env, "show", note_id)
    assert screen.code == 0, screen.err
    header = screen.lines[: screen.lines.index("")]
    assert f"id:       {note_id}" in header and path in header  # the path whole, on one line
    for line in header:
        assert cells(line) <= 80 or line == path, line
    text = " ".join(" ".join(header).split())
    assert title in text and LONG_PROJECT + "-and-more-of-it" in text  # wrapped, not cut
    assert ", ".join(tags) in text
    assert header[0].startswith("# ") and header[1].startswith("  ")  # under the title
    piped = env.run("show", note_id).out.splitlines()
    assert piped[0] == f"# {title}" and f"file:     {path}" in piped


def test_a_chain_title_in_show_is_cut_and_its_id_kept(env: Env) -> None:
    old = write(env, LONG_TITLE + " and then some more words", "8080")
    new = write(env, "Port", "9090", "--supersedes", old)
    screen = on_terminal(env, "show", new)
    assert screen.code == 0, screen.err
    row = next(line for line in screen.lines if line.startswith("replaces:"))
    assert old in row and row.endswith("…") and cells(row) == 80
