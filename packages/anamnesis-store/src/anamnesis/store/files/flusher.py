"""One background thread that flushes a staged note to disk while the writer goes on.

A note write waits on two things that need not wait on each other: the disk taking the
new file (``fsync``, about 0.3-0.6 ms) and SQLite inserting its index row (about 0.3 ms).
An fsync holds no GIL while it waits, so it runs here while the row is written, and the
writer waits for it only before the rename that makes the file visible.

The thread owns the file descriptor it is given: it closes it, so a writer that gives up
(an exception, Ctrl-C) never closes or reuses a descriptor the thread is still flushing.
A forked child has no copy of the thread; it starts its own on its first flush.
"""

from __future__ import annotations

import os
from _queue import SimpleQueue  # what queue.SimpleQueue is; importing queue imports threading
from _thread import LockType, allocate_lock, start_new_thread

from anamnesis.store.record import Record


class Flush(Record):
    """A flush handed to the thread: ``wait`` blocks until it is done."""

    __slots__ = ("_done", "error", "fd")

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.error: OSError | None = None
        self._done: LockType = allocate_lock()
        self._done.acquire()

    def wait(self) -> None:
        """Block until the file is on disk (and closed); raise the flush's OSError if any."""
        with self._done:
            pass
        if self.error is not None:
            raise self.error

    def run(self) -> None:
        try:
            os.fsync(self.fd)
        except OSError as exc:
            self.error = exc
        finally:
            try:
                os.close(self.fd)
            except OSError:
                pass  # already gone: nothing left to release
            self._done.release()


class _Thread(Record):
    """The flushing thread of this process and its queue, started on first use."""

    __slots__ = ("jobs", "running", "starting")

    def __init__(self) -> None:
        self.jobs: SimpleQueue[Flush] = SimpleQueue()
        self.running = False
        self.starting = allocate_lock()

    def put(self, flush: Flush) -> None:
        if not self.running:
            with self.starting:
                if not self.running:
                    start_new_thread(self._work, ())
                    self.running = True
        self.jobs.put(flush)

    def _work(self) -> None:
        while True:
            self.jobs.get().run()


_thread = _Thread()


def _forget_parent_thread() -> None:
    # A forked child holds copies of the parent's queue and lock, but not its thread.
    global _thread
    _thread = _Thread()


os.register_at_fork(after_in_child=_forget_parent_thread)


def flush_and_close(fd: int) -> Flush:
    """Start ``fsync(fd)`` then ``close(fd)`` on the background thread; the caller must not
    touch ``fd`` again."""
    flush = Flush(fd)
    try:
        _thread.put(flush)
    except RuntimeError:  # no thread can be started here (a process limit): flush inline
        flush.run()
    return flush
