"""The detached work hooks leave behind (a capture's worker filing its queued note, the
async sync), found by the ``ANAMNESIS_HOME`` in its environment: a run waits for it before
checking what landed, or before removing the store it works on.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def processes_of(home: Path) -> list[int]:
    """Pids of the processes working on the store at ``home`` (their ANAMNESIS_HOME says
    so): the detached work the hooks left running. Linux only; elsewhere, none found."""
    wanted = f"ANAMNESIS_HOME={home}".encode()
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            variables = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if wanted in variables and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def wait_for_detached(home: Path, deadline_s: float) -> float:
    """Wait until no process works on ``home`` any more; return how long that took."""
    started = time.monotonic()
    while processes_of(home) and time.monotonic() - started < deadline_s:
        time.sleep(0.2)
    return time.monotonic() - started
