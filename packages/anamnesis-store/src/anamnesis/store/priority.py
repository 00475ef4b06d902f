"""Work that must yield: a whole process no session waits on, or a thread at the lowest
CPU priority.

**Processes** (:func:`yield_to_sessions`): the background worker, the session start's
async sync and the MCP server are work no session waits on at that moment, while each
session waits on its inject, prompt and capture hooks. Twenty sessions starting together
on two cores (``bench/scale/load.py``) made every hook wait behind the MCP servers' start-ups
(1.3 s of CPU each, the MCP SDK's imports) and the syncs: inject's p95 was 1.6-1.9 s
against 0.07 s for one session, and under 1 s once these yield. At nice 10 such
a process gets about a tenth of a core a nice-0 hook also wants (the kernel's weights 110
and 1024), and all of an idle one. Linux schedules a session (``setsid``: the worker, and
a server the MCP SDK starts) as a group of its own ("autogroup"), whose weight nice inside
it cannot change: a process that leads its own session lowers its group's nice too. What
may wait on such a process: a writer queued behind its hold of the index's write lock
(another MCP write, a CLI write), for the few milliseconds of work it does under it;
reads never wait for a writer (WAL).

**Threads** (:func:`run_at_low_priority`):
Background embedding (the MCP server's thread) keeps both cores busy for minutes on a
large store. At the same priority, a search or a write arriving meanwhile, in the same
process or in a hook's, would share the cores with it and wait up to twice as long. On
Linux, nice is per thread and a thread started by a niced thread inherits it: the
embedder's own worker threads (:class:`.embedding.FastEmbedEmbedder` starts them per call)
are niced with the thread that calls it, so the scheduler runs them only when a core has
nothing else to do. The caller's thread keeps its own priority (an unprivileged thread
could never take it back): the niced thread is a new one, started for the call.

Elsewhere (macOS has no per-thread nice through ``os.setpriority``) the work runs at the
caller's priority.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# The lowest priority: a nice-19 thread gets about 1.5 % of a core that a nice-0 thread
# also wants (the kernel's weights 15 and 1024), and all of an idle one.
LOW_PRIORITY = 19
# Work no session waits on (see the module docstring).
BACKGROUND_NICE = 10
_AUTOGROUP = "/proc/self/autogroup"


def yield_to_sessions(nice: int = BACKGROUND_NICE) -> None:
    """Run this process, and every thread it starts from now on, at ``nice`` (never raising
    a priority already lower). Call it first thing, before any thread starts: on Linux nice
    is per thread and a new thread inherits its starter's. Where the system refuses (a
    sandbox, no such call), the work runs at the priority it had."""
    if not hasattr(os, "getpriority"):  # Windows
        return
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    except OSError:
        return
    if sys.platform.startswith("linux") and os.getsid(0) == os.getpid():
        try:  # its own session: its own autogroup, which weighs as much as a session's
            Path(_AUTOGROUP).write_text(str(nice), encoding="ascii")
        except OSError:
            pass  # no autogroups (a kernel without them, or turned off): nice alone does


def run_at_low_priority(work: Callable[[], T]) -> T:
    """``work()`` on a new thread at :data:`LOW_PRIORITY`; its result, or its exception."""
    if not sys.platform.startswith("linux"):
        return work()
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), LOW_PRIORITY)
        except OSError:
            pass  # e.g. a sandbox that forbids it: the work still gets done
        try:
            outcome.append(work())
        except BaseException as exc:  # handed to the caller's thread, whatever it is
            failure.append(exc)

    thread = threading.Thread(target=run, name="anamnesis-low-priority", daemon=True)
    thread.start()
    thread.join()
    if failure:
        raise failure[0]
    return outcome[0]
