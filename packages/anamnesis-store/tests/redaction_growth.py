"""How redaction's cost grows with its input, for the tests that guard against a pattern
that backtracks (quadratic or worse on a crafted note).

Measured as CPU time of a child process, not wall time: on a shared 2-core machine other
processes stretch wall time at random, while the CPU time a regex spends is its own. The
child has a deadline, so a catastrophic pattern fails the test instead of hanging the run.
The verdict is a ratio between two sizes (linear: x2 for twice the text, quadratic: x4),
never an absolute duration, so a slower machine does not fail it.
"""

from __future__ import annotations

import json
import subprocess
import sys

TIMER = """
import json, sys, time
from anamnesis.store.secrets.redact import redact_secrets
units, sizes, repeats = json.loads(sys.stdin.read())
out = {}
for unit in units:
    took = []
    for n in sizes:
        text = (unit * (n // len(unit) + 1))[:n]
        best = float("inf")
        for _ in range(repeats):
            started = time.process_time()
            redact_secrets(text)
            best = min(best, time.process_time() - started)
        took.append(best)
    out[unit] = took
print(json.dumps(out))
"""


def cpu_seconds(
    units: list[str], sizes: tuple[int, int], *, repeats: int = 2, deadline_s: float = 300
) -> dict[str, tuple[float, float]]:
    """For each unit repeated to each of the two sizes: the best CPU seconds of
    ``repeats`` redactions."""
    done = subprocess.run(
        [sys.executable, "-c", TIMER],
        input=json.dumps([units, list(sizes), repeats]),
        capture_output=True,
        text=True,
        timeout=deadline_s,
        check=True,
    )
    measured: dict[str, list[float]] = json.loads(done.stdout)
    return {unit: (small, large) for unit, (small, large) in measured.items()}


def superlinear(
    timings: dict[str, tuple[float, float]], *, growth: float, floor_s: float
) -> dict[str, tuple[float, float]]:
    """The units whose cost grew more than ``growth`` times between the two sizes, among
    those that took at least ``floor_s`` at the larger (below that, timer resolution and
    cache effects dominate and a linear pattern can show any ratio)."""
    return {
        unit: (round(small, 3), round(large, 3))
        for unit, (small, large) in timings.items()
        if large >= floor_s and large > growth * max(small, 1e-6)
    }
