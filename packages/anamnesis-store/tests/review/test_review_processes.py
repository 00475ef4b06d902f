"""ANAMNESIS_REVIEW_PROCESSES=1 (review/pair_batch.py): a real review with more pairs than
a second process is started for compares them all in its own process, and finds what a
review with a second process finds. Each review runs in a fresh interpreter that only
reads the store (this test process has the store's flushing thread once it wrote a note,
and no second process is started beside another thread); the processes it starts are
counted there through the interpreter's audit events (``os.fork``, ``subprocess.Popen``,
``os.posix_spawn``), which every way of starting one raises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.review.pair_batch import PROCESSES_ENV, SPLIT_AT

# A review in a fresh interpreter: the memo removed (every pair compared), the processes
# started during it counted, what it found and how many pairs it compared printed.
_REVIEW = """
import json, os, sys
from pathlib import Path
started = []
sys.addaudithook(
    lambda event, _args: started.append(event)
    if event in ("os.fork", "os.forkpty", "subprocess.Popen", "os.posix_spawn", "os.spawn")
    else None
)
from anamnesis.store import MemoryStore
from anamnesis.store.review.pair_batch import _may_fork
from anamnesis.store.review.pair_memo import MEMO_FILE
home = Path(sys.argv[1])
(home / "cache" / MEMO_FILE).unlink(missing_ok=True)
with MemoryStore(home) as store:
    store.count()
    may_fork = _may_fork()
    found = [
        [pair.older.id, pair.newer.id, [[d.kind, d.subject, d.old, d.new] for d in pair.differs]]
        for pair in store.contradictions()
    ]
compared = len(json.loads((home / "cache" / MEMO_FILE).read_text())["pairs"])
print(json.dumps({"may_fork": may_fork, "started": started, "found": found,
                  "compared": compared}))
"""

_THINGS = ("worker", "gateway", "exporter", "scheduler", "indexer", "mailer", "uploader")


def _write_notes(home: Path) -> None:
    """Notes on a few services' ports, many of each, in three projects: each note's
    neighbours are the other notes on its service, and their ports differ."""
    with MemoryStore(home) as store:
        for i in range(330):
            thing = _THINGS[i % len(_THINGS)]
            store.write(
                type="semantic",
                title=f"The {thing} port",
                body=f"The {thing} listens on port {9000 + i} (set in deploy/{thing}-{i}.yaml).",
                project=f"github.com/acme/p{i % 3}",
            )


def _review(home: Path, *, processes: str | None) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != PROCESSES_ENV}
    if processes is not None:
        env[PROCESSES_ENV] = processes
    done = subprocess.run(
        [sys.executable, "-c", _REVIEW, str(home)],
        capture_output=True, text=True, timeout=300, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(got, dict)
    return got


def test_one_process_compares_every_pair_here_and_finds_the_same(tmp_path: Path) -> None:
    home = tmp_path / "store"
    _write_notes(home)
    usual = _review(home, processes=None)
    if not usual["may_fork"]:
        pytest.skip("no second process here (one core, or not Linux)")
    assert isinstance(usual["compared"], int) and usual["compared"] >= SPLIT_AT
    assert usual["started"], "without the setting, a second process compares"
    assert usual["found"]

    alone = _review(home, processes="1")
    assert alone["started"] == []  # no process started, by any means
    assert alone["found"] == usual["found"]
    assert alone["compared"] == usual["compared"]
