"""`doctor`'s report for a person: one verdict a check, its fix (or tip) under it.

On a terminal the verdicts are coloured (ok green, warn yellow, FAIL red; none with
``NO_COLOR``) and every line wraps under its own indent, a fix under the text of the fix;
a command (in backquotes) or a path is never split, and one too long for the room under
the indent takes a line of its own from column 0, so that it can be copied whole.
Piped, each check and each fix is one plain line. The checks themselves are
``doctor.run_checks``'s, which the dashboard's status panel shows too: it never sees the
colours, which are put on here, at the terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from anamnesis.cli import console
from anamnesis.cli.display import colour, terminal, wrapping
from anamnesis.ops import FAIL, OK, WARN, Check

MARKS = {OK: ("ok  ", colour.GREEN), WARN: ("warn", colour.YELLOW), FAIL: ("FAIL", colour.BOLD_RED)}
# Where a check's text starts: after "[warn] " and the name in 8 cells and a space.
TEXT_AT = 16


def say_checks(checks: Sequence[Check]) -> None:
    """Print the report of ``checks`` (the rule above)."""
    wanted = terminal.colour_wanted()
    width = terminal.width() if console.stdout_is_terminal() else 0
    for check in checks:
        mark, style = MARKS[check.status]
        first = f"[{mark}] {check.name:8} "
        lines = _lines(first, check.detail, width)
        marked = f"[{mark}]"
        colour.say([(marked, style), (lines[0][len(marked) :], colour.PLAIN)], wanted=wanted)
        for line in lines[1:]:
            console.say(line)
        if check.fix:  # on a passing check, what could be added (sync, vectors)
            label = "tip" if check.status == OK else "fix"
            for line in _lines(f"{'':{TEXT_AT}}{label}: ", check.fix, width):
                console.say(line)


def _lines(first: str, text: str, width: int) -> list[str]:
    """``text`` after ``first``: wrapped under itself on a terminal, one line piped."""
    if not width:
        return [first + text]
    return wrapping.hanging(first, text, width, lift=True)
