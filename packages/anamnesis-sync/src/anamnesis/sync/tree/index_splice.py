"""A few entries of git's index changed without parsing and rewriting all of it.

dulwich reads and writes the index one entry at a time in Python: about 2 s each way at
100,000 notes, to change ten of them. The index file is a sorted run of entries followed
by optional extensions and a SHA-1 of everything before it, so ten changes only need the
entries' boundaries: the bytes of every other entry are copied as they are, the changed
entries are encoded by dulwich's own writer, and the checksum is computed again.

Only the plain layout is spliced: versions 2 and 3, SHA-1, no conflict stages, and no
extension but ``TREE``. ``TREE`` caches tree ids per folder and would go stale, so it is
dropped, which git allows (it is rebuilt at git's next write). Anything else (index v4's
compressed paths, a split index, a sparse one, an unknown required extension, a checksum
that does not match) raises :class:`NotSpliceable` before anything is written, and the
caller reads the index the slow, general way. The write goes through dulwich's
``GitFile``: git's ``index.lock``, then an atomic rename.
"""

from __future__ import annotations

import hashlib
import io
import os
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Protocol

from dulwich.file import GitFile
from dulwich.index import Index, IndexEntry, Stage, write_cache_entry

_HEADER = struct.Struct(">4sLL")
_FLAGS = struct.Struct(">H")
_EXTENSION = struct.Struct(">4sL")
_SHA1_LENGTH = 20
# ctime, mtime (8 bytes each), dev, ino, mode, uid, gid, size (4 each), then the SHA-1.
_FLAGS_OFFSET = 60
_FIXED_LENGTH = 62
_NAME_MASK = 0x0FFF
_STAGE_MASK = 0x3000
_EXTENDED = 0x4000
# Extensions that may be dropped: their content is only a cache.
_DROPPABLE = frozenset({b"TREE"})


class NotSpliceable(Exception):
    """The index is in a layout this module does not splice; read it in full instead."""


def splice(
    index_path: str | bytes | Path,
    upserts: Mapping[bytes, IndexEntry],
    removals: Iterable[bytes] = (),
) -> None:
    """Set the entries ``upserts`` (by path) and remove ``removals`` (absent ones are
    ignored) in the index at ``index_path``, leaving every other entry byte for byte."""
    if any(len(name) >= _NAME_MASK for name in upserts):
        # dulwich's encoder overflows the 12-bit length field (git writes 0xFFF there).
        raise NotSpliceable("a path of 4,095 bytes or more")
    data = Path(os.fsdecode(index_path)).read_bytes()
    version, entries, end = _entries(data)
    _check_extensions(data, end)
    gone = set(removals) | set(upserts)
    kept = [(name, start, stop) for name, start, stop in entries if name not in gone]
    added = sorted(upserts.items())
    out = io.BytesIO()
    out.write(_HEADER.pack(b"DIRC", version, len(kept) + len(added)))
    position = 0
    for name, entry in added:
        # Copy the untouched entries that sort before this one, then encode it.
        while position < len(kept) and kept[position][0] < name:
            position = _copy_run(data, kept, position, name, out)
        write_cache_entry(out, entry.serialize(name, Stage.NORMAL), version)
    while position < len(kept):
        position = _copy_run(data, kept, position, None, out)
    body = out.getvalue()
    with GitFile(index_path, "wb") as handle:
        handle.write(body)
        handle.write(hashlib.sha1(body).digest())


def _copy_run(
    data: bytes,
    kept: list[tuple[bytes, int, int]],
    position: int,
    limit: bytes | None,
    out: io.BytesIO,
) -> int:
    """Copy the entries from ``position`` that are adjacent in the file (none removed
    between) and sort before ``limit`` (None: no limit) in one slice; return the next."""
    first = position
    while (
        position + 1 < len(kept)
        and (limit is None or kept[position + 1][0] < limit)
        and kept[position + 1][1] == kept[position][2]
    ):
        position += 1
    out.write(data[kept[first][1] : kept[position][2]])
    return position + 1


