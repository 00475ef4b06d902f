"""A benchmark's child process as users meet it: timed as a whole, with its peak memory.

Shared by the sync-at-scale benchmarks (``scale_bench.py``, ``fleet.py``), so both measure
a process the same way: wall time from start to exit, peak RSS from ``wait4`` (the child's
own, not this process's), and its output kept for the caller to read.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# As users run it: bytecode cached after the first run (not every import compiled again).
# The development environment sets PYTHONDONTWRITEBYTECODE=1, which would make every child
# compile its imports again (about 0.25 s a start).
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def running(code: Path) -> dict[str, str]:
    """The environment of a child that runs the checkout at ``code`` (its packages first),
    so that two checkouts can be measured side by side from one virtualenv."""
    paths = [str(p) for p in sorted((code / "packages").glob("*/src"))]
    return {**BASE_ENV, "PYTHONPATH": os.pathsep.join(paths)}


@dataclass(frozen=True, slots=True)
class Ran:
    """One finished child: exit code, wall time, peak RSS and what it printed."""

    code: int
    seconds: float
    rss_mb: float
    out: str
    err: str

    def last_error_line(self) -> str:
        """The last line of stderr when the child failed, else empty."""
        lines = self.err.strip().splitlines()
        return lines[-1] if self.code != 0 and lines else ""


def run_measured(args: list[str], env: dict[str, str], cwd: Path | None = None) -> Ran:
    """Run ``args`` to completion; never raises on a non-zero exit (the caller judges).

    Output goes to temporary files, not pipes: the child is reaped by ``wait4`` (which
    gives its peak RSS), so nothing may wait on it first, and a pipe left unread could
    fill and block a chatty child."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        child = subprocess.Popen(args, env=env, cwd=cwd, stdout=out, stderr=err)
        _pid, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - started
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        return Ran(
            code=child.returncode,
            seconds=seconds,
            rss_mb=usage.ru_maxrss / 1024,
            out=out.read().decode(errors="replace"),
            err=err.read().decode(errors="replace"),
        )
