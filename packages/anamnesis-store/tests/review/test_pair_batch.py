"""A review's pairs compared together (review/processes/pair_batch.py): in two processes,
each pair's differences are what one process finds, in the pairs' order, whichever process
took each project; each project is taken by one process; a second process that fails or is
stopped leaves no process behind. A second process is started only where no other thread runs,
and a test process has the store's flushing thread once any test wrote a note: those
checks run in a fresh interpreter."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from anamnesis.store import Memory, new_id
from anamnesis.store.review.compare import differences
from anamnesis.store.review.processes.pair_batch import (
    _may_fork,
    _Queue,
    _SecondProcess,
    compare_pairs,
)
from anamnesis.store.review.reading.facts import NoteFacts
from anamnesis.store.review.records import Difference
from pair_checks import Note


def _in_a_fresh_process(check: str) -> None:
    """Run ``check`` (a function of this module) in a fresh interpreter; skipped where
    that one starts no second process either (one core, not Linux): the check would pass
    without one."""
    here = Path(__file__).resolve().parent
    code = (
        f"import sys; sys.path[:0] = [{str(here)!r}, {str(here.parent)!r}]\n"
        f"import test_pair_batch\nprint(test_pair_batch.{check}())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    if done.stdout.strip().endswith("no second process here"):
        pytest.skip("no second process here")
    assert done.stdout.strip().endswith("checked"), done.stdout[-2000:]


# (older, newer): pairs that differ (a port, a version, a command, a negation) and pairs
# that do not (the same value restated, two scopes, two things).
EXAMPLES: list[tuple[Note, Note]] = [
    (("Metrics port", "The exporter serves /metrics on port 9100."),
     ("Metrics port changed", "The exporter listens on :9300 now.")),
    (("Python version", "The service runs on Python 3.10."),
     ("Python version", "The service runs on Python 3.12 since the upgrade.")),
    (("Running the tests", "Run the tests with `make test`."),
     ("Running the tests", "Run the tests with `just test` now; `make test` is gone.")),
    (("Deploys", "Deploy on Fridays after the release review."),
     ("Deploys", "Never deploy on Fridays.")),
    (("Pool size", "The database pool size is 20."),
     ("Pool size", "The database pool size is 20, set in config.")),
    (("Pool size per environment", "In production the pool size is 50."),
     ("Pool size in staging", "In staging the pool size is 10.")),
    (("Orders table retention", "The orders table keeps 90 days of rows."),
     ("Customers table retention", "The customers table keeps 30 days of rows.")),
    (("Upload limit", "Uploads are limited to 10 MB."),
     ("Upload limit", "Uploads are limited to 25 MB now.")),
]  # fmt: skip


def _note(note: Note, project: str) -> Memory:
    title, body = note
    return Memory(id=new_id(), type="semantic", title=title, body=body, project=project)


def _pairs() -> list[tuple[Memory, Memory]]:
    """Each example in one of three projects in turn (so both halves hold pairs that
    differ and pairs that do not)."""
    return [
        (_note(old, f"github.com/acme/p{i % 3}"), _note(new, f"github.com/acme/p{i % 3}"))
        for i, (old, new) in enumerate(EXAMPLES)
    ]


def _shown(found: list[tuple[Difference, ...]]) -> list[list[tuple[str, str, str, str]]]:
    return [[(d.kind, d.subject, d.old, d.new) for d in differs] for differs in found]


def _one_by_one(pairs: list[tuple[Memory, Memory]]) -> list[tuple[Difference, ...]]:
    return [differences(NoteFacts(older), NoteFacts(newer)) for older, newer in pairs]


def test_two_processes_find_what_one_finds_in_the_pairs_order() -> None:
    _in_a_fresh_process("_two_processes_find_what_one_finds")


def _two_processes_find_what_one_finds() -> str:
    if not _may_fork():
        return "no second process here"
    pairs = _pairs()
    expected = _shown(_one_by_one(pairs))
    assert any(expected) and not all(expected)  # some pairs differ, some do not
    assert _shown(compare_pairs(pairs, split_at=1)) == expected
    assert _shown(compare_pairs(pairs)) == expected  # fewer than SPLIT_AT: in this process
    return "checked"


def test_each_project_is_taken_by_one_process_and_every_one_is() -> None:
    _in_a_fresh_process("_each_project_taken_once")


def _each_project_taken_once() -> str:
    if not _may_fork():
        return "no second process here"
    with _Queue(500) as queue:

        def take_all() -> list[int]:
            taken = []
            while (project := queue.take()) is not None:
                taken.append(project)
                time.sleep(0.0005)  # as comparing would: the other process takes its turn
            return taken

        second = _SecondProcess(take_all)
        here = take_all()
    there = second.answer()
    assert isinstance(there, list) and here and there  # both took some
    assert sorted(here + there) == list(range(500))  # each once, all of them
    return "checked"


def test_a_second_process_that_fails_or_is_stopped_is_reaped() -> None:
    _in_a_fresh_process("_failed_and_stopped_processes_are_reaped")


def _failed_and_stopped_processes_are_reaped() -> str:
    if not _may_fork():
        return "no second process here"
    broken = _SecondProcess(lambda: 1 // 0)
    stopped = _SecondProcess(lambda: time.sleep(60))
    assert broken.pid > 0 and stopped.pid > 0
    stopped.stop()
    assert broken.answer() is None
    assert stopped.answer() is None
    for pid in (broken.pid, stopped.pid):
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped: no process left behind
    return "checked"


def test_no_second_process_while_another_thread_runs() -> None:
    _in_a_fresh_process("_no_second_process_beside_a_thread")


def _no_second_process_beside_a_thread() -> str:
    if not _may_fork():
        return "no second process here"
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert not _may_fork()  # a fork copies only this thread: what the other holds stays held
    finally:
        stop.set()
        other.join()
    return "checked"
