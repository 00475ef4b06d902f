"""Helpers for the hooks tests: real hook processes, fake checkouts, synthetic transcripts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from anamnesis_testsupport import TRANSCRIPTS
from anamnesis_testsupport.checkouts import checkout as checkout  # the hooks' tests use it

HOOK = shutil.which("anamnesis-hook", path=str(Path(sys.executable).parent))


def hook_command() -> list[str]:
    """The installed hook entry point (console script), or ``python -m`` as a fallback."""
    return [HOOK] if HOOK else [sys.executable, "-m", "anamnesis.hooks"]


def run_hook(
    *args: str, stdin: dict[str, Any] | str | bytes | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run a hook as Claude Code does: a process, hook JSON on stdin, the test's env."""
    if isinstance(stdin, dict):
        data = json.dumps(stdin).encode()
    elif isinstance(stdin, str):
        data = stdin.encode()
    else:
        data = stdin or b""
    done = subprocess.run(
        [*hook_command(), *args],
        input=data,
        capture_output=True,
        timeout=timeout,
        env=dict(os.environ),
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
    )


def captures_filed(home: Path | None = None, timeout: float = 60) -> None:
    """Wait until the background worker has filed every capture queued in ``home`` (the
    test's store by default): the capture hook returns before its note is in the store."""
    from anamnesis.hooks.capture_queue import queued_captures
    from anamnesis.store import resolve_home

    home = home or resolve_home()
    deadline = time.monotonic() + timeout
    while queued_captures(home):
        if time.monotonic() > deadline:
            log = home / "logs" / "hooks.log"
            raise AssertionError(
                f"captures still queued after {timeout} s: {queued_captures(home)}; the log says:\n"
                + (log.read_text() if log.exists() else "nothing")
            )
        time.sleep(0.05)


def transcript(path: Path, records: list[dict[str, Any] | str]) -> Path:
    """Write a JSONL transcript; strings are written as they are (for garbage lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def user(text: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "message": {"role": "user", "content": text}, **extra}


def assistant(
    blocks: list[dict[str, Any]], message_id: str = "msg_1", **extra: Any
) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {"id": message_id, "role": "assistant", "content": blocks},
        **extra,
    }


def fixture(name: str) -> Path:
    return TRANSCRIPTS / name
