"""How a review compares the pairs its memo does not know: each note read once, and, when
there are many pairs and the machine has two cores to give, some projects' pairs compared
in a second process while this one goes on finding the next projects' pairs.

A review with no memo (the first on a machine, or after the finder's rules changed) is
mostly reading notes: their clauses' values and stances, each read once a review and kept
for the note's next pair (:class:`.facts.NoteFacts`). That reading is pure computation on
notes already in memory, and two notes of different projects never form a pair
(:func:`.neighbours.may_pair`), so a project's pairs are compared in one process, each
note read by one process. Finding the pairs needs the index (one SQLite connection, which
a forked process must never use): this process finds them all, and hands projects to the
second process as they are found, as many as keep both busy (:data:`SEARCH_COST`).
Measured on a 2,409-note store with no memo: the comparing took 2.2 s in one process, 1.4
s in two.

The second process is a fork that only computes and hands back plain tuples through a
pipe; it touches no file and no database, and ends without running any clean-up
(``os._exit``). Where forking is unsafe or pointless, the pairs are compared here: not on
Linux (macOS's system libraries are not fork-safe; Windows has no fork), one core, other
threads running (a fork copies only the calling thread; whatever another holds stays held
in the child). Should the second process fail in any way, its pairs are compared here too:
what a review finds never depends on how it was computed.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
from contextlib import suppress
from pathlib import Path

from anamnesis.store.review.compare import differences
from anamnesis.store.review.facts import NoteFacts
from anamnesis.store.review.records import Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import BinaryIO, Final

    from anamnesis.store.note.model import Memory

# The fewest pairs the memo does not know before a second process starts: below, the fork
# and the handing back cost more than sharing the comparing saves (a pair costs about 0.5
# ms to compare, a fork of a review's process about 10 ms).
SPLIT_AT: Final = 400
# What finding one note's neighbours costs this process, in pairs compared (0.2 ms a note
# against 0.5 ms a pair, on the 2,409-note store): a project's pairs go to the second
# process while this one's share so far (the notes it searched, the pairs it kept) is the
# larger.
SEARCH_COST: Final = 0.4

_Key = tuple[str, str]
# How much a pipe to the second process holds: a review's pairs, as ids (a 3,500-note
# review sends about 300 KB), so that handing them over never waits on its comparing.
_PIPE_BYTES: Final = 1 << 20


class PairBatch:
    """The pairs of one review that the memo does not know, given a project at a time
    (:meth:`add`) as they are found; :meth:`differences` compares what is left and
    answers for every pair. ``notes``: the review's notes by id (what the second process
    compares, handed only ids). :meth:`searched` counts the notes whose neighbours this
    process looked for meanwhile."""

    __slots__ = ("_here", "_load", "_notes", "_pending", "_second", "_sent", "_split_at")

    def __init__(self, notes: dict[str, Memory], *, split_at: int = SPLIT_AT) -> None:
        self._notes = notes
        self._split_at = split_at
        self._pending: list[list[tuple[Memory, Memory]]] = []  # before a second process
        self._here: list[tuple[Memory, Memory]] = []
        self._sent: list[tuple[Memory, Memory]] = []
        self._load = 0.0  # this process's share so far, in pairs
        self._second: _SecondProcess | None = None

    def add(self, pairs: list[tuple[Memory, Memory]]) -> None:
        """One project's pairs to compare (one project's: each note read by one process)."""
        if not pairs:
            return
        if self._second is None:
            self._pending.append(pairs)
            if sum(map(len, self._pending)) >= self._split_at and _may_fork():
                self._second = _SecondProcess(self._notes)
                pending, self._pending = self._pending, []
                for group in pending:
                    self._assign(group)
            return
        self._assign(pairs)

    def __enter__(self) -> PairBatch:
        return self

    def __exit__(self, *_exc: object) -> None:
        # Left before its answer (an error while finding pairs): the second process is
        # stopped, not left waiting for pairs that never come.
        second, self._second = self._second, None
        if second is not None:
            second.stop()

    @property
    def sent(self) -> int:
        """How many pairs went to the second process."""
        return len(self._sent)

    def searched(self, notes: int) -> None:
        """This process looked for the neighbours of ``notes`` notes."""
        self._load += notes * SEARCH_COST

    def _assign(self, pairs: list[tuple[Memory, Memory]]) -> None:
        second = self._second
        if (
            second is not None
            and len(self._sent) < self._load  # the second process has the lighter share
            and second.send([(older.id, newer.id) for older, newer in pairs])
        ):
            self._sent.extend(pairs)
            return
        self._here.extend(pairs)
        self._load += len(pairs)

    def differences(self) -> dict[_Key, tuple[Difference, ...]]:
        """Every pair's differences, by the two notes' ids (older first)."""
        here = [pair for group in self._pending for pair in group] + self._here
        second, self._second = self._second, None
        if second is None:
            return _by_ids(here, _compare(here))
        try:
            second.close_input()
            found = _by_ids(here, _compare(here))
        except BaseException:
            second.stop()  # interrupted: the second process is not left behind
            raise
        answered = second.answer(len(self._sent))
        if answered is None:  # the second process failed: its pairs are compared here
            answered = _compare(self._sent)
        found.update(_by_ids(self._sent, answered))
        return found


def _by_ids(
    pairs: list[tuple[Memory, Memory]], found: list[tuple[Difference, ...]]
) -> dict[_Key, tuple[Difference, ...]]:
    return {
        (older.id, newer.id): differs for (older, newer), differs in zip(pairs, found, strict=True)
    }


def _compare(pairs: list[tuple[Memory, Memory]]) -> list[tuple[Difference, ...]]:
    """Each pair's differences, each note read once (its facts kept for its next pair)."""
    facts: dict[str, NoteFacts] = {}
    return [differences(_facts(facts, older), _facts(facts, newer)) for older, newer in pairs]


