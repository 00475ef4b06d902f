"""What the hook benchmarks share: a store of corpus notes written by the Python under
test, a git checkout of one corpus project, the hook commands (ours and the published
release's), and one hook process timed with its peak memory.

Used by ``bench.suites``' inject, prompt, capture and MCP benchmarks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

PROJECT_REMOTE = "git@github.com:acme/payments-api.git"
WRITE_NOTES = """
import json, sys
from anamnesis.store import MemoryStore
store = MemoryStore(sys.argv[1])
for line in open(sys.argv[2]):
    n = json.loads(line)
    store.write(type=n["type"], title=n["title"], body=n["body"], project=n["project"],
                tags=n["tags"], machine_id="bench")
store.close()
"""


def ours_command() -> list[str]:
    script = shutil.which("anamnesis-hook", path=str(Path(sys.executable).parent))
    return [script, "inject"] if script else [sys.executable, "-m", "anamnesis.hooks", "inject"]


def published_command(python: str) -> list[str]:
    return [str(Path(python).parent / "anamnesis"), "inject"]


def checkout(root: Path) -> Path:
    work = root / "payments-api"
    (work / ".git").mkdir(parents=True)
    (work / ".git" / "config").write_text(f'[remote "origin"]\n\turl = {PROJECT_REMOTE}\n')
    return work


def timed_run(command: list[str], home: Path, stdin: bytes) -> tuple[float, int, bytes]:
    """Wall seconds, peak RSS in KB and stdout of one process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["ANAMNESIS_HOME"] = str(home)
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(stdin)
    process.stdin.close()
    out = process.stdout.read()
    # Reap the child ourselves: wait4 reports that one process's peak memory.
    _pid, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    process.stdout.close()
    return elapsed, usage.ru_maxrss, out


def build_store(python: str, home: Path, notes: Path) -> None:
    env = {**os.environ, "ANAMNESIS_HOME": str(home)}
    subprocess.run([python, "-c", WRITE_NOTES, str(home), str(notes)], check=True, env=env)
