"""Crash-safe file replacement: a reader sees the old file or the new one, never half."""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def atomic_write_text(path: Path, text: str, *, mode: int = 0o644) -> os.stat_result:
    """Write ``text`` to ``path`` via a temp file in the same folder, fsync, rename.

    Returns the stat of the new file, so callers can record it without another syscall.
    The temp name starts with a dot and does not end in ``.md``: a crash mid-write leaves
    at most a stray temp file that no note scan picks up.
    """
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    data = text.encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            os.fsync(fd)
        finally:
            os.close(fd)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path.stat()
