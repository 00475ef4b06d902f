"""How a review compares the pairs its memo does not know: each note read once, and, when
there are many pairs and the machine has two cores to give, in two processes that take
the projects one at a time from one queue.

A review with no memo (the first on a machine, or after the finder's rules changed) is
mostly reading notes: their clauses' values and stances, each read once a review and kept
for the note's next pair (:class:`..reading.facts.NoteFacts`). That reading is pure computation on
notes already in memory, and two notes of different projects never form a pair
(:func:`..neighbours.may_pair`), so each process compares whole projects: each note is
still read once, by one process (the two use no more CPU than one did). The projects are
taken from a queue, the largest first, by whichever process is free: projects differ in
what a pair costs (by a third), so halves fixed in advance ended a quarter of a second
apart. Measured with no memo, the whole review: 2.9 s in one process, 1.8 s with a
second on 2,409 notes; 4.7 s and 3.0 s on 3,471 (medians, alternating runs). Handing
the second process each project's pairs as soon as they were found, so that it compared
while this one still looked for neighbours (a fifth of the work), was tried: no faster,
and more to it.

The second process is a fork that only computes and hands back plain data through a
pipe; it touches no file and no database, and ends without running any clean-up
(``os._exit``). Where other threads run (a fork copies only the calling thread; whatever
another holds stays held in the child: the MCP server, the dashboard), it is a new
interpreter instead (:mod:`.pair_spawn`), which takes projects once it has imported the
review's code (0.13 s). No memo, beside a thread, medians of 5 alternating runs: 3.1 s in
one process, 1.7 s with a new interpreter on 2,409 notes; 5.4 s and 3.4 s on 4,639. Where a
second process is pointless or unsafe, the pairs are compared here: not on Linux (macOS's
system libraries are not fork-safe; Windows has no fork), one core. Should the second process
fail in any way, the projects it took are compared here too: what a review finds never
depends on how it was computed. ``ANAMNESIS_REVIEW_PROCESSES=1`` keeps every comparison
in this process (:data:`PROCESSES_ENV`).
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from pathlib import Path

from anamnesis.store.review.compare import differences
from anamnesis.store.review.processes.process_answer import packed, unpacked
from anamnesis.store.review.reading.facts import NoteFacts, read_once
from anamnesis.store.review.records import Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Final

    from anamnesis.store.note.model import Memory
    from anamnesis.store.review.processes.pair_spawn import SpawnedProcess

# The fewest pairs compared in two processes: below, the fork and the handing back cost
# more than half the comparing saves (a pair costs about 0.5 ms to compare, a fork of a
# review's process about 10 ms).
SPLIT_AT: Final = 400
# Set to "1": compare in this process only, never in a second one (a machine whose other
# core is busy, a sandbox that forbids processes, a profile of one process); unset or any
# other value: a second process where one may run (:func:`_may_fork`).
PROCESSES_ENV: Final = "ANAMNESIS_REVIEW_PROCESSES"
# A project's number in the queue of projects, and how much of them a pipe surely holds.
_NUMBER: Final = struct.Struct("!I")
_PIPE_HOLDS: Final = 4096


def compare_pairs(
    pairs: list[tuple[Memory, Memory]], *, split_at: int = SPLIT_AT
) -> list[tuple[Difference, ...]]:
    """:func:`..compare.differences` of each ``(older, newer)`` pair, in order."""
    if len(pairs) < split_at or _one_process():
        return _compare(pairs)
    forks = _may_fork()
    if not forks and not _may_spawn():
        return _compare(pairs)
    projects = _projects(pairs)
    try:
        queue = _Queue(len(projects))
    except OSError:
        return _compare(pairs)
    with queue:
        second: _SecondProcess | SpawnedProcess
        if forks:
            second = _SecondProcess(lambda: _plain_found(_take(queue, projects, pairs)))
        else:
            from anamnesis.store.review.processes.pair_spawn import SpawnedProcess

            second = SpawnedProcess(f"{__name__}:_serve_spawned", queue.fd, (projects, pairs))
        try:
            found = _take(queue, projects, pairs)
        except BaseException:
            second.stop()  # interrupted: the second process is not left behind
            raise
    if len(found) == len(projects):
        # every project taken here (a new interpreter still starting): nothing to wait for
        second.stop()
        answered = None
    else:
        answered = second.answer()
    for project, plain in answered.items() if isinstance(answered, dict) else ():
        if project not in found:  # each project taken by one process (else: answer ignored)
            found[project] = [tuple(Difference(*item) for item in each) for each in plain]
    out: list[tuple[Difference, ...]] = [()] * len(pairs)
    for project, indexes in enumerate(projects):
        got = found.get(project)
        if got is None or len(got) != len(indexes):  # the second process failed
            got = _compare([pairs[i] for i in indexes])
        for i, differs in zip(indexes, got, strict=True):
            out[i] = differs
    return out


def _projects(pairs: list[tuple[Memory, Memory]]) -> list[list[int]]:
    """The pairs' indexes by project, the projects with the most pairs first (taken first,
    the last ones taken are small: the two processes end close together)."""
    by_project: dict[str, list[int]] = {}
    for i, (older, _newer) in enumerate(pairs):
        by_project.setdefault(older.project, []).append(i)
    return sorted(by_project.values(), key=lambda indexes: -len(indexes))


def _take(
    queue: _Queue, projects: list[list[int]], pairs: list[tuple[Memory, Memory]]
) -> dict[int, list[tuple[Difference, ...]]]:
    """Compare the projects this process takes from the queue, until none is left."""
    facts: dict[str, NoteFacts] = {}
    found = {}
    while (project := queue.take()) is not None:
        found[project] = [
            differences(read_once(facts, pairs[i][0]), read_once(facts, pairs[i][1]))
            for i in projects[project]
        ]
    return found


def _serve_spawned() -> None:
    """The second process as a new interpreter (:mod:`.pair_spawn`): the queue's read end
    its argument, the projects and pairs on its stdin; what it found on its stdout."""
    projects, pairs = pickle.load(sys.stdin.buffer)  # from our own parent
    with _Queue.of(int(sys.argv[1])) as queue:
        found = _plain_found(_take(queue, projects, pairs))
    sys.stdout.buffer.write(packed(found))
    sys.stdout.buffer.flush()


def _plain_found(
    found: dict[int, list[tuple[Difference, ...]]],
) -> dict[int, list[list[tuple[str, str, str, str]]]]:
    return {project: [_plain(differs) for differs in each] for project, each in found.items()}


def _compare(pairs: list[tuple[Memory, Memory]]) -> list[tuple[Difference, ...]]:
    """Each pair's differences, each note read once (its facts kept for its next pair)."""
    facts: dict[str, NoteFacts] = {}
    return [differences(read_once(facts, older), read_once(facts, newer)) for older, newer in pairs]


