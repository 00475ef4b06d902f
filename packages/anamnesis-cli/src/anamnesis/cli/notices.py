"""Library warnings and log records, said the CLI's way: one ``anamnesis: ...`` line each,
once, with the details kept in ``<home>/logs/cli.log``.

Left alone, Python prints them raw: a warning as ``file.py:37: IndexRebuiltWarning ...``
plus a source line, a log record through logging's last-resort handler, and an event the
store both logs and warns (a rebuilt index) or logs while the command reports it too (a
skipped file) comes out twice. Inside ``routed()`` every log record at WARNING or above and
every Anamnesis warning goes through ``console.warn``, which says each notice once.
Warnings of other packages are written to the log only: they speak to developers, not to
whoever runs the command.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

from anamnesis.cli import console
from anamnesis.ops import Home

LOG_FILE = "cli.log"


def log_path() -> Path:
    return Home.resolve().layout.logs_dir / LOG_FILE


def append_log(text: str) -> Path | None:
    """Add one timestamped entry to the CLI's log; its path, or None when it cannot be
    written (a log is never a reason to fail a command)."""
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(f"{datetime.now(UTC).isoformat(timespec='seconds')} {text.rstrip()}\n")
    except OSError:
        return None
    return path


def notice(text: str, detail: str, *, show: bool = True) -> None:
    """Say ``text`` on stderr (once per run) and log ``detail``; ``show=False`` only logs."""
    if show and not console.warn(text):
        return  # already said, and logged, in this run
    append_log(detail)


class _ConsoleHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # bad %-arguments in someone's log call: show what there is
            message = str(record.msg)
        detail = f"{record.levelname} {record.name}: {message}"
        if record.exc_info:
            detail += "\n" + logging.Formatter().formatException(record.exc_info)
        notice(message, detail)


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    ours = category.__module__.split(".")[0] == "anamnesis"
    notice(str(message), f"{category.__name__} at {filename}:{lineno}: {message}", show=ours)


@contextmanager
def routed() -> Iterator[None]:
    """Route warnings and logging as above for the duration of one command."""
    console.forget_notices()
    root = logging.getLogger()
    handler = _ConsoleHandler(logging.WARNING)
    root.addHandler(handler)
    try:
        with warnings.catch_warnings():  # restores showwarning and the filters afterwards
            warnings.showwarning = _show_warning
            yield
    finally:
        root.removeHandler(handler)