def _facts(cache: dict[str, NoteFacts], mem: Memory) -> NoteFacts:
    found = cache.get(mem.id)
    if found is None:
        found = cache[mem.id] = NoteFacts(mem)
    return found


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
    """A forked process comparing the pairs it is sent (:meth:`send`: the two notes' ids
    of each, looked up in ``notes``, which it has as this process had them when it
    started), each note read once; its answer is their differences in the order sent."""

    __slots__ = ("_input", "_pid", "_read_end")

    def __init__(self, notes: dict[str, Memory]) -> None:
        self._pid = -1
        self._read_end: int | None = None
        self._input: BinaryIO | None = None
        try:
            pairs_in, pairs_out = os.pipe()
        except OSError:
            return
        try:
            read_end, write_end = os.pipe()
        except OSError:
            os.close(pairs_in)
            os.close(pairs_out)
            return
        try:
            pid = os.fork()
        except OSError:
            for end in (pairs_in, pairs_out, read_end, write_end):
                os.close(end)
            return
        if pid == 0:  # the second process: compare, hand back, end without any clean-up
            status = 1
            try:
                os.close(pairs_out)
                os.close(read_end)
                plain = _compare_sent(os.fdopen(pairs_in, "rb"), notes)
                with os.fdopen(write_end, "wb") as out:
                    out.write(pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL))
                status = 0
            finally:
                os._exit(status)
        os.close(pairs_in)
        os.close(write_end)
        import fcntl  # Linux only (as forking here is): not imported where there is none

        with suppress(OSError):  # room for a review's pairs: sending never waits on it
            fcntl.fcntl(pairs_out, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
        self._pid, self._read_end = pid, read_end
        self._input = os.fdopen(pairs_out, "wb")

    @property
    def pid(self) -> int:
        """The process's id (-1: none was started)."""
        return self._pid

    @property
    def running(self) -> bool:
        """Whether the process takes pairs."""
        return self._input is not None

    def send(self, ids: list[tuple[str, str]]) -> bool:
        """Hand pairs to the process; False when it takes none (it ended)."""
        if self._input is None:
            return False
        try:
            pickle.dump(ids, self._input, protocol=pickle.HIGHEST_PROTOCOL)
            self._input.flush()
        except OSError:  # it ended: what it was sent is compared here (answer() is None)
            self.close_input()
            return False
        return True

    def close_input(self) -> None:
        """Tell the process it has all its pairs."""
        if self._input is not None:
            with suppress(OSError):
                self._input.close()
            self._input = None

    def answer(self, count: int) -> list[tuple[Difference, ...]] | None:
        """The differences the process found for the ``count`` pairs it was sent (it has
        ended when this returns), or None when it failed."""
        self.close_input()
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
        if not isinstance(plain, list) or len(plain) != count:
            return None
        return [tuple(Difference(*item) for item in differs) for differs in plain]

    def stop(self) -> None:
        """End the process without its answer."""
        self.close_input()
        if self._read_end is None:
            return
        os.close(self._read_end)
        self._read_end = None
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # reaped already, by whoever reaps every child
        _reap(self._pid)


def _compare_sent(
    sent: BinaryIO, notes: dict[str, Memory]
) -> list[list[tuple[str, str, str, str]]]:
    """In the second process: compare each batch of pairs as it comes, until the input
    ends; each note read once over all of them."""
    facts: dict[str, NoteFacts] = {}
    out = []
    with sent:
        while True:
            try:
                ids = pickle.load(sent)  # written by the process that forked this one
            except EOFError:
                break
            for older, newer in ids:
                differs = differences(_facts(facts, notes[older]), _facts(facts, notes[newer]))
                out.append(_plain(differs))
    return out


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
