"""Blob contents read from packs with plain reads, for the files a pull writes.

dulwich maps each pack into memory, and every page a read touches stays resident (with
the kernel's read-ahead around it): a pull of 100,000 notes reads the blobs in the order
of the tree, not of the pack, and the mapped pages of a 150 MB pack grew the process by
60 MB between two releases of the maps. Reading an object's bytes with ``pread`` leaves
them in the page cache, outside the process.

A whole object's entry is a short header (type, size) and its zlib stream. Each blob read
here is checked against its id, as dulwich checks objects it reads. Deltas and loose
objects are read through the object store, as before.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

from dulwich.object_store import BaseObjectStore, DiskObjectStore
from dulwich.objects import Blob, ObjectID, hex_to_sha
from dulwich.pack import PackIndex, load_pack_index, obj_sha

# Bytes read at first beyond the object's size: its header, and zlib's few bytes of
# framing on text that does not compress.
_SLACK = 64
# Packs held open at once (one descriptor each); blobs in others are read through the
# object store. A pull must work under macOS's 256 open files with a remote of many packs.
_PACKS_OPEN = 32


class PackedBlobs:
    """``reader(sha)`` -> the blob's bytes. Close it when done (it holds the packs open)."""

    def __init__(self, store: BaseObjectStore) -> None:
        self._store = store
        self._hash = store.object_format.hash_func
        self._packs: list[tuple[PackIndex, int]] = []  # (its index, the pack's fd)
        if isinstance(store, DiskObjectStore):
            for index_path in _largest_packs(Path(store.path) / "pack")[:_PACKS_OPEN]:
                self._open(index_path, store)

    def __call__(self, sha: ObjectID) -> bytes:
        raw = hex_to_sha(sha)
        for index, fd in self._packs:
            try:
                offset = index.object_offset(raw)
            except KeyError:
                continue
            data = _read_blob(fd, offset)
            if data is not None and obj_sha(Blob.type_num, data, self._hash) == raw:
                return data
            break  # a delta, or not what its id says: dulwich reads it (and reports it)
        blob = self._store[sha]
        if not isinstance(blob, Blob):
            raise TypeError(f"{sha.decode()} is a {blob.type_name.decode()}, not a file's blob")
        return blob.as_raw_string()

    def close(self) -> None:
        for index, fd in self._packs:
            index.close()
            os.close(fd)
        self._packs = []

    def __enter__(self) -> PackedBlobs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self, index_path: Path, store: DiskObjectStore) -> None:
        try:
            fd = os.open(index_path.with_suffix(".pack"), os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except OSError:
            return  # a pack being removed: the object store finds the objects elsewhere
        try:
            index = load_pack_index(str(index_path), store.object_format)
        except BaseException:
            os.close(fd)
            raise
        self._packs.append((index, fd))


def _largest_packs(folder: Path) -> list[Path]:
    """The packs' index files, the largest pack first (where most blobs are)."""
    sizes: list[tuple[int, Path]] = []
    for index_path in folder.glob("pack-*.idx"):
        try:
            sizes.append((index_path.with_suffix(".pack").stat().st_size, index_path))
        except OSError:
            continue  # a pack being removed
    return [path for _size, path in sorted(sizes, reverse=True)]


def _read_blob(fd: int, offset: int) -> bytes | None:
    """The blob whose entry starts at ``offset``, or None if that entry is no whole blob."""
    head = os.pread(fd, 16, offset)
    if not head or (head[0] >> 4) & 7 != Blob.type_num:
        return None
    size, shift, used = head[0] & 15, 4, 1
    while head[used - 1] & 0x80:
        if used >= len(head):
            return None
        size |= (head[used] & 0x7F) << shift
        shift += 7
        used += 1
    inflate = zlib.decompressobj()
    start, want = offset + used, size + _SLACK
    out = bytearray()
    while not inflate.eof:
        chunk = os.pread(fd, want, start)
        if not chunk:
            return None  # the pack ends mid-entry
        try:
            out += inflate.decompress(chunk)
        except zlib.error:
            return None
        start += len(chunk)
        want = max(want, 4096)
    return bytes(out) if len(out) == size else None
