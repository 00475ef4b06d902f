"""Text wrapped to the terminal: a line that goes on wraps under its own indent (a
doctor's ``fix:``, a list item, a quote), never back to column 0.

Only for a terminal: piped text keeps its lines as they are, and ``show --raw`` never
comes here. Lines break between words, measured in terminal cells. A span in backquotes
(a command, by the CLI's convention) is never broken, nor is a word longer than the line
(a path, a URL): it overflows whole rather than be split where a copy of it would break.
"""

from __future__ import annotations

import re

from anamnesis.cli.display import terminal

# A word: what a line breaks between. A span in backquotes is one word, spaces and all.
_WORD = re.compile(r"(?:`[^`]*`|[^\s`]|`)+")
# A markdown list item or quote: what its continuation lines are indented under.
_ITEM = re.compile(r"(\s*)((?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?)")
_QUOTE = re.compile(r"\s*(?:>\s?)+")
_FENCE = re.compile(r"\s{0,3}(`{3,}|~{3,})")


def hanging(first: str, text: str, width: int, indent: int | None = None) -> list[str]:
    """``text`` after the prefix ``first``, wrapped to ``width`` cells; the lines after the
    first start with ``indent`` spaces (default: as wide as ``first``)."""
    indent = terminal.cells(first) if indent is None else indent
    lines: list[str] = []
    line, used, empty = first, terminal.cells(first), True
    for word in _WORD.findall(text):
        size = terminal.cells(word)
        if not empty and used + 1 + size > width:
            lines.append(line)
            line, used, empty = " " * indent, indent, True
        line += word if empty else " " + word
        used += size if empty else 1 + size
        empty = False
    lines.append(line.rstrip())
    return lines


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
