"""The machine's one background worker: it files queued captures, then syncs if asked.

Every capture and every session start asks for background work. Twenty sessions ending
together would start twenty processes, all queued on one store and one remote, taking the
CPU that the sessions' own hooks wait for. Instead, whoever holds ``queue/worker.lock``
does all the work asked for, and whoever finds it held leaves a request and exits at once:

* a capture's request is its file in the queue (:mod:`.capture_queue`);
* a sync's request is the file ``queue/sync-requested`` (:func:`.capture_queue.request_sync`).

The holder files the captures, runs one sync for every request made before it began, and
goes round again while requests keep coming. After letting go of the lock it looks once
more: a request made while it was letting go found the lock still held, and would
otherwise wait for the next worker. The kernel releases the lock however the holder ends,
and whatever it left undone is still in the queue for the next worker (the next capture,
the next session start, or `anamnesis sync`).
"""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.hooks.capture_queue import SYNC_REQUEST, queued_captures, take_sync_request
from anamnesis.store import StoreLayout
from anamnesis.sync import SyncBusy, sync_lock

if TYPE_CHECKING:
    from collections.abc import Callable

LOCK_NAME = "worker.lock"


def work(home: Path, *, file: Callable[[set[str]], bool], sync: Callable[[], None]) -> bool:
    """Be the worker, if no other process is: ``file`` the queued captures (given the
    names already tried, returning False when the store cannot be written now), ``sync``
    on request, until nothing is asked. False when another worker holds the lock (it will
    do what was asked)."""
    queue = StoreLayout(home).queue_dir
    tried: set[str] = set()
    worked = False
    while True:
        with ExitStack() as held:
            try:  # the kernel lets go of it however this process ends
                held.enter_context(sync_lock(queue / LOCK_NAME, wait_s=0))
            except SyncBusy:
                return worked
            worked = True
            while True:
                writable = file(tried)
                if take_sync_request(home):
                    sync()
                    continue  # captures may have come in meanwhile
                if not writable or not _untried(home, tried):
                    break
        if not ((queue / SYNC_REQUEST).exists() or _untried(home, tried)):
            return worked


def _untried(home: Path, tried: set[str]) -> bool:
    return any(path.name not in tried for path in queued_captures(home))
