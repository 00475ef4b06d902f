"""One sync at a time per repository: a lock file that a second sync waits on, briefly."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from anamnesis.sync.model.errors import SyncBusy, SyncError

if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


@contextmanager
def sync_lock(path: Path, *, wait_s: float) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` or raise :class:`SyncBusy` after ``wait_s``.

    The operating system drops the lock when the process dies, so a crashed sync never
    leaves a stale lock behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # Never through a link: the pid written below would truncate whatever it points at.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        raise SyncError(
            f"cannot open the sync lock {path} ({exc.strerror or exc}); if it is a link or "
            "not a file, remove it (nothing was synced)"
        ) from None
    try:
        deadline = time.monotonic() + wait_s
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise SyncBusy(
                    f"sync already running (another process holds {path}); "
                    "it will pick up these changes, or try again in a moment"
                )
            time.sleep(0.05)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)
