"""The terminal stdout writes to: how wide it is, whether it wants colour, and how many
cells a piece of text takes there (a CJK character or an emoji takes two)."""

from __future__ import annotations

import os
import shutil

from anamnesis.cli import console

ELLIPSIS = "\u2026"
# A terminal that reports no size (0 columns) is drawn for the size most terminals open at.
FALLBACK_COLUMNS = 80


def width() -> int:
    """Columns of the terminal: ``COLUMNS`` when set (as every tool honours it), else the
    terminal's own size."""
    columns = shutil.get_terminal_size((FALLBACK_COLUMNS, 24)).columns
    return columns if columns > 0 else FALLBACK_COLUMNS


def colour_wanted() -> bool:
    """Colour on stdout: only on a terminal that can show it, and never when ``NO_COLOR``
    is set to anything (https://no-color.org)."""
    return (
        console.stdout_is_terminal()
        and not os.environ.get("NO_COLOR")
        and os.environ.get("TERM", "") != "dumb"
    )


def cells(text: str) -> int:
    """How many terminal cells ``text`` takes."""
    # rich's cell widths (~10 ms to load): only when something is drawn for a terminal
    from rich.cells import cell_len

    return cell_len(text)


def pad(text: str, size: int) -> str:
    """``text`` followed by spaces to take ``size`` cells."""
    return text + " " * max(0, size - cells(text))


def cut(text: str, size: int) -> str:
    """``text`` whole when it fits in ``size`` cells, else its start and an ellipsis."""
    if cells(text) <= size:
        return text
    if size <= 0:
        return ""
    from rich.cells import set_cell_size

    # set_cell_size pads with a space where it had to split a wide character.
    return set_cell_size(text, size - 1).rstrip() + ELLIPSIS
