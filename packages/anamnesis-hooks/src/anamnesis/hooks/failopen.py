"""Hooks fail open: whatever happens, exit 0 and print nothing harmful into Claude Code.

Problems go to ``<home>/logs/hooks.log`` (rotated), one line each, where ``anamnesis
doctor`` and the user can find them; ``ANAMNESIS_DEBUG=1`` adds the traceback of an
unexpected failure. If even the log cannot be written, one line goes to stderr.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

from anamnesis.store import StoreLayout

LOG_NAME = "hooks.log"
LOG_MAX_BYTES = 1_000_000
LOG_BACKUPS = 3
DEBUG_ENV = "ANAMNESIS_DEBUG"


def log(home: Path, hook: str, message: str) -> None:
    """Append one line to the hook log, rotating it when it grows too big."""
    try:
        logs = StoreLayout(home).logs_dir
        logs.mkdir(parents=True, exist_ok=True)
        path = logs / LOG_NAME
        _rotate(path)

        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        with path.open("a", encoding="utf-8") as handle:
            handle.write(f"{stamp} {hook}: {message}\n")
    except OSError:
        _last_resort(f"anamnesis {hook}: {message.splitlines()[0] if message else ''}")


def run_failing_open(hook: str, home: Callable[[], Path], action: Callable[[], None]) -> int:
    """Run a hook action; any exception is logged and the exit code is still 0."""
    try:
        action()
    except KeyboardInterrupt:
        return 0
    except BaseException as exc:  # a hook must never raise into Claude Code
        if isinstance(exc, SystemExit) and exc.code in (0, None):
            return 0
        line = f"failed: {type(exc).__name__}: {exc}; nothing else was done"
        if _debugging():
            import traceback  # only on the failure path: it is not a cheap import

            line += "\n" + "".join(traceback.format_exception(exc)).rstrip()
        else:
            line += f" (set {DEBUG_ENV}=1 in the hook's command for the traceback)"
        try:
            where = home()
        except BaseException:  # even resolving the home failed: nowhere to log but stderr
            _last_resort(f"anamnesis {hook}: {exc}")
            return 0
        log(where, hook, line)
    return 0


def _debugging() -> bool:
    return os.environ.get(DEBUG_ENV, "").strip() not in ("", "0", "false", "no")


def _rotate(path: Path) -> None:
    try:
        if path.stat().st_size < LOG_MAX_BYTES:
            return
    except FileNotFoundError:
        return
    for index in range(LOG_BACKUPS - 1, 0, -1):
        older = path.with_name(f"{path.name}.{index}")
        if older.exists():
            older.replace(path.with_name(f"{path.name}.{index + 1}"))
    path.replace(path.with_name(f"{path.name}.1"))


def _last_resort(line: str) -> None:
    try:
        print(line, file=sys.stderr)
    except (OSError, ValueError):
        pass
