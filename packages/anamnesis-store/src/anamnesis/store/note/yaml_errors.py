"""A YAML error in a note's frontmatter as a person can act on it: the line of the file and
what to change there.

PyYAML reports its own line count (from 1 at the frontmatter, not the file), the parser's
words ("while scanning a simple key") and a caret drawing over several lines. People fix
the file in an editor that numbers the file's lines, so the number given here is the
file's, and the words say what to change. The C and pure-Python parsers word the same
error differently; the rules below read the part both share (the context), or a phrase
both use.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Any

# (phrase in the error's context or problem, whose mark names the line, what to do).
# "context": where the construct that never ended began (an unclosed quote's first
# line); "problem": where the parser gave up. First match wins: order matters (a bad
# flow list or a second ':' is also reported inside a "block mapping").
_RULES: tuple[tuple[str, str, str], ...] = (
    ("tab character", "problem", "a tab character: indent with spaces"),
    ("'\\t'", "problem", "a tab character: indent with spaces"),
    ("simple key", "context", "this line is not 'key: value' (no ':' after the key)"),
    ("quoted scalar", "context", "a quoted value starts on this line and its quote never closes"),
    ("flow sequence", "context", "a list opened with '[' on this line never closes with ']'"),
    ("flow mapping", "context", "a mapping opened with '{' on this line never closes with '}'"),
    (
        "mapping values are not allowed",
        "problem",
        "a second ':' on this line: put the value in quotes (or remove the indentation)",
    ),
    (
        "cannot start any token",
        "problem",
        "a value starts with a character YAML reserves (such as @, ` or %): put it in quotes",
    ),
    ("undefined alias", "problem", "'*' starts an alias here: put the value in quotes"),
    ("constructor for the tag", "problem", "a YAML tag ('!...') the store does not read"),
    ("block", "problem", "this line is not indented like the keys above it"),
)
_FALLBACK = "YAML cannot read this line"
_QUOTE_TROUBLE = (
    "a quoted value on this line does not end with its quote (inside '...' write a ' as '')"
)
# A key's value or a list item that starts with a quote, and its rest.
_QUOTED_START = re.compile(r"\s*(?:-\s+|[^\s#'\"-][^:]*:\s+)(['\"])(.*)")
# The rest of a quoted value that ends on its line, with its quote, maybe a comment after.
_QUOTED_END = {
    "'": re.compile(r"(?:[^']|'')*'\s*(?:#.*)?"),
    '"': re.compile(r'(?:[^"\\]|\\.)*"\s*(?:#.*)?'),
}


def yaml_problem(exc: BaseException, text: str, first_line: int = 1) -> str:
    """``exc``, an error PyYAML raised reading ``text``, as ``line N: what to change``.
    ``first_line``: the number, in the file, of ``text``'s first line (a note's frontmatter
    starts on line 2, after the opening ``---``)."""
    err: Any = exc
    context = str(getattr(err, "context", None) or "")
    problem = str(getattr(err, "problem", None) or "")
    said = f"{context} {problem}"
    for phrase, which, words in _RULES:
        if phrase in said:
            line = _mark_line(err, which)
            line = _mark_line(err, "problem") if line is None else line
            quoted = _unended_quote(text, line)
            if quoted is not None:
                return _located(quoted, first_line, _QUOTE_TROUBLE)
            return _located(line, first_line, words)
    position = getattr(err, "position", None)  # a ReaderError: a character YAML refuses
    if isinstance(position, int):
        character = getattr(err, "character", None)  # its code point, an int, here
        code = f" (U+{character:04X})" if isinstance(character, int) else ""
        return _located(
            text.count("\n", 0, position), first_line, f"a control character{code} YAML refuses"
        )
    line = _mark_line(err, "problem")
    return _located(_mark_line(err, "context") if line is None else line, first_line, _FALLBACK)


def _unended_quote(text: str, last: int | None) -> int | None:
    """The first line up to ``last`` whose quoted value does not end on it (a title with
    an apostrophe, 'Don't', or a quote never closed). YAML reads on into the next lines
    and reports a later one ("not indented like the keys above"); the quote is what to
    fix. A quoted value YAML allows over several lines is only blamed when the text fails."""
    if last is None:
        return None
    for number, line in enumerate(text.split("\n")[: last + 1]):
        start = _QUOTED_START.fullmatch(line)
        if start is not None and not _QUOTED_END[start.group(1)].fullmatch(start.group(2)):
            return number
    return None


def _mark_line(err: Any, which: str) -> int | None:
    """The 0-based line of the error's context or problem mark, when it has one."""
    mark = getattr(err, f"{which}_mark", None)
    line = getattr(mark, "line", None)
    return line if isinstance(line, int) else None


def _located(line: int | None, first_line: int, words: str) -> str:
    return words if line is None else f"line {first_line + line}: {words}"
