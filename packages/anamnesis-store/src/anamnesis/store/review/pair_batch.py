"""How a review compares the pairs its memo does not know: each note read once, and, when
there are many pairs and the machine has two cores to give, half the projects compared in
a second process.

A review with no memo (the first on a machine, or after the finder's rules changed) is
mostly reading notes: their clauses' values and stances, each read once a review and kept
for the note's next pair (:class:`.facts.NoteFacts`). That reading is pure computation on
notes already in memory, and two notes of different projects never form a pair
(:func:`.neighbours.may_pair`), so the projects split into two halves that share no note:
each note is still read once, by one process (the two use no more CPU than one did).
Measured on the 2,409-note store with no memo, the whole review: 3.8 s in one process,
1.9 s with a second (medians of 3, alternating). Handing the second process each
project's pairs as soon as they were found, so that it compared while this one still
looked for neighbours (a fifth of the work), was tried: no faster, and more to it.

The second process is a fork that only computes and hands back plain tuples through a
pipe; it touches no file and no database, and ends without running any clean-up
(``os._exit``). Where forking is unsafe or pointless, the pairs are compared here: not on
Linux (macOS's system libraries are not fork-safe; Windows has no fork), one core, other
threads running (a fork copies only the calling thread; whatever another holds stays held
in the child). Should the second process fail in any way, its half is compared here too:
what a review finds never depends on how it was computed.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from pathlib import Path

from anamnesis.store.review.compare import differences
from anamnesis.store.review.facts import NoteFacts
from anamnesis.store.review.records import Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.note.model import Memory

# The fewest pairs compared in two processes: below, the fork and the handing back cost
# more than half the comparing saves (a pair costs about 0.5 ms to compare, a fork of a
# review's process about 10 ms).
SPLIT_AT: Final = 400


def compare_pairs(
    pairs: list[tuple[Memory, Memory]], *, split_at: int = SPLIT_AT
) -> list[tuple[Difference, ...]]:
    """:func:`.compare.differences` of each ``(older, newer)`` pair, in order."""
    if len(pairs) < split_at or not _may_fork():
        return _compare(pairs)
    mine, theirs = _halves(pairs)
    if not mine or not theirs:
        return _compare(pairs)
    second = _SecondProcess([pairs[i] for i in theirs])
    try:
        here = _compare([pairs[i] for i in mine])
    except BaseException:
        second.stop()  # interrupted: the second process is not left behind
        raise
    answered = second.answer()
    if answered is None:  # the second process failed: its half is compared here
        answered = _compare([pairs[i] for i in theirs])
    found: list[tuple[Difference, ...]] = [()] * len(pairs)
    for indexes, differs in ((mine, here), (theirs, answered)):
        for i, found_here in zip(indexes, differs, strict=True):
            found[i] = found_here
    return found


def _compare(pairs: list[tuple[Memory, Memory]]) -> list[tuple[Difference, ...]]:
    """Each pair's differences, each note read once (its facts kept for its next pair)."""
    facts: dict[str, NoteFacts] = {}

    def of(mem: Memory) -> NoteFacts:
        found = facts.get(mem.id)
        if found is None:
            found = facts[mem.id] = NoteFacts(mem)
        return found

    return [differences(of(older), of(newer)) for older, newer in pairs]


def _halves(pairs: list[tuple[Memory, Memory]]) -> tuple[list[int], list[int]]:
    """The pairs' indexes in two halves of about as many pairs each, a project's pairs all
    in one half (so no note is read by both processes); the largest projects placed first."""
    by_project: dict[str, list[int]] = {}
    for i, (older, _newer) in enumerate(pairs):
        by_project.setdefault(older.project, []).append(i)
    halves: tuple[list[int], list[int]] = ([], [])
    for _project, indexes in sorted(by_project.items(), key=lambda item: -len(item[1])):
        smaller = halves[0] if len(halves[0]) <= len(halves[1]) else halves[1]
        smaller.extend(indexes)
    return sorted(halves[0]), sorted(halves[1])


def _may_fork() -> bool:
    """Whether a second process may compare: on Linux, with two cores for this process,
    and no other thread running in it (a library's own threads too: Linux lists them all
    under /proc/self/task)."""
    if not sys.platform.startswith("linux") or not hasattr(os, "fork"):
        return False
    try:
        threads = sum(1 for _thread in Path("/proc/self/task").iterdir())
        return len(os.sched_getaffinity(0)) >= 2 and threads == 1
    except OSError:
        return False


class _SecondProcess:
    """A forked process comparing ``pairs``: its answer is their differences in order, or
    None when it could not be started or failed."""

    __slots__ = ("_count", "_pid", "_read_end")

    def __init__(self, pairs: list[tuple[Memory, Memory]]) -> None:
        self._count = len(pairs)
        self._pid = -1
        self._read_end: int | None = None
        try:
            read_end, write_end = os.pipe()
        except OSError:
            return
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            return
        if pid == 0:  # the second process: compare, hand back, end without any clean-up
            status = 1
            try:
                os.close(read_end)
                plain = [_plain(differs) for differs in _compare(pairs)]
                with os.fdopen(write_end, "wb") as out:
                    out.write(pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL))
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self._pid, self._read_end = pid, read_end

    @property
    def pid(self) -> int:
        """The process's id (-1: none was started)."""
        return self._pid

    def answer(self) -> list[tuple[Difference, ...]] | None:
        """The differences the process found (it has ended when this returns)."""
        if self._read_end is None:
            return None
        try:
            with os.fdopen(self._read_end, "rb") as answer:
                data = answer.read()
        finally:
            self._read_end = None
            status = _reap(self._pid)
        if status != 0:
            return None
        try:
            plain = pickle.loads(data)  # written by our own fork, just now
        except Exception:  # a half-written answer is no answer
            return None
        if not isinstance(plain, list) or len(plain) != self._count:
            return None
        return [tuple(Difference(*item) for item in differs) for differs in plain]

    def stop(self) -> None:
        """End the process without its answer."""
        if self._read_end is None:
            return
        os.close(self._read_end)
        self._read_end = None
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # reaped already, by whoever reaps every child
        _reap(self._pid)


def _reap(pid: int) -> int:
    """Wait for the process to end: its status (0: it ended well), or 0 when another part
    of the program reaped it first (a SIGCHLD handler that reaps every child): what it
    wrote is then checked on its own."""
    try:
        return os.waitpid(pid, 0)[1]
    except ChildProcessError:
        return 0


def _plain(differs: tuple[Difference, ...]) -> list[tuple[str, str, str, str]]:
    return [(d.kind, d.subject, d.old, d.new) for d in differs]
