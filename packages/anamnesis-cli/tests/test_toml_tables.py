"""One TOML table added and removed by its lines alone: everything else stays to the byte,
and an edit that would change anything else is refused, never written."""

from __future__ import annotations

import tomllib

import pytest

from anamnesis.cli.agent_config.toml_tables import TomlEditError, with_table, without_table

KEY = ("mcp_servers", "anamnesis")
TABLE = {"command": "/opt/a b/anamnesis", "args": ["serve"], "env": {"ANAMNESIS_HOME": '/h"q'}}


@pytest.mark.parametrize(
    "text",
    [
        "",
        '# only a comment\nmodel = "o3"  # trailing\n',
        "a = 1\r\n[x]\r\ny = 2\r\n",  # Windows line endings
        "[mcp_servers]\n",  # the parent's header alone
        "[mcp_servers.other]\ncommand = 'x'\n\n\n# notes at the end\n",
        "[[tools]]\nname = 'a'\n[[tools]]\nname = 'b'\n",
    ],
)
def test_adding_then_removing_gives_the_bytes_back(text: str) -> None:
    added = with_table(text, KEY, TABLE, "config.toml")
    assert added.startswith(text)
    assert tomllib.loads(added)["mcp_servers"]["anamnesis"] == TABLE
    assert without_table(added, KEY, "config.toml") == text


def test_a_last_line_without_its_newline_gets_one() -> None:
    added = with_table("model = 1", KEY, TABLE, "f")
    assert without_table(added, KEY, "f") == "model = 1\n"


def test_replacing_keeps_everything_else() -> None:
    text = with_table("x = 1\n", KEY, TABLE, "f") + "\n[after]\nk = 1\n"
    changed = with_table(text, KEY, {**TABLE, "command": "/new/anamnesis"}, "f")
    assert tomllib.loads(changed) == {
        "x": 1,
        "after": {"k": 1},
        "mcp_servers": {"anamnesis": {**TABLE, "command": "/new/anamnesis"}},
    }
    assert without_table(changed, KEY, "f") == "x = 1\n\n[after]\nk = 1\n"


def test_the_tables_codex_rewrote_around_ours() -> None:
    """Codex regenerates its servers' tables: ours in the middle, another after it, a
    comment of the person's at the end stays theirs."""
    text = (
        'model = "o3"\n\n[mcp_servers.anamnesis]\ncommand = "/usr/bin/anamnesis"\n'
        'args = ["serve"]\n\n[mcp_servers.anamnesis.env]\nANAMNESIS_HOME = "/x"\n\n'
        '[mcp_servers.other]\ncommand = "/bin/true"\n# mine\n'
    )
    assert without_table(text, KEY, "f") == (
        'model = "o3"\n\n[mcp_servers.other]\ncommand = "/bin/true"\n# mine\n'
    )


def test_a_header_inside_a_string_is_refused_rather_than_guessed() -> None:
    """The lines look like our table's; tomllib says the result would break: refused."""
    added = with_table('key = """\n[mcp_servers.anamnesis]\n"""\n', KEY, TABLE, "f")
    with pytest.raises(TomlEditError, match="without breaking it"):
        without_table(added, KEY, "f")


def test_quoted_and_spaced_headers_are_ours_too() -> None:
    text = (
        'a = 1\n\n[ "mcp_servers" . anamnesis ]\ncommand = "x"\n\n'
        '[mcp_servers."anamnesis".env]\nK = "v"\n'
    )
    assert without_table(text, KEY, "f") == "a = 1\n"


@pytest.mark.parametrize(
    "text",
    [
        "mcp_servers.anamnesis.command = 'x'\n",  # dotted keys
        "mcp_servers = { anamnesis = { command = 'x' } }\n",  # inline
        "[mcp_servers]\nanamnesis = { command = 'x' }\n",
    ],
)
def test_a_table_not_written_as_one_is_refused(text: str) -> None:
    with pytest.raises(TomlEditError, match="not written as a table of its own"):
        without_table(text, KEY, "f")
    with pytest.raises(TomlEditError):
        with_table(text, KEY, TABLE, "f")


def test_a_file_that_is_not_toml_is_refused() -> None:
    with pytest.raises(TomlEditError, match="is not valid TOML"):
        with_table("model = \n", KEY, TABLE, "config.toml")


def test_nothing_to_remove_is_the_text_itself() -> None:
    assert without_table("a = 1", KEY, "f") == "a = 1"
