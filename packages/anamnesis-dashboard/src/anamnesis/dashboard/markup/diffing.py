"""A line diff between two versions of a note, as rows a template can colour: each line
with its numbers in the old and new text, and, where a removed line was rewritten as an
added one, the words that changed within it (as GitHub's file history shows them)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

CONTEXT_LINES = 3
# A removed and an added line are one line rewritten (their changed words marked) when at
# least this share of their characters is the same; below it they are unrelated lines.
REWRITE_RATIO = 0.5
# Lines longer than this are not compared word by word (difflib's matcher is quadratic).
MAX_WORD_DIFF_CHARS = 2_000
# Words, runs of spaces and single marks: the units a changed line is compared in.
_PIECES = re.compile(r"\w+|\s+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class Part:
    """A piece of a line's text; ``changed``: this piece is what differs from the other
    version of a rewritten line."""

    text: str
    changed: bool = False


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One row of a diff. ``kind``: "add", "del", "hunk" (a ``@@`` header) or "same";
    ``text``: the row as a unified diff prints it (``+``, ``-`` or `` `` first);
    ``old_no``/``new_no``: its line number in each version (None where it has none);
    ``parts``: the line's text without the sign, split where words changed."""

    kind: str
    text: str
    old_no: int | None = None
    new_no: int | None = None
    parts: tuple[Part, ...] = ()


_SIGNS = {"add": "+", "del": "-", "same": " "}


def diff_lines(old: str, new: str, old_name: str, new_name: str) -> list[DiffLine]:
    """A unified diff of ``old`` to ``new`` with :data:`CONTEXT_LINES` of context; empty
    when they are the same. (``old_name``/``new_name`` name the versions to a caller
    printing headers; the rows carry none.)"""
    a, b = old.splitlines(), new.splitlines()
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT_LINES):
        first, last = group[0], group[-1]
        out.append(DiffLine("hunk", _hunk_header(first[1], last[2], first[3], last[4])))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(_line("same", a[i], i + 1, j1 + i - i1 + 1) for i in range(i1, i2))
                continue
            out.extend(_rewritten(a[i1:i2], b[j1:j2], i1, j1))
    return out


def _hunk_header(i1: int, i2: int, j1: int, j2: int) -> str:
    return f"@@ -{_span(i1, i2)} +{_span(j1, j2)} @@"


def _span(start: int, end: int) -> str:
    """A hunk's range as unified diffs write it: ``first,count`` (``first`` alone for
    one line; the line before, with count 0, for none)."""
    count = end - start
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def _line(
    kind: str, text: str, old_no: int | None, new_no: int | None, parts: tuple[Part, ...] = ()
) -> DiffLine:
    return DiffLine(kind, _SIGNS[kind] + text, old_no, new_no, parts or (Part(text),))


def _rewritten(removed: list[str], added: list[str], i0: int, j0: int) -> list[DiffLine]:
    """A replaced block: its removed lines, then its added ones; the n-th removed and the
    n-th added line, when alike enough, have their changed words marked."""
    marked: dict[int, tuple[tuple[Part, ...], tuple[Part, ...]]] = {}
    for n in range(min(len(removed), len(added))):
        pair = _word_changes(removed[n], added[n])
        if pair is not None:
            marked[n] = pair
    rows = [
        _line("del", text, i0 + n + 1, None, marked[n][0] if n in marked else ())
        for n, text in enumerate(removed)
    ]
    rows += [
        _line("add", text, None, j0 + n + 1, marked[n][1] if n in marked else ())
        for n, text in enumerate(added)
    ]
    return rows


def _word_changes(old: str, new: str) -> tuple[tuple[Part, ...], tuple[Part, ...]] | None:
    """Both lines split into parts, the pieces that differ marked; None when the lines are
    too unlike (or too long) for that to help."""
    if len(old) + len(new) > MAX_WORD_DIFF_CHARS:
        return None
    a, b = _PIECES.findall(old), _PIECES.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.ratio() < REWRITE_RATIO:
        return None
    old_parts: list[Part] = []
    new_parts: list[Part] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        changed = tag != "equal"
        _append(old_parts, "".join(a[i1:i2]), changed)
        _append(new_parts, "".join(b[j1:j2]), changed)
    return tuple(old_parts), tuple(new_parts)


def _append(parts: list[Part], text: str, changed: bool) -> None:
    if text:
        parts.append(Part(text, changed))
