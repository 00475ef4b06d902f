"""stdout is the result and nothing else; notices are one `anamnesis: ...` line each, once;
progress is drawn on stderr only when stderr is a terminal."""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path

import pytest

from anamnesis.cli import notices
from anamnesis.store import IndexRebuiltWarning
from cli_testing import Env

BAD_ID = "01ARZ3NDEKTSV4RRFFQ69G5FAV"


def seed(env: Env, count: int = 2) -> list[str]:
    ids = []
    for index in range(count):
        result = env.run("write", "--title", f"note {index}", f"body words {index}", "--json")
        assert result.code == 0, result.err
        ids.append(result.json()["id"])
    return ids


def bad_note(env: Env) -> Path:
    path = env.home / "memory" / "semantic" / f"{BAD_ID}.md"
    path.write_text("---\ntitle: [broken\n---\nx\n")
    return path


def test_a_damaged_index_is_one_notice_and_the_json_stays_clean(env: Env) -> None:
    seed(env)
    (env.home / "index.db").write_bytes(b"garbage, not sqlite" * 100)
    result = env.run("status", "--json")
    assert result.code == 0, result.err
    assert result.json()["total"] == 2
    assert len(result.err_lines) == 1, result.err
    notice = result.err_lines[0]
    assert notice.startswith(f"anamnesis: the index {env.home / 'index.db'} ")
    assert "rebuilt" in notice
    assert "IndexRebuiltWarning" not in result.err and ".py:" not in result.err
    log = (env.home / "logs" / "cli.log").read_text()
    assert "rebuilt" in log  # the details are kept where `anamnesis doctor` users look
    again = env.run("status", "--json")
    assert again.code == 0 and again.err == ""  # rebuilt once, then quiet


@pytest.mark.parametrize("as_json", [False, True])
def test_reindex_names_each_skipped_file_once(env: Env, as_json: bool) -> None:
    seed(env, 1)
    bad = bad_note(env)
    result = env.run("reindex", *(["--json"] if as_json else []))
    assert result.code == 0, result.err
    if as_json:
        assert [s["path"] for s in result.json()["skipped"]] == [str(bad)]
    else:
        assert result.out == "indexed 1 notes\n"
    assert len(result.err_lines) == 1, result.err
    assert result.err_lines[0].startswith(f"anamnesis: skipped {bad}: ")
    assert "not valid YAML" in result.err_lines[0]


def test_notices_in_process_are_said_once_and_foreign_warnings_only_logged(
    env: Env, capsys: pytest.CaptureFixture[str]
) -> None:
    store_log = logging.getLogger("anamnesis.store")
    with notices.routed():
        store_log.warning("the index %s was rebuilt", "x.db")
        warnings.warn("the index x.db was rebuilt", IndexRebuiltWarning, stacklevel=1)
        warnings.warn("a library's deprecation detail", UserWarning, stacklevel=1)
        logging.getLogger("dulwich").warning("a pack file was odd")
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "anamnesis: the index x.db was rebuilt",
        "anamnesis: a pack file was odd",
    ]
    log = (env.home / "logs" / "cli.log").read_text()
    assert "a library's deprecation detail" in log and "UserWarning" in log
    with notices.routed():  # a new run says it again
        store_log.warning("the index %s was rebuilt", "x.db")
    assert capsys.readouterr().err == "anamnesis: the index x.db was rebuilt\n"
    assert not any(isinstance(h, logging.Handler) and type(h).__module__ == notices.__name__
                   for h in logging.getLogger().handlers)  # fmt: skip


# (arguments, the result parsed from stdout, and whether a bar should show on a terminal)
RESULT_COMMANDS = [
    (["reindex"], False, True),
    (["reindex", "--json"], True, True),
    (["status", "--json"], True, False),
    (["list", "--json"], True, False),
    (["search", "words", "--json"], True, False),
    (["import", "--json"], True, False),
    (["sync", "--json"], True, False),
    (["doctor", "--offline", "--json"], True, False),
]


@pytest.mark.parametrize(("args", "is_json", "has_bar"), RESULT_COMMANDS)
def test_stdout_is_exactly_the_result_on_a_terminal_and_off_it(
    env: Env, args: list[str], is_json: bool, has_bar: bool
) -> None:
    seed(env)
    piped = env.run(*args)
    on_terminal = env.run_on_terminal(*args)
    assert piped.code == on_terminal.code, (piped.err, on_terminal.err)
    for result in (piped, on_terminal):
        if is_json:
            data = json.loads(result.out)
            assert result.out == json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        else:
            assert result.out == "indexed 2 notes\n"
    assert "\x1b" not in piped.err  # no terminal, no drawing
    if has_bar:
        assert "Indexing notes" in on_terminal.err  # the bar went to the terminal, not to stdout


def test_import_draws_a_bar_on_a_terminal_and_prints_only_the_result(env: Env) -> None:
    memory = env.claude / "projects" / "-work-api" / "memory"
    memory.mkdir(parents=True)
    for index in range(3):
        (memory / f"note{index}.md").write_text(f"Remember thing number {index}.\n")
    result = env.run_on_terminal("import")
    assert result.code == 0, result.err
    source = env.claude / "projects"
    assert result.out == f"from {source}: 3 new, 0 updated, 0 unchanged, 0 duplicate(s) skipped\n"
    assert "Importing" in result.err and "3/3" in result.err
    piped = env.run("import")
    assert piped.code == 0 and piped.err == ""  # no terminal: no bar, and nothing to say
