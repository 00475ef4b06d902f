"""The rules behind the terminal's drawing, one by one: how a table's
width is shared, cutting by cells, wrapping under an indent, readable help."""

from __future__ import annotations

from anamnesis.cli.display import terminal, wrapping
from anamnesis.cli.display.help_text import first_sentence, without_argument_types
from anamnesis.cli.display.tables import Column, layout, share


def test_room_is_shared_by_weight_and_no_column_gets_more_than_it_needs() -> None:
    assert share(30, [10, 40], [1, 2]) == [10, 20]  # the project needs less than its third
    assert share(30, [40, 40], [1, 2]) == [10, 20]
    assert share(31, [40, 40], [1, 2]) == [10, 21]  # the cell left over goes to the title
    assert share(100, [10, 40], [1, 2]) == [10, 40]  # both whole
    assert share(1, [5, 5], [1, 1]) == [1, 1]  # an ellipsis each, at the very least


ID = Column("id")
TYPE = Column("type", drop=1)
PROJECT = Column("project", cut=1, comfort=10)
TITLE = Column("title", cut=2, comfort=20)
ROW = ["0" * 26, "procedural", "p" * 40, "t" * 70]


def test_a_table_that_fits_is_boxed_and_whole() -> None:
    fitted = layout([ID, TYPE, PROJECT, TITLE], [ROW], 200)
    assert fitted.boxed and fitted.widths == (26, 10, 40, 70)


def test_a_table_that_does_not_fit_is_plain_with_ids_whole() -> None:
    fitted = layout([ID, TYPE, PROJECT, TITLE], [ROW], 100)
    assert not fitted.boxed and fitted.shown == (0, 1, 2, 3)
    assert fitted.widths[:2] == (26, 10)
    assert sum(fitted.widths) + 2 * 3 == 100  # every cell of the line used


def test_columns_give_way_before_a_title_gets_too_narrow_to_read() -> None:
    fitted = layout([ID, TYPE, PROJECT, TITLE], [ROW], 64)
    assert fitted.shown == (0, 2, 3)  # the type went
    assert fitted.widths[0] == 26 and fitted.widths[2] >= 20


def test_cutting_counts_cells_not_characters() -> None:
    assert terminal.cut("short", 10) == "short"
    assert terminal.cut("a long title here", 8) == "a long…"
    wide = terminal.cut("設定ファイルの場所", 8)
    assert wide == "設定フ…" and terminal.cells(wide) == 7  # never half a wide character
    assert terminal.cut("anything", 0) == ""


def test_hanging_lines_wrap_under_their_indent_and_keep_commands_whole() -> None:
    lines = wrapping.hanging(
        "fix: ", "run `anamnesis config set embed_model_path FOLDER` to point it there", 30
    )
    assert lines == [
        "fix: run",
        "     `anamnesis config set embed_model_path FOLDER`",
        "     to point it there",
    ]
    assert wrapping.hanging("> ", "", 20) == [">"]


def test_lifted_commands_too_long_for_the_indent_take_a_line_of_their_own() -> None:
    text = "once it is installed, run: `claude mcp add --scope user anamnesis` then check"
    assert wrapping.hanging("     fix: ", text, 40, lift=True) == [
        "     fix: once it is installed, run:",
        "claude mcp add --scope user anamnesis",  # at column 0, its backquotes off
        "          then check",
    ]
    # One that fits under the indent stays there, backquotes and all.
    assert wrapping.hanging("fix: ", "run `anamnesis sync` now", 22, lift=True) == [
        "fix: run",
        "     `anamnesis sync`",
        "     now",
    ]
    # Alone after its label: the label stays, the command goes under it.
    assert wrapping.hanging("file:     ", "/a/long/path/to/a/note/file.md", 30, lift=True) == [
        "file:",
        "/a/long/path/to/a/note/file.md",
    ]


def test_markdown_wraps_prose_lists_and_quotes_but_never_code_or_tables() -> None:
    words = " ".join(["word"] * 12)
    body = "\n".join(
        [f"  {words}", f"1. {words}", f"> {words}", "```", words * 2, "```", f"| {words} |",
         f"    {words}", f"# {words}"]
    )  # fmt: skip
    out = wrapping.markdown(body, 30)
    assert out[:9] == [
        "  word word word word word", "  word word word word word", "  word word",
        "1. word word word word word", "   word word word word word", "   word word",
        "> word word word word word", "> word word word word word", "> word word",
    ]  # fmt: skip
    assert words * 2 in out and f"| {words} |" in out  # code and tables as written
    assert f"    {words}" in out and f"# {words}" in out  # indented code, headings too


def test_the_first_sentence_of_a_help_text_is_its_short_help() -> None:
    assert first_sentence("Merge redundant durable notes. Each merge is kept\nonly if.") == (
        "Merge redundant durable notes."
    )
    assert first_sentence("Remove notes (dry run unless --apply). The note in force") == (
        "Remove notes (dry run unless --apply)."
    )
    assert first_sentence("Import notes.\n\nBare `anamnesis import` imports") == "Import notes."
    assert first_sentence("Use the model, e.g. a local one.") == "Use the model, e.g. a local one."


def test_argument_types_are_taken_out_of_a_help_page_keeping_the_column() -> None:
    page = "\n".join([
        "Usage: x {KEY} {VALUE}", "", "Arguments:",
        "  KEY <str>      A setting's", "                 name.",
        "  VALUE <path>   Its value.", "", "Options:", "  --a <str>  kept",
    ])  # fmt: skip
    assert without_argument_types(page).split("\n")[3:] == [
        "  KEY      A setting's", "           name.", "  VALUE    Its value.",
        "", "Options:", "  --a <str>  kept",
    ]  # fmt: skip
