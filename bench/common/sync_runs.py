"""Notes of the corpus as files, and one sync cycle as a process: what the sync
benchmark and the runs at scale (``scale_bench``, ``fleet``) share.

The sync child runs the checkout it is given (``running(code)``: its packages first on
the path) under an open-file limit, and prints its sync's time and its own peak RSS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from anamnesis.store import Memory, new_id, serialize_note
from bench.common import corpus
from bench.common.processes import running


def write_notes(folder: Path, count: int, start: int = 0) -> None:
    """``count`` notes of the corpus (from ``start``, so later calls add new ones) as note
    files under ``folder``, one subfolder per type, as a store lays them out."""
    for index, note in enumerate(corpus.generate(count, seed=start + 11)):
        mem = Memory(
            id=new_id(), type=note.type, title=note.title, body=note.body,
            project=note.project, tags=note.tags, machine_id="bench",
            created_at="2026-01-01T00:00:00+00:00", updated_at="2026-01-01T00:00:00+00:00",
        )  # fmt: skip
        path = folder / mem.type / f"{mem.id}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(serialize_note(mem), encoding="utf-8")
        del index


# The child: limit open files, run one sync cycle, print its time and peak RSS.
CHILD = """
import json, resource, sys, time
limit = int(sys.argv[3])
if limit:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
from anamnesis.sync import GitSyncBackend
backend = GitSyncBackend(sys.argv[1], remote=sys.argv[2], machine_id=sys.argv[4])
started = time.perf_counter()
try:
    backend.sync()
    error = ""
except OSError as exc:
    error = f"{type(exc).__name__}: {exc.strerror or exc}"
elapsed = time.perf_counter() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
try:  # this process's own high-water mark (see peak_rss_note)
    with open("/proc/self/status") as status:
        own = [int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM")]
except OSError:
    own = []
print(json.dumps({"seconds": elapsed, "rss_mb": own[0] if own else rss, "maxrss_mb": rss,
                  "error": error}))  # fmt: skip
"""


def sync_process(
    code: Path, folder: Path, remote: Path, machine: str, nofile: int = 0
) -> dict[str, object]:
    settle()
    env = running(code)
    args = [sys.executable, "-c", CHILD, str(folder), str(remote), str(nofile), machine]
    run = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return {"seconds": 0.0, "rss_mb": 0.0, "error": run.stderr.strip().splitlines()[-1]}
    result: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def settle() -> None:
    """Write out what the steps before left dirty (the notes just generated, the packs just
    pushed) before the next step starts: else the next step's file creations wait on that
    writeback (a 20,000-note pull right after its corpus was written took 13 s instead of
    3.4), and which checkout pays depends on how fast its previous step was."""
    if hasattr(os, "sync"):
        os.sync()
