"""The checks the status panel shows, and their last answer.

Whoever starts the dashboard says which checks (:data:`CheckRunner`): ``anamnesis
dashboard`` hands over the CLI's whole doctor (the installation, config, hooks, MCP and
vectors besides the home), ``python -m anamnesis.dashboard`` shows ops' checks of the home
(``anamnesis.ops.home_checks``). Either is a call in this process, never another program:
it runs in a worker thread (the checks open the store and read files for a second or two,
and the pages keep being served meanwhile) and its answer is kept a minute, since the
list page's status line counts them on every load.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from anamnesis.ops import Check

DOCTOR_FRESH_S = 60.0  # the status panel shows the checks' last answer for this long

CheckRunner = Callable[[], Sequence[Check]]  # every check, in the order shown


@dataclass(frozen=True, slots=True)
class Checked:
    checks: Sequence[Check]
    error: str  # why there are no checks to show (the runner itself failed), else ""


@dataclass
class DoctorCache:
    """The checks' last answer and when it came."""

    run: CheckRunner
    answer: Checked | None = None
    at: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def checks(self, *, fresh: bool = False) -> Checked:
        async with self.lock:
            if fresh or self.answer is None or time.monotonic() - self.at > DOCTOR_FRESH_S:
                self.answer = await asyncio.to_thread(self._run)
                self.at = time.monotonic()
            return self.answer

    def _run(self) -> Checked:
        try:
            return Checked(list(self.run()), "")
        except Exception as exc:  # each check is fail-safe; this is the runner failing
            return Checked([], f"{type(exc).__name__}: {exc}")
