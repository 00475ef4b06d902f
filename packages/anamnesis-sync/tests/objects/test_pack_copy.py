"""Objects are copied between stores as their packed bytes (pack_copy.py): the new pack
holds exactly the objects asked for, each readable and equal to the source's, whether it
came as packed bytes, from a delta, from a loose file or was packed anew; a corrupt entry
is never copied. A pull reads blobs from packs the same way (packed_reader.py)."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest
from dulwich.errors import ChecksumMismatch
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, ObjectID
from dulwich.pack import DELTA_TYPES, PackData
from dulwich.pack import write_pack as dulwich_write_pack
from dulwich.repo import Repo

from anamnesis.sync.objects import packed_reader
from anamnesis.sync.objects.pack_copy import copy_packed
from anamnesis.sync.objects.pack_writer import write_pack
from anamnesis.sync.objects.packed_reader import PackedBlobs
from sync_testing import GIT, git


def _store(path: Path) -> DiskObjectStore:
    path.mkdir()
    Repo.init_bare(str(path)).close()
    return DiskObjectStore(str(path / "objects"))


def _blobs(count: int, seed: int) -> list[Blob]:
    rng = random.Random(seed)
    base = "".join(rng.choice("abcdefghij \n") for _ in range(3_000))
    # Each a small edit of one text: a delta-making packer stores most as deltas.
    return [Blob.from_string(f"{n}\n{base[: 1_000 + n]}{n}".encode()) for n in range(count)]


def _packs(store: DiskObjectStore) -> list[Path]:
    return sorted((Path(store.path) / "pack").glob("*.pack"))


def _entry_kinds(pack: Path, store: DiskObjectStore) -> set[int]:
    data = PackData(str(pack), object_format=store.object_format)
    try:
        return {unpacked.pack_type_num for unpacked in data.iter_unpacked()}
    finally:
        data.close()


def test_packed_objects_are_copied_into_one_pack(tmp_path: Path) -> None:
    source, target = _store(tmp_path / "source"), _store(tmp_path / "target")
    blobs = _blobs(40, seed=1)
    write_pack(source, blobs[:25], 25)
    write_pack(source, blobs[25:], 15)
    wanted = [blob.id for blob in blobs[::2]]  # some of each pack, not all of either

    copy_packed(source, wanted, target)

    assert len(_packs(target)) == 1
    target = DiskObjectStore(target.path)
    assert sorted(target) == sorted(wanted)
    for blob in blobs[::2]:
        assert target[blob.id].as_raw_string() == blob.as_raw_string()
    assert blobs[1].id not in target


def test_deltas_and_loose_objects_are_packed_anew(tmp_path: Path) -> None:
    source, target = _store(tmp_path / "source"), _store(tmp_path / "target")
    blobs = _blobs(30, seed=2)
    name = str(Path(source.path) / "pack" / "pack-deltas")
    dulwich_write_pack(name, blobs[:20], source.object_format, deltify=True)
    assert _entry_kinds(Path(name + ".pack"), source) & set(DELTA_TYPES), "no delta made"
    loose = blobs[20:]
    for blob in loose:
        source.add_object(blob)
    source = DiskObjectStore(source.path)

    copy_packed(source, [blob.id for blob in blobs], target)

    (pack,) = _packs(target)
    assert not _entry_kinds(pack, target) & set(DELTA_TYPES)
    target = DiskObjectStore(target.path)
    for blob in blobs:
        assert target[blob.id].as_raw_string() == blob.as_raw_string()


def test_a_corrupt_entry_is_not_copied(tmp_path: Path) -> None:
    source, target = _store(tmp_path / "source"), _store(tmp_path / "target")
    blobs = _blobs(5, seed=3)
    write_pack(source, blobs, 5)
    (pack,) = _packs(source)
    data = bytearray(pack.read_bytes())
    data[len(data) // 2] ^= 0xFF  # a byte inside some object's deflated stream
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    source = DiskObjectStore(source.path)

    with pytest.raises((zlib.error, ChecksumMismatch)):  # dulwich's, reading it anew
        copy_packed(source, [blob.id for blob in blobs], target)
    assert _packs(target) == []
    assert not list((Path(target.path) / "pack").glob("tmp_pack_*"))


def test_an_object_in_no_pack_and_not_loose_is_an_error(tmp_path: Path) -> None:
    source, target = _store(tmp_path / "source"), _store(tmp_path / "target")
    write_pack(source, _blobs(3, seed=4), 3)
    with pytest.raises(KeyError):
        copy_packed(source, [ObjectID(b"1" * 40)], target)
    assert _packs(target) == []


@pytest.mark.skipif(GIT is None, reason="git is not installed: interoperability not checked")
def test_git_verifies_a_copied_pack(tmp_path: Path) -> None:
    source, target = _store(tmp_path / "source"), _store(tmp_path / "target.git")
    blobs = _blobs(50, seed=5)
    write_pack(source, blobs[:30], 30)
    name = str(Path(source.path) / "pack" / "pack-deltas")
    dulwich_write_pack(name, blobs[30:], source.object_format, deltify=True)
    source = DiskObjectStore(source.path)

    copy_packed(source, [blob.id for blob in blobs], target)

    (pack,) = _packs(target)
    out = git("verify-pack", "-v", str(pack.with_suffix(".idx")), cwd=tmp_path)
    assert sum(" blob " in line for line in out.splitlines()) == 50


def test_a_pull_reads_blobs_from_packs_deltas_and_loose_files(tmp_path: Path) -> None:
    store = _store(tmp_path / "store")
    blobs = _blobs(30, seed=6)
    write_pack(store, blobs[:10], 10)
    name = str(Path(store.path) / "pack" / "pack-deltas")
    dulwich_write_pack(name, blobs[10:20], store.object_format, deltify=True)
    for blob in blobs[20:]:
        store.add_object(blob)
    store = DiskObjectStore(store.path)

    with PackedBlobs(store) as read:
        assert [read(blob.id) for blob in blobs] == [blob.as_raw_string() for blob in blobs]


def test_a_pull_never_writes_a_corrupt_blob(tmp_path: Path) -> None:
    store = _store(tmp_path / "store")
    blobs = _blobs(3, seed=7)
    write_pack(store, blobs, 3)
    (pack,) = _packs(store)
    data = bytearray(pack.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pack.chmod(0o644)
    pack.write_bytes(bytes(data))
    store = DiskObjectStore(store.path)

    with PackedBlobs(store) as read:
        results = []
        for blob in blobs:
            try:
                results.append(read(blob.id) == blob.as_raw_string())
            except (zlib.error, ChecksumMismatch):
                results.append(False)
    assert results.count(False) == 1  # reported, never returned as the file's bytes


def test_a_few_objects_of_a_large_pack_are_looked_up_and_copied(tmp_path: Path) -> None:
    source, target = _store(tmp_path / "source"), _store(tmp_path / "target")
    blobs = _blobs(300, seed=8)
    write_pack(source, blobs[:299], 299)
    source.add_object(blobs[299])  # loose, as a sync's new objects are
    wanted = [blobs[7].id, blobs[299].id]  # few enough to be looked up one by one

    copy_packed(source, wanted, target)

    target = DiskObjectStore(target.path)
    assert sorted(target) == sorted(wanted)
    assert target[blobs[7].id].as_raw_string() == blobs[7].as_raw_string()
    assert target[blobs[299].id].as_raw_string() == blobs[299].as_raw_string()


def test_a_pull_reads_blobs_from_more_packs_than_it_holds_open(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A remote nobody repacked can have hundreds of packs; a pull under a low open-file
    # limit holds only the largest few open and reads the others through the store.
    monkeypatch.setattr(packed_reader, "_PACKS_OPEN", 3)
    store = _store(tmp_path / "store")
    blobs = _blobs(12, seed=9)
    for start in range(0, 12, 2):
        write_pack(store, blobs[start : start + 2], 2)
    store = DiskObjectStore(store.path)

    with PackedBlobs(store) as read:
        assert len(read._packs) == 3
        assert [read(blob.id) for blob in blobs] == [blob.as_raw_string() for blob in blobs]
