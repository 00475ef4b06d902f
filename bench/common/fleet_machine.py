"""One computer of a fleet benchmark (``bench.scale.fleet``, ``bench.scale.team_fleet``):
its own ``ANAMNESIS_HOME``, ``HOME``, Claude Code folder and machine id, and the
`anamnesis` command run there as a real process, timed with its peak RSS.

Each bench adds what its machines have of their own (fleet's remote from the environment,
team fleet's personal remote and team mirror) in a subclass.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common.processes import Ran, run_measured, running


@dataclass(frozen=True, slots=True)
class FleetMachine:
    """A machine: its name (also its machine id), the folder everything of it lives in,
    and the checkout whose packages it runs."""

    name: str
    root: Path
    code: Path

    @property
    def home(self) -> Path:
        return self.root / "anamnesis"

    @property
    def memory(self) -> Path:
        return self.home / "memory"

    def env(self) -> dict[str, str]:
        """The environment of its commands: none of the bench's own ``ANAMNESIS_*``
        settings, its folders, and keyword search (no embedding model loads: vectors are
        not what a fleet measures)."""
        base = running(self.code)
        inherited = {k: v for k, v in base.items() if not k.startswith("ANAMNESIS_")}
        return {
            **inherited,
            "HOME": str(self.root / "user"),
            "ANAMNESIS_HOME": str(self.home),
            "ANAMNESIS_MACHINE_ID": self.name,
            "CLAUDE_CONFIG_DIR": str(self.root / "claude"),
            "ANAMNESIS_SEARCH_MODE": "keyword",
        }

    def cli(self, *args: str) -> Ran:
        """`anamnesis <args>` on this machine, measured; never raises (the caller judges)."""
        return run_measured([sys.executable, "-m", "anamnesis.cli", *args], self.env())

    def must(self, *args: str) -> Ran:
        """A set-up step that has to work: a failure stops the run, with its error."""
        ran = self.cli(*args)
        if ran.code != 0:
            raise RuntimeError(f"{self.name}: `anamnesis {' '.join(args)}` exited "
                               f"{ran.code}: {ran.err[-800:]}")  # fmt: skip
        return ran

    def cli_json(self, *args: str) -> Any:
        """`anamnesis <args>`'s JSON output; a failed command raises, with its error."""
        ran = self.cli(*args)
        if ran.code != 0:
            raise RuntimeError(f"`anamnesis {' '.join(args)}` exited {ran.code}: "
                               f"{ran.err[-500:]}")  # fmt: skip
        return json.loads(ran.out)
