"""Text wrapped to the terminal: a line that goes on wraps under its own indent (a
doctor's ``fix:``, a list item, a quote), never back to column 0.

Only for a terminal: piped text keeps its lines as they are, and ``show --raw`` never
comes here. Lines break between words, measured in terminal cells. A span in backquotes
(a command, by the CLI's convention) is never broken, nor is a word longer than the line
(a path, a URL): it overflows whole rather than be split where a copy of it would break.
What the CLI says itself (doctor's checks and fixes, `show`'s header) goes further
(``lift``): such a word, too long for the room after the indent, takes a line of its own
from column 0, where it fits whenever it is not wider than the terminal, and a command
loses its backquotes there, so a triple-click copies the command and nothing else (a
shell would run a backquoted command and then its output). Wider than the terminal, the
terminal's own soft wrap shows it, and a copy of it is still one line.
"""

from __future__ import annotations

import re

from anamnesis.cli.display import terminal

# A word: what a line breaks between. A span in backquotes is one word, spaces and all.
_WORD = re.compile(r"(?:`[^`]*`|[^\s`]|`)+")
# A word that is one backquoted span and nothing else.
_SPAN = re.compile(r"`([^`]+)`")
# A markdown list item or quote: what its continuation lines are indented under.
_ITEM = re.compile(r"(\s*)((?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)")
_QUOTE = re.compile(r"\s*(?:>\s?)+")
_FENCE = re.compile(r"\s{0,3}(`{3,}|~{3,})")


def hanging(
    first: str, text: str, width: int, indent: int | None = None, *, lift: bool = False
) -> list[str]:
    """``text`` after the prefix ``first``, wrapped to ``width`` cells; the lines after the
    first start with ``indent`` spaces (default: as wide as ``first``); ``lift``: a word
    too long for the room after the indent takes a line of its own (the rule above)."""
    indent = terminal.cells(first) if indent is None else indent
    lines: list[str] = []
    line, used, empty = first, terminal.cells(first), True
    for word in _WORD.findall(text):
        size = terminal.cells(word)
        fits = used + (0 if empty else 1) + size <= width
        if lift and not fits and indent + size > width:
            if line.strip():  # what came before it, the prefix at least
                lines.append(line.rstrip())
            lines.append(_bare(word))
            line, used, empty = " " * indent, indent, True
            continue
        if not empty and not fits:
            lines.append(line)
            line, used, empty = " " * indent, indent, True
        line += word if empty else " " + word
        used += size if empty else 1 + size
        empty = False
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _bare(word: str) -> str:
    """A word on a line of its own: a command without the backquotes around it."""
    span = _SPAN.fullmatch(word)
    return span.group(1) if span else word


def markdown(body: str, width: int) -> list[str]:
    """A note's markdown body as lines of at most ``width`` cells where it can be: prose
    wrapped under its indent, list items under their text, quotes keeping their ``>``;
    code (fenced or indented), tables and headings left exactly as written."""
    out: list[str] = []
    fence = ""
    for line in body.splitlines():
        opened = _FENCE.match(line)
        if fence:
            out.append(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            out.append(line)
        elif terminal.cells(line) <= width or _verbatim(line):
            out.append(line)
        else:
            out.extend(_wrapped(line, width))
    return out


def _verbatim(line: str) -> bool:
    """Indented code, a table row or a heading: wrapping would change what it says."""
    stripped = line.lstrip()
    return line.startswith(("    ", "\t")) or stripped.startswith("|") or stripped.startswith("#")


def _wrapped(line: str, width: int) -> list[str]:
    quote = _QUOTE.match(line)
    if quote:
        prefix = quote.group(0)  # repeated on every line: each stays in the quote
        first, *more = hanging(prefix, line[len(prefix) :], width)
        return [first, *(prefix + rest[len(prefix) :] for rest in more)]
    item = _ITEM.match(line)
    if item:
        return hanging(item.group(0), line[item.end() :], width)
    text = line.lstrip()
    return hanging(line[: len(line) - len(text)], text, width)