def _entries(data: bytes) -> tuple[int, list[tuple[bytes, int, int]], int]:
    """The version, each entry's (path, start, end) in the file, and where they end."""
    if len(data) < _HEADER.size + _SHA1_LENGTH:
        raise NotSpliceable("index too short")
    if hashlib.sha1(data[:-_SHA1_LENGTH]).digest() != data[-_SHA1_LENGTH:]:
        raise NotSpliceable("index checksum does not match (or not SHA-1)")
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3):
        raise NotSpliceable(f"index version {version}")
    entries: list[tuple[bytes, int, int]] = []
    start = _HEADER.size
    limit = len(data) - _SHA1_LENGTH
    for _ in range(count):
        if start + _FIXED_LENGTH > limit:
            raise NotSpliceable("an entry runs past the end of the index")
        (flags,) = _FLAGS.unpack_from(data, start + _FLAGS_OFFSET)
        if flags & (_STAGE_MASK | _EXTENDED):
            raise NotSpliceable("a conflict stage or extended flags")
        name_length = flags & _NAME_MASK
        name_start = start + _FIXED_LENGTH
        if name_length == _NAME_MASK:  # a long path: its length is where its NUL is
            name_length = data.index(b"\0", name_start) - name_start
        # Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
        stop = start + ((_FIXED_LENGTH + name_length + 8) & ~7)
        if stop > limit:
            raise NotSpliceable("an entry runs past the end of the index")
        entries.append((data[name_start : name_start + name_length], start, stop))
        start = stop
    return version, entries, start


def _check_extensions(data: bytes, start: int) -> None:
    """Refuse any extension but the droppable ones (see the module docstring)."""
    limit = len(data) - _SHA1_LENGTH
    while start < limit:
        if limit - start < _EXTENSION.size:
            raise NotSpliceable("a truncated extension")
        signature, size = _EXTENSION.unpack_from(data, start)
        if signature not in _DROPPABLE:
            raise NotSpliceable(f"index extension {signature!r}")
        start += _EXTENSION.size + size
    if start != limit:
        raise NotSpliceable("an extension runs past the end of the index")


class IndexEdits(Protocol):
    """What writing pulled files does to the index: set or remove entries, then write."""

    def set(self, path: bytes, entry: IndexEntry) -> None: ...

    def remove(self, path: bytes) -> None: ...

    def write(self) -> None: ...


class WholeIndex:
    """:class:`IndexEdits` on dulwich's index, read and written whole."""

    __slots__ = ("index",)

    def __init__(self, index: Index) -> None:
        self.index = index

    def set(self, path: bytes, entry: IndexEntry) -> None:
        self.index[path] = entry

    def remove(self, path: bytes) -> None:
        if path in self.index:
            del self.index[path]

    def write(self) -> None:
        self.index.write()


class SplicedIndex:
    """:class:`IndexEdits` written by :func:`splice`; ``edited`` keeps every edit written
    (path -> entry, None: removed), for the clean record (clean_tree.py)."""

    __slots__ = ("path", "edited", "_pending")

    def __init__(self, path: str | bytes | Path) -> None:
        self.path = path
        self.edited: dict[bytes, IndexEntry | None] = {}
        self._pending: dict[bytes, IndexEntry | None] = {}

    def set(self, path: bytes, entry: IndexEntry) -> None:
        self._pending[path] = entry

    def remove(self, path: bytes) -> None:
        self._pending[path] = None

    def write(self) -> None:
        """Splice the pending edits; :class:`NotSpliceable` leaves the index as it was."""
        if not self._pending:
            return
        upserts = {path: entry for path, entry in self._pending.items() if entry is not None}
        splice(self.path, upserts, [path for path, e in self._pending.items() if e is None])
        self.edited.update(self._pending)
        self._pending.clear()
