"""A disk that fills up, for the tests of what a sync does then: a real small file system
where this machine allows mounting one, and ENOSPC from the OS call that writes a pulled
note everywhere."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

_SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"


class SmallDisk:
    """A tmpfs of a chosen size mounted at ``path`` (:func:`small_disk`)."""

    def __init__(self, path: Path, mount: str) -> None:
        self.path = path
        self._mount = mount

    def resize(self, size: str) -> None:
        """Give the file system ``size`` (``"8m"``), keeping what it holds: space freed."""
        subprocess.run(
            [self._mount, "-o", f"remount,size={size}", str(self.path)],
            check=True,
            capture_output=True,
        )


@contextmanager
def small_disk(path: Path, size: str) -> Iterator[SmallDisk]:
    """A real file system of ``size`` (``"512k"``) at ``path``, unmounted on exit. Skips the
    test, with the reason, where mounting is not permitted (not root; a container without
    CAP_SYS_ADMIN) or there is no ``mount``."""
    mount = shutil.which("mount", path=_SYSTEM_PATH)
    umount = shutil.which("umount", path=_SYSTEM_PATH)
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    if mount is None or umount is None:
        pytest.skip("no mount/umount programs here")
    path.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield SmallDisk(path, mount)
    finally:
        subprocess.run([umount, "-l", str(path)], capture_output=True, check=False)


@contextmanager
def no_space_at(write: int) -> Iterator[list[int]]:
    """``os.write`` fails with ENOSPC at the ``write``-th write into a temp file
    (``*.tmp``: how a pull writes each note before renaming it), as a full disk fails it;
    every other write, and every later one, goes through. Yields the count of temp-file
    writes so far (``[n]``), to check the failure happened."""
    real_open, real_write, real_close = os.open, os.write, os.close
    temp_files: set[int] = set()
    count = [0]

    def opening(
        path: str | bytes | os.PathLike[str], flags: int, *args: object, **kw: object
    ) -> int:
        fd = real_open(path, flags, *args, **kw)  # type: ignore[arg-type]
        if os.fsdecode(path).endswith(".tmp") and flags & os.O_CREAT:
            temp_files.add(fd)
        return fd

    def writing(fd: int, data: object) -> int:
        if fd in temp_files:
            count[0] += 1
            if count[0] == write:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)  # type: ignore[arg-type]

    def closing(fd: int) -> None:
        temp_files.discard(fd)
        real_close(fd)

    patched = {"open": opening, "write": writing, "close": closing}
    saved = {name: getattr(os, name) for name in patched}
    for name, function in patched.items():
        setattr(os, name, function)
    try:
        yield count
    finally:
        for name, function in saved.items():
            setattr(os, name, function)
