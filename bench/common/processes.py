"""A benchmark's child process as users meet it: timed as a whole, with its peak memory.

Shared by the benchmarks at scale (``bench.scale``: ``scale_bench``, ``fleet``,
``store_scale_bench``), so all measure a process the same way: wall time from start to
exit, peak RSS from ``wait4``, and its output kept for the caller to read.

The child is started by a small launcher process, which times it and reads its peak RSS.
On Linux a process's ``ru_maxrss`` starts at the high-water mark of the process that forked
it (the kernel carries the old memory's peak across ``exec``): started straight from a
bench that had just parsed 50 MB of JSON, an `anamnesis list` reported 254 MB where it used
72. Forked from the launcher (about 10 MB), a child reports its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

# Runs argv[2:], then writes "<seconds> <peak RSS KB> <exit code>" to the file argv[1].
_LAUNCHER = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:])
_pid, status, usage = os.wait4(child.pid, 0)
seconds = time.perf_counter() - started
with open(sys.argv[1], "w") as report:
    report.write(f"{seconds} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""

# As users run it: bytecode cached after the first run (not every import compiled again).
# The development environment sets PYTHONDONTWRITEBYTECODE=1, which would make every child
# compile its imports again (about 0.25 s a start).
BASE_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def running(code: Path) -> dict[str, str]:
    """The environment of a child that runs the checkout at ``code`` (its packages first),
    so that two checkouts can be measured side by side from one virtualenv."""
    paths = [str(p) for p in sorted((code / "packages").glob("*/src"))]
    return {**BASE_ENV, "PYTHONPATH": os.pathsep.join(paths)}


def driver(name: str, *, python: str = sys.executable, flags: Sequence[str] = ()) -> list[str]:
    """The command that runs the driver ``bench.common.<name>`` under ``python``.

    Start it with ``cwd=places.REPO``: ``python -m`` puts its working directory first on the path,
    which is where it finds the ``bench`` package, so neither side edits ``sys.path``, and
    the driver runs the same under another venv's Python (the published release's)."""
    return [python, *flags, "-m", f"bench.common.{name}"]


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

    Output goes to temporary files, not pipes: a pipe left unread could fill and block a
    chatty child."""
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        tempfile.TemporaryDirectory(prefix="bench-launch-") as folder,
    ):
        report = Path(folder) / "report"
        launched = [sys.executable, "-c", _LAUNCHER, str(report), *args]
        subprocess.run(launched, env=env, cwd=cwd, stdout=out, stderr=err, check=False)
        seconds, rss_kb, code = report.read_text().split()
        out.seek(0)
        err.seek(0)
        return Ran(
            code=int(code),
            seconds=float(seconds),
            rss_mb=int(rss_kb) / 1024,
            out=out.read().decode(errors="replace"),
            err=err.read().decode(errors="replace"),
        )
