"""Objects copied into a new pack as the bytes they are packed as, not inflated and
deflated again.

A whole object in a pack is a short header and its zlib stream; it means the same in any
pack, so a roll-up of packs, a first push and a local fetch can copy those bytes. Writing
them through dulwich decompressed and recompressed every object: at 100,000 notes, a
first sync spent 30 of its 47 seconds doing so twice (the roll-up of the staged packs,
then the push).

Each copied entry is checked against the CRC-32 its pack's index holds (git checks the
same before reusing packed data). Deltas (whose base is named by an offset in their own
pack), objects not in a pack, entries whose CRC does not match and those of an index
without CRCs (version 1) are written the usual way from the object itself, which dulwich
verifies as it reads. Sources are read in pack
order with plain reads, not mapped: a mapping's pages would count in the process's
memory.
"""

from __future__ import annotations

import struct
import zlib
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

from dulwich.object_store import DiskObjectStore
from dulwich.objects import ObjectID, RawObjectID, hex_to_sha
from dulwich.pack import DELTA_TYPES, PackIndex, load_pack_index, pack_object_chunks

from anamnesis.sync.objects.pack_writer import IndexRow, publish_pack
from anamnesis.sync.objects.tree_reader import reader

_HEADER = struct.Struct(">4sLL")
# Below one wanted object per this many index entries, look them up one by one first.
_LOOKUPS_PER_ENTRY = 64


class _Entry(NamedTuple):
    """Where an object's packed bytes are: [start, end) of one pack file."""

    start: int
    end: int
    crc: int | None


def copy_packed(source: DiskObjectStore, ids: Iterable[ObjectID], target: DiskObjectStore) -> None:
    """Store the objects ``ids`` of ``source`` in ``target`` as one new pack."""
    wanted = {hex_to_sha(sha): sha for sha in ids}
    located, loose = _locate(source, wanted.keys())

    def body(out: BinaryIO) -> tuple[list[IndexRow], bytes]:
        rows: list[IndexRow] = []
        digest = source.object_format.new_hash()  # the pack's checksum, of every byte
        header = _HEADER.pack(b"PACK", 2, len(wanted))
        digest.update(header)
        out.write(header)
        offset = len(header)
        for raw, packed in _entries(located, [raw for raw in wanted if raw in loose]):
            if packed is None:
                data = _fresh(source, wanted[raw])
                crc = zlib.crc32(data)
            else:
                data, crc = packed  # its CRC was checked against the source's index
            rows.append((raw, offset, crc))
            digest.update(data)
            out.write(data)
            offset += len(data)
        checksum = digest.digest()
        out.write(checksum)
        return rows, checksum

    publish_pack(target, body)


def _locate(
    store: DiskObjectStore, wanted: Iterable[RawObjectID]
) -> tuple[dict[Path, dict[RawObjectID, _Entry]], set[RawObjectID]]:
    """For each pack of ``store``, the wanted objects found there first, with their bytes'
    bounds (an entry ends where the pack's next one starts, or at the trailing checksum);
    then the wanted objects in no pack."""
    missing = set(wanted)
    out: dict[Path, dict[RawObjectID, _Entry]] = {}
    for index_path in sorted((Path(store.path) / "pack").glob("pack-*.idx")):
        pack_path = index_path.with_suffix(".pack")
        if not missing or not pack_path.is_file():
            continue
        index = load_pack_index(str(index_path), store.object_format)
        try:
            if not _may_hold(index, missing):
                continue
            entries = list(index.iterentries())
        finally:
            index.close()
        starts = sorted(offset for _, offset, _ in entries)
        end_of_data = pack_path.stat().st_size - store.object_format.oid_length
        found: dict[RawObjectID, _Entry] = {}
        for raw, offset, crc in entries:
            if raw in missing:
                after = bisect_right(starts, offset)
                end = starts[after] if after < len(starts) else end_of_data
                found[raw] = _Entry(offset, end, crc)
                missing.discard(raw)
        if found:
            out[pack_path] = found
    return out, missing


def _may_hold(index: PackIndex, wanted: set[RawObjectID]) -> bool:
    """Whether the pack may hold one of ``wanted``. A few objects (the commit a sync
    makes is loose) are looked up one by one, rather than the whole index read to find
    none of them in a pack of 100,000."""
    if len(wanted) * _LOOKUPS_PER_ENTRY >= len(index):
        return True
    return any(_offset(index, raw) is not None for raw in wanted)


def _offset(index: PackIndex, raw: RawObjectID) -> int | None:
    try:
        return index.object_offset(raw)
    except KeyError:
        return None


def _entries(
    located: dict[Path, dict[RawObjectID, _Entry]], loose: Iterable[RawObjectID]
) -> Iterator[tuple[RawObjectID, tuple[bytes, int] | None]]:
    """Each wanted object once: its packed bytes and their CRC when they can be copied,
    else None (``loose``: those in no pack)."""
    for pack_path, found in located.items():
        with pack_path.open("rb") as pack:
            for raw, entry in sorted(found.items(), key=lambda item: item[1].start):
                pack.seek(entry.start)
                data = pack.read(entry.end - entry.start)
                crc = entry.crc  # None in a version-1 index: no unchecked bytes are copied
                yield raw, (data, crc) if crc is not None and _copyable(data, crc) else None
    for raw in loose:
        yield raw, None


def _copyable(data: bytes, crc: int) -> bool:
    """A whole object (not a delta) whose bytes match the CRC its index holds."""
    return bool(data) and (data[0] >> 4) & 7 not in DELTA_TYPES and zlib.crc32(data) == crc


def _fresh(store: DiskObjectStore, sha: ObjectID) -> bytes:
    """The object packed anew, from its content (which dulwich checks against its id as
    it reads it; a tree this process has just stored or read is kept parsed)."""
    obj = reader(store)[sha]
    chunks = pack_object_chunks(obj.type_num, obj.as_raw_chunks(), store.object_format)
    return b"".join(chunks)
