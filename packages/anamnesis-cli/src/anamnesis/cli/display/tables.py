"""The CLI's tables, fitted to the terminal: one rule for every table a command draws
(`list`, `search`, `status`, `compact`, `reflect`, `dedup`, `migrate`, `eval`, `import`).

On a terminal each row takes one line. Where the whole table fits, it is drawn in a box.
Otherwise it is plain columns (a box's borders would cost a title 3 cells a column):
columns marked ``cut`` (titles, projects) are shortened with an ellipsis to fit the
terminal, every other column (ids, scores, dates) is shown whole, so an id can be copied
from the screen; where even that leaves a cut column narrower than its ``comfort``, the
columns marked ``drop`` give up their room, lowest number first. Piped, the table is plain
columns with every cell whole: a script sees all of it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from anamnesis.cli import console
from anamnesis.cli.display import colour, terminal

# Cells between two columns of a plain table.
GAP = 2


@dataclass(frozen=True)
class Column:
    """One column: ``cut`` is its share of the room left for shortened columns (0: never
    shortened); ``comfort`` the width below which a cut column is too narrow to read, so
    other columns are dropped first; ``drop`` the order it is dropped in (0: never)."""

    header: str
    cut: int = 0
    comfort: int = 0
    drop: int = 0


@dataclass(frozen=True)
class Layout:
    """Which columns are shown (indexes), at what width each, and whether boxed."""

    shown: tuple[int, ...]
    widths: tuple[int, ...]
    boxed: bool


def show(columns: Sequence[Column], rows: Sequence[Sequence[object]], *, title: str = "") -> None:
    """Print the table (each cell :func:`console.cell`'s text of its value), under its
    ``title`` if it has one: fitted on a terminal, whole when piped."""
    cells = [[console.cell(value) for value in row] for row in rows]
    if not console.stdout_is_terminal():
        _piped(columns, cells, title)
        return
    fitted = layout(columns, cells, terminal.width())
    if fitted.boxed:
        _boxed(columns, cells, fitted, title)
    else:
        if title:
            colour.say([(terminal.cut(title, terminal.width()), colour.BOLD)])
        _plain(columns, cells, fitted)


def _piped(columns: Sequence[Column], rows: Sequence[Sequence[str]], title: str) -> None:
    """Plain columns, every cell whole, aligned by characters (what ``cut`` counts)."""
    if title:
        console.say(title)
    widths = [len(c.header) for c in columns]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    for row in [[c.header for c in columns], *rows]:
        console.say((" " * GAP).join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def layout(columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int) -> Layout:
    """How ``rows`` fit in ``width`` cells (the rule above)."""
    natural = [
        max([terminal.cells(col.header), *(terminal.cells(row[i]) for row in rows)])
        for i, col in enumerate(columns)
    ]
    every = tuple(range(len(columns)))
    whole = sum(natural[i] for i in every if columns[i].cut)
    if _room(columns, natural, every, width, boxed=True) >= whole:
        return _fit(columns, natural, every, width, boxed=True)
    shown = every
    for index in sorted((i for i in every if columns[i].drop), key=lambda i: columns[i].drop):
        if _room(columns, natural, shown, width, boxed=False) >= _wanted(columns, natural, shown):
            break
        shown = tuple(i for i in shown if i != index)
    return _fit(columns, natural, shown, width, boxed=False)


def _room(
    columns: Sequence[Column], natural: list[int], shown: tuple[int, ...], width: int, *,
    boxed: bool,
) -> int:  # fmt: skip
    """Cells left for the cut columns once the whole ones and the borders are drawn."""
    # A box draws a border and a space each side of every cell: 3 cells a column and 1.
    frame = 3 * len(shown) + 1 if boxed else GAP * (len(shown) - 1)
    whole = sum(natural[i] for i in shown if not columns[i].cut)
    return width - frame - whole


def _wanted(columns: Sequence[Column], natural: list[int], shown: tuple[int, ...]) -> int:
    return sum(min(natural[i], columns[i].comfort) for i in shown if columns[i].cut)


def _fit(
    columns: Sequence[Column], natural: list[int], shown: tuple[int, ...], width: int, *,
    boxed: bool,
) -> Layout:  # fmt: skip
    cut = [i for i in shown if columns[i].cut]
    shares = share(
        _room(columns, natural, shown, width, boxed=boxed),
        [natural[i] for i in cut],
        [columns[i].cut for i in cut],
    )
    given = dict(zip(cut, shares, strict=True))
    return Layout(shown, tuple(given.get(i, natural[i]) for i in shown), boxed)


def share(room: int, natural: Sequence[int], weights: Sequence[int]) -> list[int]:
    """Split ``room`` cells among columns wanting ``natural`` cells each, in proportion to
    their ``weights``: a column needing less than its part gets what it needs and leaves
    the rest to the others. Every column gets at least 1 cell (its ellipsis)."""
    widths = [0] * len(natural)
    open_ = list(range(len(natural)))
    while open_:
        total = sum(weights[i] for i in open_)
        content = [i for i in open_ if natural[i] * total <= room * weights[i]]
        if not content:
            parts = {i: max(1, room * weights[i] // total) for i in open_}
            left = room - sum(parts.values())
            for i in sorted(open_, key=lambda i: -weights[i])[: max(0, left)]:
                parts[i] += 1  # the cells floor division left, to the widest first
            for i, part in parts.items():
                widths[i] = part
            break
        for i in content:
            widths[i] = natural[i]
            room -= natural[i]
            open_.remove(i)
    return widths


def _fitted_rows(rows: Sequence[Sequence[str]], fitted: Layout) -> list[list[str]]:
    return [
        [terminal.cut(row[i], size) for i, size in zip(fitted.shown, fitted.widths, strict=True)]
        for row in rows
    ]


def _plain(columns: Sequence[Column], rows: Sequence[Sequence[str]], fitted: Layout) -> None:
    headers = [terminal.cut(columns[i].header, size)
               for i, size in zip(fitted.shown, fitted.widths, strict=True)]  # fmt: skip
    wanted = terminal.colour_wanted()
    for number, row in enumerate([headers, *_fitted_rows(rows, fitted)]):
        line = (
            (" " * GAP)
            .join(terminal.pad(cell, size) for cell, size in zip(row, fitted.widths, strict=True))
            .rstrip()
        )
        colour.say([(line, colour.BOLD if number == 0 else colour.PLAIN)], wanted=wanted)


def _boxed(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], fitted: Layout, title: str
) -> None:
    # rich (~140 ms): only when a terminal shows it
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    grid = Table(title=Text(title) if title else None, header_style="bold")
    for i, size in zip(fitted.shown, fitted.widths, strict=True):
        grid.add_column(Text(columns[i].header), width=size, no_wrap=True, overflow="ellipsis")
    for row in _fitted_rows(rows, fitted):
        grid.add_row(*(Text(cell) for cell in row))  # Text: a title's "[...]" is not markup
    Console(
        file=sys.stdout,
        width=terminal.width(),
        color_system="auto" if terminal.colour_wanted() else None,
    ).print(grid)
