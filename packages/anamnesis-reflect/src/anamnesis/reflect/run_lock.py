"""One reflection at a time per store: an exclusive lock on a file in the store's root.

``flock`` is released by the kernel when the holder exits, however it exits, so a crashed
run never leaves a stale lock behind. The lock file is in the store's root, which a sync
never sends.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_NAME = "reflect.lock"


class ReflectionBusy(Exception):
    """Another reflect or merge is running on this store."""


@contextmanager
def reflection_lock(root: Path) -> Iterator[None]:
    """Hold the store's reflection lock, or raise :class:`ReflectionBusy` at once."""
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ReflectionBusy(
                f"another reflect or merge is running on {root}; wait for it to finish"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
