"""Crash-safe file replacement: a reader sees the old file or the new one, never half.

``stage`` writes a temp file next to the target and reports its size and mtime (what the
index records), ``Staged.sync`` flushes it to disk (or ``Staged.start_sync`` on the
background :mod:`.flusher`, to be waited for), ``Staged.publish`` renames it over the
target. The rename only ever follows the fsync.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store.files.flusher import Flush, flush_and_close
from anamnesis.store.record import Record

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterable


class Staged(Record):
    """A temp file holding the new content, not yet visible under the target name."""

    __slots__ = ("fd", "mtime_ns", "size", "target", "tmp")

    def __init__(self, tmp: Path, target: Path, fd: int, size: int, mtime_ns: int) -> None:
        self.tmp = tmp
        self.target = target
        self.fd = fd
        self.size = size
        self.mtime_ns = mtime_ns

    def sync(self) -> None:
        """fsync and close the temp file."""
        try:
            os.fsync(self.fd)
        finally:
            os.close(self.fd)
            self.fd = -1

    def start_sync(self) -> Flush:
        """Start the fsync and close on the background thread, which owns the file
        descriptor from now on; ``wait`` on the result before :meth:`publish`."""
        fd, self.fd = self.fd, -1
        return flush_and_close(fd)

    def publish(self) -> None:
        """Rename the (synced) temp file over the target: the atomic step."""
        self.tmp.replace(self.target)

    def discard(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
        self.tmp.unlink(missing_ok=True)


def stage(path: Path, text: str | bytes, *, mode: int = 0o644) -> Staged:
    """Write ``text`` to a temp file beside ``path``; return it with its size and mtime.

    The temp name starts with a dot and does not end in ``.md``: a crash mid-write leaves
    at most a stray temp file that no note scan picks up.
    """
    data = text.encode("utf-8") if isinstance(text, str) else text
    return stage_chunks(path, (data,), mode=mode)


def stage_chunks(path: Path, chunks: Iterable[bytes], *, mode: int = 0o644) -> Staged:
    """:func:`stage` for content that comes a chunk at a time, never whole in memory. If
    the chunks raise, the temp file is removed and the error goes on."""
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
        stat = os.fstat(fd)  # mtime is final now: neither fsync nor rename changes it
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    return Staged(tmp, path, fd, stat.st_size, stat.st_mtime_ns)


def atomic_write_bytes(path: Path, data: str | bytes, *, mode: int = 0o644) -> Staged:
    """Write (text as UTF-8), fsync and rename in one go; return size and mtime."""
    return _published(stage(path, data, mode=mode))


def atomic_write_chunks(path: Path, chunks: Iterable[bytes], *, mode: int = 0o644) -> Staged:
    """:func:`atomic_write_bytes` for content that comes a chunk at a time."""
    return _published(stage_chunks(path, chunks, mode=mode))


def _published(staged: Staged) -> Staged:
    try:
        staged.sync()
        staged.publish()
    except BaseException:
        staged.discard()
        raise
    return staged
