"""Work that must yield to everything else: run it on a thread at the lowest CPU priority.

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
from typing import TypeVar

T = TypeVar("T")

# The lowest priority: a nice-19 thread gets about 1.5 % of a core that a nice-0 thread
# also wants (the kernel's weights 15 and 1024), and all of an idle one.
LOW_PRIORITY = 19


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
