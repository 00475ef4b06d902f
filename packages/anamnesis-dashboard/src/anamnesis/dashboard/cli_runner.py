"""Running the ``anamnesis`` command for what only the CLI knows: one sync cycle (import
of Claude Code's memory, masking of outgoing secrets, commit, pull, push, reindex: one rule,
kept in one place) and doctor's checks. The dashboard never imports the CLI; it runs it, as
a person would, and shows what it said."""

from __future__ import annotations

import asyncio
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SYNC_TIMEOUT_S = 300.0
DOCTOR_TIMEOUT_S = 60.0
DOCTOR_FRESH_S = 60.0  # the status panel shows doctor's last answer for this long
CLI_MISSING = (
    "the anamnesis CLI is not installed with this dashboard: install the dashboard as the "
    "CLI's extra, anamnesis-memory[dashboard], from a checkout or its wheels (the package "
    "index's anamnesis-memory is an older, incompatible release)"
)


@dataclass(frozen=True, slots=True)
class CliAnswer:
    code: int
    data: dict[str, Any] | None  # the command's --json output, when it printed any
    error: str  # its stderr's last lines, or why it could not run


async def run_cli(
    cli: tuple[str, ...] | None, args: list[str], home: Path, timeout_s: float
) -> CliAnswer:
    """Run ``anamnesis ARGS --json`` against ``home``; never raises."""
    if cli is None:
        return CliAnswer(127, None, CLI_MISSING)
    env = {**os.environ, "ANAMNESIS_HOME": str(home), "NO_COLOR": "1"}
    try:
        proc = await asyncio.create_subprocess_exec(
            *cli, *args, "--json",
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
        )  # fmt: skip
    except OSError as exc:
        return CliAnswer(127, None, f"could not run {' '.join(cli)}: {exc.strerror or exc}")
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout_s)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return CliAnswer(124, None, f"`anamnesis {args[0]}` took longer than {timeout_s:.0f} s")
    try:
        data = json.loads(out) if out.strip() else None
    except json.JSONDecodeError:
        data = None
    lines = err.decode("utf-8", "replace").strip().splitlines()
    return CliAnswer(proc.returncode or 0, data if isinstance(data, dict) else None,
                     "\n".join(lines[-5:]))  # fmt: skip


@dataclass
class DoctorCache:
    """doctor's last answer and when it came: the status panel is on every list page and
    doctor takes a second or two."""

    answer: CliAnswer | None = None
    at: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    async def checks(
        self, cli: tuple[str, ...] | None, home: Path, *, fresh: bool = False
    ) -> CliAnswer:
        async with self.lock:
            if fresh or self.answer is None or time.monotonic() - self.at > DOCTOR_FRESH_S:
                self.answer = await run_cli(cli, ["doctor", "--offline"], home, DOCTOR_TIMEOUT_S)
                self.at = time.monotonic()
            return self.answer
