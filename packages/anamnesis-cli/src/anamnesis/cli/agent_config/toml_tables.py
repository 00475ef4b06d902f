"""One table of a TOML file added, replaced or removed by editing its text, every result
checked with tomllib: the rest of the file (comments, order, layout) stays as it was, byte
for byte.

Rewriting the whole file with a TOML writer would lose the person's comments, so only the
table's own lines are touched: added at the end (after a blank line), or removed with the
blank line before them. The edit is kept only if tomllib reads the result as the file's
data with exactly that table added, replaced or removed; otherwise (the table written as
dotted keys or inline, a multi-line string that looks like a header) :class:`TomlEditError`
says so and nothing is written. Values are rendered by tomli-w, never by hand.

Adding then removing the table gives back the original bytes, except that a file which did
not end with a newline gets one.
"""

from __future__ import annotations

import copy
import re
import tomllib
from collections.abc import Sequence
from typing import Any

import tomli_w

# A table header line: ``[a.b]`` or ``[[a.b]]``, optionally followed by a comment.
_HEADER = re.compile(r"^[ \t]*\[")
_BLANK_OR_COMMENT = re.compile(r"^[ \t]*(#.*)?$")


class TomlEditError(ValueError):
    """The table cannot be edited in the text without guessing: nothing was written."""


def parse(text: str, where: str) -> dict[str, Any]:
    """The file's data, or :class:`TomlEditError` saying where it is not TOML."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(f"{where} is not valid TOML ({exc})") from None


def lookup(data: dict[str, Any], key: Sequence[str]) -> Any:
    """The value at the dotted ``key``, or None."""
    node: Any = data
    for part in key:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def render(key: Sequence[str], table: dict[str, Any]) -> str:
    """``table`` as TOML under the header ``key`` (its sub-tables as tables of their own)."""
    nested: dict[str, Any] = table
    for part in reversed(key):
        nested = {part: nested}
    return tomli_w.dumps(nested)


def with_table(text: str, key: Sequence[str], table: dict[str, Any], where: str) -> str:
    """``text`` with the table at ``key`` set to ``table`` (an existing one replaced)."""
    data = parse(text, where)
    base = without_table(text, key, where) if lookup(data, key) is not None else text
    block = render(key, table)
    # After a blank line; a last line without its newline gets one.
    separator = "" if not base else ("\n" if base.endswith("\n") else "\n\n")
    result = base + separator + block
    expected = copy.deepcopy(data)
    _set(expected, key, table)
    _check(result, expected, where, "add")
    return result


def without_table(text: str, key: Sequence[str], where: str) -> str:
    """``text`` without the table at ``key`` and its sub-tables (the blank line before each
    block of them goes too); ``text`` itself when there is none."""
    data = parse(text, where)
    if lookup(data, key) is None:
        return text
    lines = text.splitlines(keepends=True)
    spans = _spans(lines, tuple(key), where)
    if not spans:
        raise TomlEditError(
            f"{where}: [{'.'.join(key)}] is not written as a table of its own (dotted keys or "
            "an inline table): edit it by hand"
        )
    for start, end in reversed(spans):
        if start >= 2 and lines[start - 1] == "\n" and lines[start - 2].endswith("\n"):
            start -= 1  # the blank line that set the block apart
        del lines[start:end]
    result = "".join(lines)
    expected = copy.deepcopy(data)
    pruned = _delete(expected, key)
    _check(result, expected, where, "remove", pruned)
    return result


def _spans(lines: list[str], key: tuple[str, ...], where: str) -> list[tuple[int, int]]:
    """The line ranges of the table at ``key`` and its sub-tables: each from its header to
    the last line before the next other header, less the blank and comment lines at its
    end (they belong to what follows)."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    for index, line in enumerate([*lines, "[end]\n"]):
        if not _HEADER.match(line):
            continue
        ours = index < len(lines) and _header_key(line, where)[: len(key)] == key
        if ours and start is None:
            start = index
        elif not ours and start is not None:
            end = index
            while end > start + 1 and _BLANK_OR_COMMENT.match(lines[end - 1]):
                end -= 1
            spans.append((start, end))
            start = None
    return spans


def _header_key(line: str, where: str) -> tuple[str, ...]:
    """The key a header line names, as tomllib reads it (quoted parts and all)."""
    header = line.strip()
    try:
        node: Any = tomllib.loads(header.replace("[[", "[", 1).split("]")[0] + "]")
    except tomllib.TOMLDecodeError:
        # A header tomllib cannot read alone: a ']' inside a quoted key. Read it whole.
        try:
            node = tomllib.loads(header)
        except tomllib.TOMLDecodeError:
            return ()
    parts: list[str] = []
    while isinstance(node, dict) and len(node) == 1:
        name, node = next(iter(node.items()))
        parts.append(name)
    return tuple(parts)


def _set(data: dict[str, Any], key: Sequence[str], value: dict[str, Any]) -> None:
    node = data
    for part in key[:-1]:
        node = node.setdefault(part, {})
    node[key[-1]] = copy.deepcopy(value)


def _delete(data: dict[str, Any], key: Sequence[str]) -> dict[str, Any]:
    """Remove ``key``; return a copy of the result with each table above it that this left
    empty dropped too (whether such a table stays is up to its header line, which is not
    the table's)."""
    node = data
    for part in key[:-1]:
        node = node[part]
    del node[key[-1]]
    pruned = copy.deepcopy(data)
    for depth in range(len(key) - 1, 0, -1):
        parent = lookup(pruned, key[: depth - 1]) if depth > 1 else pruned
        if parent[key[depth - 1]]:
            break
        del parent[key[depth - 1]]
    return pruned


def _check(
    result: str, expected: dict[str, Any], where: str, action: str, *alternatives: dict[str, Any]
) -> None:
    try:
        got = tomllib.loads(result)
    except tomllib.TOMLDecodeError as exc:
        raise TomlEditError(
            f"{where}: cannot {action} the table without breaking it ({exc})"
        ) from None
    if got != expected and got not in alternatives:
        raise TomlEditError(
            f"{where}: cannot {action} the table by editing its lines without changing "
            "something else; edit it by hand"
        )
