"""Output: JSON for machines, tables for people, progress only on a terminal.

stdout carries the result and nothing else; notices and progress go to stderr. Tables are
:mod:`anamnesis.cli.display.tables`'s: fitted to a terminal, whole and plain when piped, so
``grep`` and ``cut`` keep working. Everything printed here is display-safe
(:func:`anamnesis.store.display_safe`): a direction control in a note's title cannot make a
listing read otherwise than it is, nor a control character act on the terminal. JSON keeps
its values (the escapes are JSON's own).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any

from anamnesis.store import display_safe

Progress = Callable[[int, int], None]


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def stdin_is_terminal() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (OSError, ValueError):
        return False


def print_json(data: Any) -> None:
    sys.stdout.write(display_safe(_json_text(data)) + "\n")


def print_json_array(items: Iterable[Any], batch: int = 1000) -> None:
    """:func:`print_json` of the list of ``items``, the same text, written ``batch`` items
    at a time as ``items`` yields them: neither the list nor its text is ever whole in
    memory."""
    write = sys.stdout.write
    source = iter(items)
    first = True
    while chunk := list(islice(source, batch)):
        # A batch's text between its own "[\n" and "\n]" is its items' lines exactly as
        # the whole list's text has them. (One encoding a batch: json's indenting
        # encoder costs some 15 us to set up for each call.)
        write(("[\n" if first else ",\n") + display_safe(_json_text(chunk)[2:-2]))
        first = False
    write("[]\n" if first else "\n]\n")


_ENCODER = json.JSONEncoder(indent=2, ensure_ascii=False, default=str)


def _json_text(data: Any) -> str:
    return _ENCODER.encode(data)


def say(text: str = "") -> None:
    sys.stdout.write(display_safe(text) + "\n")


# Notices already shown in this run. One event can reach stderr several ways (the store
# both logs and warns a rebuilt index; reindex logs a skipped file that the command lists
# again): each is said once.
_shown: set[str] = set()


def warn(text: str) -> bool:
    """One ``anamnesis: ...`` line on stderr, unless the same notice was already shown in
    this run; True when it was written."""
    line = " ".join(text.split())
    if line in _shown:
        return False
    _shown.add(line)
    sys.stderr.write(f"anamnesis: {display_safe(line)}\n")
    return True


def forget_notices() -> None:
    """Start a run afresh (the app's ``main`` can run several times in one process)."""
    _shown.clear()


def cell(value: object) -> str:
    """A table cell's text: one line, display-safe, a list as its items joined."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    return display_safe(" ".join(str(value).split()))  # one line per row, whatever it holds


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (OSError, ValueError):
        return False


@contextmanager
def progress(label: str) -> Iterator[Progress | None]:
    """A progress callback ``(done, total)`` drawing a bar on stderr when stderr is a
    terminal; None elsewhere. stdout is left alone, so ``cmd > file`` keeps only the result."""
    if not stderr_is_terminal():
        yield None
        return
    # rich (~140 ms): only when a terminal shows it
    from rich import progress as bars
    from rich.console import Console

    with bars.Progress(
        f"[bold]{label}",
        bars.BarColumn(),
        bars.MofNCompleteColumn(),
        bars.TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=False,  # rich would route stdout into the bar's stream: stderr
    ) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


@contextmanager
def spinner(label: str) -> Iterator[None]:
    """A spinner on stderr, when it is a terminal, while work of unknown length runs."""
    if not stderr_is_terminal():
        yield
        return
    # rich (~140 ms): only when a terminal shows it
    from rich.console import Console
    from rich.live import Live
    from rich.spinner import Spinner

    # Live rather than Console.status: status cannot be told to leave stdout alone.
    with Live(
        Spinner("dots", text=label),
        console=Console(stderr=True),
        transient=True,
        redirect_stdout=False,
        refresh_per_second=12.5,
    ):
        yield
