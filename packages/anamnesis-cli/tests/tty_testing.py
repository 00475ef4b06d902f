"""A real `anamnesis` process drawing on a pseudo-terminal of a given size, as a person's
terminal window: stdout is the terminal (its width is the window's, no COLUMNS), stderr a
pipe kept apart, stdin closed."""

from __future__ import annotations

import re
import subprocess
import unicodedata
from dataclasses import dataclass

from cli_testing import Env, anamnesis_script, pseudo_terminal

_SGR = re.compile(r"\x1b\[[0-9;]*m")
ULID = re.compile(r"\b[0-7][0-9A-HJKMNP-TV-Z]{25}\b")


@dataclass
class Screen:
    code: int
    raw: str  # what the terminal received, escapes and all (its \r\n made \n)
    err: str

    @property
    def text(self) -> str:
        """What a person reads: the colours taken out."""
        return _SGR.sub("", self.raw)

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


def on_terminal(env: Env, *args: str, columns: int = 80, **variables: str) -> Screen:
    """Run ``anamnesis *args`` with stdout on a terminal ``columns`` wide."""
    environment = {
        k: v for k, v in env.environment().items() if k not in ("COLUMNS", "LINES", "NO_COLOR")
    }
    with pseudo_terminal(columns) as (terminal, received):
        done = subprocess.run(
            [*anamnesis_script(), *args],
            stdin=subprocess.DEVNULL,
            stdout=terminal,
            stderr=subprocess.PIPE,
            env={**environment, "TERM": "xterm-256color", **variables},
            cwd=env.root,
            timeout=120,
            check=False,
        )
    raw = b"".join(received).decode("utf-8", "replace").replace("\r\n", "\n")
    return Screen(done.returncode, raw, done.stderr.decode())


def cells(line: str) -> int:
    """Terminal cells a line takes (wide East Asian characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)
