"""Slow work leaves the hook: a sync runs as a detached process the hook does not wait for.

SessionEnd hooks get about 1.5 s; a sync talks to the network. The child gets its own
session (it survives Claude Code closing) and no terminal; its failures go to the log.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def start_background_sync(home: Path) -> int:
    """Start ``python -m anamnesis.hooks sync`` detached; return its pid."""
    env = {**os.environ, "ANAMNESIS_HOME": str(home)}
    options: dict[str, object] = {}
    if sys.platform == "win32":  # pragma: no cover - Windows only
        options["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        options["start_new_session"] = True
    process = subprocess.Popen(
        [sys.executable, "-m", "anamnesis.hooks", "sync", "--quiet"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        env=env,
        **options,  # type: ignore[call-overload]
    )
    pid: int = process.pid
    return pid