class _Queue:
    """The projects' numbers, each to be taken by one of the two processes: a pipe written
    whole before the fork, its write end closed, so that each read of one number takes
    it (a pipe's read is atomic) and the end of the pipe says none is left."""

    __slots__ = ("_read_end",)

    def __init__(self, count: int) -> None:
        # one number each, in one write: more than a pipe holds would wait forever
        if count * _NUMBER.size > _PIPE_HOLDS:
            raise OSError("too many projects for one pipe")
        read_end, write_end = os.pipe()
        try:
            os.write(write_end, b"".join(_NUMBER.pack(i) for i in range(count)))
        finally:
            os.close(write_end)
        self._read_end = read_end

    @classmethod
    def of(cls, read_end: int) -> _Queue:
        """The queue whose read end this is (handed down to a new interpreter)."""
        queue = cls.__new__(cls)
        queue._read_end = read_end
        return queue

    @property
    def fd(self) -> int:
        """The read end, to hand down to a new interpreter (:mod:`.pair_spawn`)."""
        return self._read_end

    def take(self) -> int | None:
        """The next project's number; None when all are taken."""
        data = os.read(self._read_end, _NUMBER.size)
        return _NUMBER.unpack(data)[0] if len(data) == _NUMBER.size else None

    def __enter__(self) -> _Queue:
        return self

    def __exit__(self, *_exc: object) -> None:
        os.close(self._read_end)


def _one_process() -> bool:
    """Whether :data:`PROCESSES_ENV` asks for this process only (read here alone)."""
    return os.environ.get(PROCESSES_ENV, "").strip() == "1"


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


def _may_spawn() -> bool:
    """Whether a new interpreter may compare where a fork may not (another thread runs):
    on Linux, with two cores for this process, and this interpreter's program known
    (:mod:`.pair_spawn`)."""
    if not sys.platform.startswith("linux") or not sys.executable:
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except OSError:
        return False


class _SecondProcess:
    """A forked process doing ``work`` (which returns plain data): its answer is what
    ``work`` returned, or None when it could not be started or failed."""

    __slots__ = ("_pid", "_read_end")

    def __init__(self, work: Callable[[], object]) -> None:
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
        if pid == 0:  # the second process: work, hand back, end without any clean-up
            status = 1
            try:
                os.close(read_end)
                done = work()
                with os.fdopen(write_end, "wb") as out:
                    out.write(packed(done))
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        self._pid, self._read_end = pid, read_end

    @property
    def pid(self) -> int:
        """The process's id (-1: none was started)."""
        return self._pid

    def answer(self) -> object:
        """What ``work`` returned (the process has ended when this returns); None when it
        failed."""
        if self._read_end is None:
            return None
        try:
            with os.fdopen(self._read_end, "rb") as answer:
                data = answer.read()
        finally:
            self._read_end = None
            status = _reap(self._pid)
        return unpacked(data, status)

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
