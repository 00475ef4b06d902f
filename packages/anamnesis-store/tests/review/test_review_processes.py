"""A review's second process (review/processes/: pair_batch.py, pair_spawn.py): a real review
with more pairs than a second process is started for finds the same pairs whether they
are compared in a fork (no other thread running), in a new interpreter (another thread
running: no fork), or in its own process only (ANAMNESIS_REVIEW_PROCESSES=1, which starts
no process at all, with or without another thread). Each review runs in a fresh
interpreter that only reads the store (this test process has the store's flushing thread
once it wrote a note); the processes it starts are counted there through the
interpreter's audit events (``os.fork``, ``subprocess.Popen``, ``os.posix_spawn``), which
every way of starting one raises."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from anamnesis.store import Memory, MemoryStore, new_id
from anamnesis.store.review.compare import differences
from anamnesis.store.review.processes import pair_batch
from anamnesis.store.review.processes.pair_batch import (
    PROCESSES_ENV,
    SPLIT_AT,
    _plain,
    _projects,
    _Queue,
)
from anamnesis.store.review.processes.pair_spawn import SpawnedProcess
from anamnesis.store.review.reading.facts import NoteFacts

# A review in a fresh interpreter: the memo removed (every pair compared), the processes
# started during it counted, what it found and how many pairs it compared printed.
_REVIEW = """
import json, os, sys, threading
from pathlib import Path
if sys.argv[2] == "thread":  # a long-running process's other thread (the MCP server's)
    threading.Thread(target=threading.Event().wait, daemon=True).start()
started = []
sys.addaudithook(
    lambda event, _args: started.append(event)
    if event in ("os.fork", "os.forkpty", "subprocess.Popen", "os.posix_spawn", "os.spawn")
    else None
)
from anamnesis.store import MemoryStore
from anamnesis.store.review.processes.pair_batch import _may_fork
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


def _example_pairs() -> list[tuple[Memory, Memory]]:
    """A pair that differs (a port) and one that does not, in each of three projects."""
    out = []
    for i in range(3):
        project = f"github.com/acme/p{i}"
        for old, new in (
            ("The exporter serves /metrics on port 9100.", "The exporter listens on :9300 now."),
            ("The database pool size is 20.", "The database pool size is 20, set in config."),
        ):
            out.append((
                Memory(id=new_id(), type="semantic", title="Exporter", body=old, project=project),
                Memory(id=new_id(), type="semantic", title="Exporter", body=new, project=project),
            ))  # fmt: skip
    return out


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


def _review(home: Path, *, processes: str | None, thread: bool = False) -> dict[str, object]:
    env = {key: value for key, value in os.environ.items() if key != PROCESSES_ENV}
    if processes is not None:
        env[PROCESSES_ENV] = processes
    done = subprocess.run(
        [sys.executable, "-c", _REVIEW, str(home), "thread" if thread else "alone"],
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
    assert usual["started"] == ["os.fork"], "without the setting, a fork compares too"
    assert usual["found"]

    alone = _review(home, processes="1")
    assert alone["started"] == []  # no process started, by any means
    assert alone["found"] == usual["found"]
    assert alone["compared"] == usual["compared"]

    alone_beside_a_thread = _review(home, processes="1", thread=True)
    assert alone_beside_a_thread["started"] == []
    assert alone_beside_a_thread["found"] == usual["found"]


def test_beside_another_thread_a_new_interpreter_compares_not_a_fork(tmp_path: Path) -> None:
    home = tmp_path / "store"
    _write_notes(home)
    usual = _review(home, processes=None)
    if not usual["may_fork"]:
        pytest.skip("no second process here (one core, or not Linux)")
    spawned = _review(home, processes=None, thread=True)
    assert spawned["may_fork"] is False  # the thread is running
    assert spawned["started"] == ["subprocess.Popen"]  # never a fork beside a thread
    assert spawned["found"] == usual["found"]
    assert spawned["compared"] == usual["compared"]


def test_a_new_interpreter_finds_what_this_process_finds_for_the_projects_it_takes() -> None:
    # This process takes no project: the new interpreter takes all three.
    pairs = [(older, newer) for older, newer in _example_pairs()]
    projects = _projects(pairs)
    expected = [
        [_plain(differences(NoteFacts(pairs[i][0]), NoteFacts(pairs[i][1]))) for i in indexes]
        for indexes in projects
    ]
    assert any(any(each) for each in expected)  # some pairs differ
    with _Queue(len(projects)) as queue:
        second = SpawnedProcess(
            f"{pair_batch.__name__}:_serve_spawned", queue.fd, (projects, pairs)
        )
        answered = second.answer()
    assert second.pid == -1  # ended and reaped
    assert isinstance(answered, dict)
    assert {
        project: [list(map(tuple, each)) for each in found] for project, found in answered.items()
    } == {project: [list(each) for each in found] for project, found in enumerate(expected)}


def test_a_new_interpreter_that_fails_or_is_stopped_answers_nothing() -> None:
    with _Queue(1) as queue:
        broken = SpawnedProcess(f"{pair_batch.__name__}:_no_such_function", queue.fd, ())
        assert broken.answer() is None
        stopped = SpawnedProcess(f"{pair_batch.__name__}:_serve_spawned", queue.fd, "not pairs")
        stopped.stop()
        assert stopped.answer() is None
