"""Objects written as one pack and its index, in one pass.

dulwich's ``add_objects`` writes the pack, then reads every object of it back,
decompressing each, to compute the index it could have kept while writing: two thirds of
the time of staging a new machine's notes. ``write_pack_data`` returns each object's
offset and checksum as it writes, which is all an index is made of.

The pack is written to a temp file in the pack folder, flushed to disk, renamed to
``pack-<checksum>.pack``, and only then is its index renamed into place: dulwich and git
open a pack only when its index is there, so a pack is never read half-written.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import BinaryIO

from dulwich.object_store import DiskObjectStore
from dulwich.objects import ShaFile
from dulwich.pack import full_unpacked_object, write_pack_data, write_pack_index

# One row of a pack's index: the object's binary id, its offset in the pack, its CRC-32.
IndexRow = tuple[bytes, int, int | None]
# Writes a pack's bytes to the open file; returns the index rows and the pack's checksum.
PackBody = Callable[[BinaryIO], tuple[list[IndexRow], bytes]]


def write_pack(store: DiskObjectStore, objects: Iterable[ShaFile], count: int) -> None:
    """Store ``count`` objects (exactly: the pack's header says how many) as one pack."""

    def body(pack: BinaryIO) -> tuple[list[IndexRow], bytes]:
        unpacked = (full_unpacked_object(obj) for obj in objects)
        entries, checksum = write_pack_data(
            pack.write, unpacked, store.object_format, num_records=count
        )
        return [(sha, offset, crc) for sha, (offset, crc) in entries.items()], checksum

    publish_pack(store, body)


def publish_pack(store: DiskObjectStore, body: PackBody) -> None:
    """Write a pack with ``body`` into a temp file, then its index, each made durable,
    then rename both into place: the pack first, its index last."""
    folder = Path(store.path) / "pack"
    folder.mkdir(parents=True, exist_ok=True)
    pack_tmp = _temp(folder)
    index_tmp = _temp(folder)
    try:
        with pack_tmp.open("wb") as pack:
            rows, checksum = body(pack)
            pack.flush()
            os.fsync(pack.fileno())
        with index_tmp.open("wb") as index:
            write_pack_index(index, sorted(rows), checksum)
            index.flush()
            os.fsync(index.fileno())
        name = f"pack-{checksum.hex()}"
        for temp in (pack_tmp, index_tmp):
            temp.chmod(0o444)
        pack_tmp.replace(folder / f"{name}.pack")
        index_tmp.replace(folder / f"{name}.idx")
    finally:
        for temp in (pack_tmp, index_tmp):
            temp.unlink(missing_ok=True)


def _temp(folder: Path) -> Path:
    fd, name = tempfile.mkstemp(dir=folder, prefix="tmp_pack_")
    os.close(fd)
    return Path(name)
