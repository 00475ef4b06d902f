"""Styled lines on stdout: ANSI styles only where :func:`terminal.colour_wanted` says so.

A line is written as pieces, each made display-safe (``anamnesis.store.display_safe``)
before its style is put around it: the escapes are ours, never a note's.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from anamnesis.cli.display import terminal
from anamnesis.store import display_safe

PLAIN = ""
BOLD = "1"
GREEN = "32"
YELLOW = "33"
BOLD_RED = "1;31"


def say(pieces: Sequence[tuple[str, str]], *, wanted: bool | None = None) -> None:
    """One line of ``(text, style)`` pieces (a style: an SGR code above, or PLAIN);
    ``wanted``: whether to colour, when the caller decided it once for a whole report."""
    if wanted is None:
        wanted = terminal.colour_wanted()
    line = "".join(_paint(display_safe(text), style, wanted) for text, style in pieces)
    sys.stdout.write(line + "\n")


def _paint(text: str, style: str, wanted: bool) -> str:
    return f"\x1b[{style}m{text}\x1b[0m" if wanted and style and text else text
