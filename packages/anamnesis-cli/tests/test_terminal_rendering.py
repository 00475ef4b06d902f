"""What a person sees at an 80-column terminal: `list` and `search` one line a note with
ids whole, `show` wrapped, doctor coloured and indented, `--help` whole; through a real
`anamnesis` process on a pseudo-terminal. Piped output stays whole and plain."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli_testing import Env, edited_on_both, write
from tty_testing import ULID, Screen, cells, on_terminal

LONG_TITLE = "How to rebuild the search index after the schema migration fails halfway through"
LONG_PROJECT = "github.com/someone/a-very-long-project-name-here"
WIDE_TITLE = "設定ファイルの場所と権限を確認する手順について詳しく説明します"
MARKUP_TITLE = "[/bold] brackets that look like [red]markup"


def seed(env: Env) -> list[str]:
    assert env.run("init", "--yes", "--local-only").code == 0
    return [
        write(env, LONG_TITLE, "run reindex, then check the index", "-p", LONG_PROJECT),
        write(env, WIDE_TITLE, "reindex after moving the config", "-p", "日本語プロジェクト"),
        write(env, MARKUP_TITLE, "reindex fixes it", "-p", "x", "-t", "procedural"),
        write(env, "Short note", "reindex reindex reindex"),
    ]


def assert_fits(screen: Screen, width: int) -> None:
    assert screen.code == 0, screen.err
    for line in screen.lines:
        assert cells(line) <= width, (cells(line), line)


def assert_rows_whole(screen: Screen, ids: list[str]) -> None:
    """One line a note, its id whole at the start of the line."""
    for note_id in ids:
        rows = [line for line in screen.lines if note_id in line]
        assert len(rows) == 1 and rows[0].startswith(note_id), (note_id, screen.text)
    assert len(screen.lines) == 1 + len(ids), screen.text  # the header and one line each


@pytest.mark.parametrize("command", [["list"], ["search", "reindex"]])
def test_a_table_fits_80_columns_one_line_a_note_with_whole_ids(
    env: Env, command: list[str]
) -> None:
    ids = seed(env)
    screen = on_terminal(env, *command)
    assert_fits(screen, 80)
    assert_rows_whole(screen, ids)
    assert "…" in screen.text  # the long title and project were cut to fit
    row = next(line for line in screen.lines if line.startswith(ids[0]))
    assert "How to rebuild" in row and LONG_TITLE not in row and "github.co" in row
    wide = next(line for line in screen.lines if line.startswith(ids[1]))
    assert "設定" in wide  # cut by cells: a wide character counts twice
    assert MARKUP_TITLE[:12] in screen.text  # a title's brackets are text, not markup
    assert "┃" not in screen.text and "│" not in screen.text  # plain columns at 80
    assert "\x1b[1m" in screen.raw  # the header is bold on a terminal


def test_a_wide_terminal_gets_the_whole_table_in_a_box(env: Env) -> None:
    ids = seed(env)
    screen = on_terminal(env, "search", "reindex", columns=200)
    assert_fits(screen, 200)
    assert "│" in screen.text and "…" not in screen.text
    assert LONG_TITLE in screen.text and MARKUP_TITLE in screen.text
    for note_id in ids:
        assert len([line for line in screen.lines if note_id in line]) == 1


def test_a_narrow_terminal_drops_columns_before_titles_become_unreadable(env: Env) -> None:
    ids = seed(env)
    screen = on_terminal(env, "list", columns=60)
    assert_fits(screen, 60)
    assert_rows_whole(screen, ids)
    assert screen.lines[0].split() == ["id", "project", "title"]  # type, then date, gave way


def test_piped_tables_keep_every_cell_whole_and_plain(env: Env) -> None:
    seed(env)
    for command in (["list"], ["search", "reindex"]):
        piped = env.run(*command)
        assert piped.code == 0, piped.err
        assert LONG_TITLE in piped.out and LONG_PROJECT in piped.out and WIDE_TITLE in piped.out
        assert "…" not in piped.out and "\x1b" not in piped.out


def test_no_colour_with_no_color(env: Env) -> None:
    seed(env)
    for command in (["list"], ["doctor", "--offline"]):
        screen = on_terminal(env, *command, NO_COLOR="1")
        assert "\x1b[" not in screen.raw, screen.raw


def test_search_shows_one_score_relative_to_the_best_and_keeps_the_raw_one_in_json(
    env: Env,
) -> None:
    ids = seed(env)
    hits = env.run("search", "reindex", "--json").json()
    assert hits[0]["id"] == ids[3]  # "reindex" three times
    assert hits[0]["relative_score"] == 1.0
    best = hits[0]["score"]
    for hit in hits:
        assert 0 < hit["score"] <= best  # raw BM25, as before
        assert hit["relative_score"] == round(hit["score"] / best, 4)
    table = env.run("search", "reindex").out.splitlines()[1:]
    shown = {row.split()[0]: row.split()[1] for row in table}
    assert shown == {hit["id"]: f"{hit['relative_score']:.2f}" for hit in hits}
    assert all(re.fullmatch(r"[01]\.\d\d", score) for score in shown.values())
    screen = on_terminal(env, "search", "reindex")
    assert f"{ids[3]}  1.00 " in screen.text


def test_replacements_on_a_terminal_show_the_first_id_whole_and_how_many_more(
    env: Env,
) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    old = write(env, "API port", "the API listens on 8080")
    newer = [write(env, "API port", f"the API listens on {port}", "--supersedes", old)
             for port in (9090, 7070)]  # fmt: skip
    screen = on_terminal(env, "search", "API port", "--include-superseded")
    assert_fits(screen, 80)
    row = next(line for line in screen.lines if line.startswith(old))
    assert f"{sorted(newer)[0]} +1" in row
    piped = env.run("search", "API port", "--include-superseded").out
    assert ", ".join(sorted(newer)) in piped


def test_show_wraps_the_body_under_its_indent_and_raw_stays_exact(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    prose = " ".join(f"word{n}" for n in range(60))
    code = "x = " + "1 + " * 30 + "1"
    body = f"{prose}\n\n- item {prose}\n\n> quoted {prose}\n\n```\n{code}\n```\n"
    note_id = write(env, "Long body", body)
    screen = on_terminal(env, "show", note_id)
    assert screen.code == 0, screen.err
    lines = screen.lines
    start = lines.index("") + 1
    shown = lines[start:]
    assert code in shown  # code is never wrapped
    for line in shown:
        assert cells(line) <= 80 or line == code, line
    words = " ".join(line.lstrip("> ").removeprefix("- ") for line in shown if line != code)
    assert prose in " ".join(words.split())  # every word, in order
    item = shown.index(next(line for line in shown if line.startswith("- item")))
    assert shown[item + 1].startswith("  word")  # under the item's text
    quote = [line for line in shown if line.startswith(">")]
    assert len(quote) > 1  # each wrapped line of a quote stays in the quote
    raw = on_terminal(env, "show", note_id, "--raw")
    file = Path(env.run("show", note_id, "--json").json()["path"]).read_text()
    assert raw.text == file  # exact, long lines and all
    piped = env.run("show", note_id).out
    assert prose in piped  # piped: the body as written


def test_show_of_a_keep_both_copy_names_the_other_copy(tmp_path: Path) -> None:
    _laptop, desktop, note_id = edited_on_both(tmp_path)
    assert desktop.run("sync").code == 1  # the conflict
    assert desktop.run("sync", "--resolve", "keep-both").code == 0
    fork_id = next(n["id"] for n in desktop.run("list", "--json").json() if n["id"] != note_id)
    for one, other in ((fork_id, note_id), (note_id, fork_id)):
        assert desktop.run("show", one, "--json").json()["conflict_with"] == [other]
        piped = desktop.run("show", one).out.splitlines()
        assert piped[1].startswith("conflict:") and "two copies" in piped[1]
        assert piped[2].split() == [other, "Port"]  # the other copy: id and title
        screen = on_terminal(desktop, "show", one)
        assert screen.code == 0, screen.err
        assert all(cells(line) <= 80 for line in screen.lines[1:4]), screen.text
        assert screen.lines[1].startswith("conflict:")
        assert "\x1b[33mconflict:" in screen.raw  # the banner's label in colour
        assert screen.lines[2].split() == [other, "Port"]
    plain = desktop.run("write", "--title", "Other", "no conflict here", "--json").json()["id"]
    assert desktop.run("show", plain, "--json").json()["conflict_with"] == []
    assert "conflict:" not in desktop.run("show", plain).out


def test_doctor_colours_verdicts_on_a_terminal_and_indents_wrapped_lines(env: Env) -> None:
    assert env.run("init", "--yes", "--local-only").code == 0
    screen = on_terminal(env, "doctor", "--offline")
    assert "\x1b[32m[ok  ]\x1b[0m" in screen.raw and "\x1b[33m[warn]\x1b[0m" in screen.raw
    report = env.run("doctor", "--offline", "--json").json()["checks"]
    said = " ".join(f"{check['detail']} {check['fix']}" for check in report)
    whole = {*re.findall(r"`([^`]+)`", said), *said.split()}  # commands and words
    fixes = (" " * 16 + "fix: ", " " * 16 + "tip: ")
    indent, continued, previous = 0, 0, ""
    for line in screen.lines:
        if line.startswith("["):  # a check: its text wraps under itself, at 16
            indent, words = 16, line[16:].split()
        elif line.startswith(fixes):  # a fix: under the fix's text, at 21
            indent, words = 21, line[21:].split()
        elif not line.startswith(" "):  # a command or path too long for the room left there
            assert line in whole and cells(previous) + 1 + cells(line) > 80, line
            previous = line
            continue
        else:
            assert indent and line.startswith(" " * indent) and line[indent] != " ", line
            words = line.split()
            continued += indent == 21
        if cells(line) > 80:  # only a word longer than the line (a path) overflows
            assert len(words) == 1, line
        previous = line
    assert continued  # some fix did go on to a line of its own
    checks = [line for line in screen.lines if line.startswith("[")]
    assert len(checks) == len(report)
    piped = env.run("doctor", "--offline").out
    assert "\x1b" not in piped
    for line in piped.splitlines():  # piped: one line a check, one a fix
        assert line.startswith("[") or line.startswith(fixes), line


def test_help_lists_whole_descriptions_and_readable_value_names(env: Env) -> None:
    top = on_terminal(env, "--help")
    assert top.code == 0, top.err
    assert not [line for line in top.lines[1:] if line.rstrip().endswith("...")], top.text
    assert "type word for word (dry run unless --apply)." in " ".join(top.text.split())
    pages = {
        name: on_terminal(env, *name.split(), "--help").text
        for name in ("write", "reflect", "search", "show", "dashboard", "config", "config set")
    }
    for name, page in pages.items():
        assert not re.search(r"<(str|int|path|list\[str\]|int range)>", page), (name, page)
        for line in page.splitlines():
            assert cells(line) <= 80, (name, line)
    assert "--tag TAG" in pages["write"] and "--supersedes ID" in pages["write"]
    assert "--min-episodes N" in pages["reflect"] and "--max-calls N" in pages["reflect"]
    assert "-k N" in pages["search"] and "--port N" in pages["dashboard"]
    assert re.search(r"^  ID  +The note's id", pages["show"], re.M), pages["show"]
    assert re.search(r"^  KEY    A setting's name", pages["config set"], re.M)
    assert "Usage: anamnesis search [OPTIONS] {QUERY}" in pages["search"]


def test_every_id_on_a_screen_is_whole(env: Env) -> None:
    ids = seed(env)
    for command in (["list"], ["search", "reindex"]):
        screen = on_terminal(env, *command, columns=72)
        assert set(ULID.findall(screen.text)) == set(ids)
