"""Work in a process of its own: started detached (:func:`start_detached`), its failures a
line in the store's ``logs/`` (:func:`log_to_store`), since nobody reads its output.

The hooks hand slow work to such processes (filing captures, syncing, an LLM session
summary), and the CLI hands them the embedding of new notes; each starts them the same
way: its own session (it outlives the terminal or the Claude Code session that started
it), no terminal, the store named by ``ANAMNESIS_HOME`` and the rest of the environment
carried over (the model settings, the remote).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

from anamnesis.store.files.layout import StoreLayout


def start_detached(home: Path, module: str, *args: str) -> int:
    """Start ``python -m module *args`` for the store at ``home``, not waited for; its pid."""
    options: dict[str, object] = {}
    if sys.platform == "win32":  # pragma: no cover - Windows only
        options["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        options["start_new_session"] = True
    process = subprocess.Popen(
        [sys.executable, "-m", module, *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        env={**os.environ, "ANAMNESIS_HOME": str(home)},
        **options,  # type: ignore[call-overload]
    )
    pid: int = process.pid
    return pid


def log_to_store(logger: logging.Logger, home: Path, file_name: str) -> None:
    """Send ``logger``'s records (INFO and up) to ``logs/<file_name>`` of the store at
    ``home``. A store whose logs folder cannot be made keeps the logger as it was: the
    process's work matters more than its log."""
    folder = StoreLayout(home).logs_dir
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(folder / file_name, encoding="utf-8")
    except OSError:
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
