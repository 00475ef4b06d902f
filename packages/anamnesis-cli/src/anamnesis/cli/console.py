"""Output: JSON for machines, tables for people, progress only on a terminal.

Tables use rich on a terminal; piped output gets plain aligned columns that never wrap or
truncate, so ``grep`` and ``cut`` keep working.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

Progress = Callable[[int, int], None]


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def warn(text: str) -> None:
    sys.stderr.write(f"anamnesis: {text}\n")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]], *, title: str = "") -> None:
    cells = [[_cell(value) for value in row] for row in rows]
    if stdout_is_terminal():
        from rich.console import Console
        from rich.table import Table

        grid = Table(title=title or None, header_style="bold", show_lines=False)
        for header in headers:
            grid.add_column(header, overflow="fold")
        for row in cells:
            grid.add_row(*row)
        Console().print(grid)
        return
    if title:
        say(title)
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
    for row in [list(headers), *cells]:
        say("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return " ".join(str(value).split())  # one line per row, whatever the value holds


@contextmanager
def progress(label: str) -> Iterator[Progress | None]:
    """A progress callback ``(done, total)`` drawing a bar on a terminal; None elsewhere."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich import progress as bars

    with bars.Progress(
        f"[bold]{label}",
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        bars.TimeRemainingColumn(),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


@contextmanager
def spinner(label: str) -> Iterator[None]:
    """A spinner on a terminal while something without a known length runs."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(label):
        yield
