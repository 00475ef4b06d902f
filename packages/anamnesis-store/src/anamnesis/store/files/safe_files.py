"""Reading only what is what it seems: regular files, no links followed, a size cap.

A notes folder is hand-edited and synced, so anything can turn up in it: a symbolic link
to a file outside the store (whose content would then be indexed, shown and synced), a
FIFO named ``*.md`` (a plain open blocks forever), a link to ``/dev/zero`` (a read never
ends). Every note file is opened here without following a final symbolic link and without
blocking, checked to be a regular file, and read up to a cap; anything else raises
:class:`UnsafeFile`, an ``OSError`` whose message says what the file is and what to do.
"""

from __future__ import annotations

import errno
import os
import stat as stat_module

from anamnesis.store.note.limits import NoteLimits

# The read cap: what a note file may hold, frontmatter included (NoteLimits says why).
MAX_NOTE_BYTES = NoteLimits.FILE_BYTES

_KINDS = (
    (stat_module.S_ISDIR, "a folder"),
    (stat_module.S_ISFIFO, "a FIFO (named pipe)"),
    (stat_module.S_ISCHR, "a character device"),
    (stat_module.S_ISBLK, "a block device"),
    (stat_module.S_ISSOCK, "a socket"),
)


class UnsafeFile(OSError):
    """Not read: a symbolic link, not a regular file, or over the size cap."""


def kind_of(mode: int) -> str:
    """What a file of this mode is, in words ("a FIFO (named pipe)", ...)."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def open_regular(path: str | os.PathLike[str], *, follow: bool = False) -> int:
    """A read-only descriptor of ``path`` once it is known to be a regular file (the caller
    closes it); raises :class:`UnsafeFile` for a symbolic link (unless ``follow``), a FIFO,
    a device or anything else that is not a regular file, and ``OSError`` as ``open`` would.
    Opening never blocks: a FIFO is refused, not waited on."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and not follow:
            raise UnsafeFile(
                errno.ELOOP,
                "it is a symbolic link; note files must be regular files (links are never "
                "followed: replace the link with the file itself)",
            ) from None
        raise
    mode = os.fstat(fd).st_mode
    if not stat_module.S_ISREG(mode):
        os.close(fd)
        raise UnsafeFile(
            errno.EINVAL, f"it is {kind_of(mode)}, not a regular file: nothing was read from it"
        )
    return fd


def read_regular(
    path: str | os.PathLike[str], max_bytes: int = MAX_NOTE_BYTES, *, follow: bool = False
) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file and its stat (taken before reading, so a later edit is
    never missed); raises :class:`UnsafeFile` as :func:`open_regular` does, or for a file
    over ``max_bytes``."""
    fd = open_regular(path, follow=follow)
    try:
        info = os.fstat(fd)
        if info.st_size > max_bytes:
            raise UnsafeFile(
                errno.EFBIG,
                f"it is {info.st_size:,} bytes, over the {max_bytes:,}-byte cap for this kind "
                "of file: nothing was read from it (split it, or keep a summary)",
            )
        chunks = []
        left = max_bytes + 1  # one byte more than allowed tells a file that grew past it
        while left > 0 and (chunk := os.read(fd, min(left, info.st_size + 4096))):
            chunks.append(chunk)
            left -= len(chunk)
        if left <= 0:
            raise UnsafeFile(
                errno.EFBIG,
                f"it grew past the {max_bytes:,}-byte cap for this kind of file while "
                "being read: nothing was kept",
            )
    finally:
        os.close(fd)
    return b"".join(chunks), info
