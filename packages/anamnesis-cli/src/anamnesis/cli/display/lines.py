"""Lines the commands say about notes, fitted to the terminal by the tables' rule: ids (and
paths, and commands) whole, titles cut with an ellipsis, a list of ids wrapped between ids
under its label. Piped, every line is printed whole, as it always was.
"""

from __future__ import annotations

from collections.abc import Sequence

from anamnesis.cli import console
from anamnesis.cli.display import terminal, wrapping

# Between two fields of one line (`show`'s "type:     semantic    scope: portable").
FIELD_GAP = "    "


def room() -> int:
    """Cells a line may take: the terminal's width, or 0 when stdout is not a terminal."""
    return terminal.width() if console.stdout_is_terminal() else 0


def say_cut(line: str, whole: int) -> None:
    """``line`` cut with an ellipsis to the terminal's width, its first ``whole`` cells
    (an indent and an id, say) never: a title after them gives way, they do not."""
    width = room()
    console.say(terminal.cut(line, max(width, whole)) if width else line)


def say_note(indent: str, note_id: str, title: str) -> None:
    """``indent``, a note's id whole and its title, cut to fit (a dry run's list)."""
    say_cut(f"{indent}{note_id}  {title}".rstrip(), len(indent) + len(note_id))


def say_wrapped(first: str, text: str, indent: int | None = None) -> None:
    """``text`` after ``first``, wrapped between words under its indent on a terminal
    (ids, paths and commands whole: :func:`wrapping.hanging` with ``lift``)."""
    width = room()
    if not width or terminal.cells(first + text) <= width:  # as written, spaces and all
        console.say(first + text)
        return
    for line in wrapping.hanging(first, text, width, indent, lift=True):
        console.say(line)


def say_whole(label: str, value: str) -> None:
    """``label`` and ``value`` (a path) on one line; on a terminal too narrow for both, the
    value on a line of its own from column 0, whole, so that it can be copied."""
    width = room()
    if not width or terminal.cells(label + value) <= width:
        console.say(label + value)
        return
    console.say(label.rstrip())
    console.say(value)


def say_fields(label: str, fields: Sequence[str]) -> None:
    """``label`` and ``fields`` (``scope: portable``, ...) on one line, 4 spaces apart; on
    a terminal too narrow for them all, the line breaks between fields, each going on
    under the label, and a field too long for that room wraps between its words."""
    whole = label + FIELD_GAP.join(fields)
    width = room()
    if not width or terminal.cells(whole) <= width:
        console.say(whole)
        return
    indent = " " * terminal.cells(label)
    said: list[str] = []
    line = label
    for field in fields:
        joined = line + (FIELD_GAP if line.strip() and line != label else "") + field
        if terminal.cells(joined) <= width:
            line = joined
            continue
        if line.strip():
            said.append(line)
        if terminal.cells(indent + field) <= width:
            line = indent + field
        else:
            said.extend(wrapping.hanging(indent, field, width, lift=True))
            line = indent
    if line.strip():
        said.append(line)
    for text in said:
        console.say(text.rstrip())


def ids_cell(ids: Sequence[str], *, none: str = "") -> str:
    """A table cell of note ids: every one when piped; on a terminal the first, whole, and
    how many more (a cell of three ids would not leave a title any room). ``--json``
    always has them all."""
    if not ids:
        return none
    if console.stdout_is_terminal() and len(ids) > 1:
        return f"{ids[0]} +{len(ids) - 1}"
    return ", ".join(ids)
