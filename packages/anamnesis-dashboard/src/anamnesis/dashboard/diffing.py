"""A line diff between two versions of a note, as rows a template can colour."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

CONTEXT_LINES = 3


@dataclass(frozen=True, slots=True)
class DiffLine:
    kind: str  # "add", "del", "hunk" or "same"
    text: str


def diff_lines(old: str, new: str, old_name: str, new_name: str) -> list[DiffLine]:
    """A unified diff of ``old`` to ``new``; empty when they are the same."""
    out: list[DiffLine] = []
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), old_name, new_name, n=CONTEXT_LINES, lineterm=""
    )
    for line in lines:
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("@@"):
            out.append(DiffLine("hunk", line))
        elif line.startswith("+"):
            out.append(DiffLine("add", line))
        elif line.startswith("-"):
            out.append(DiffLine("del", line))
        else:
            out.append(DiffLine("same", line))
    return out
