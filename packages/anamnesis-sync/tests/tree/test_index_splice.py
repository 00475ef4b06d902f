"""Splicing a few entries into git's index (index_splice.py) gives the index dulwich would
write whole, and refuses any layout it does not know before writing anything."""

from __future__ import annotations

import hashlib
import os
import struct
from pathlib import Path

import pytest
from dulwich.index import Index, IndexEntry, index_entry_from_stat
from dulwich.repo import Repo

from anamnesis.sync.tree.index_splice import NotSpliceable, SplicedIndex, splice
from sync_testing import GIT, git

needs_git = pytest.mark.skipif(GIT is None, reason="git binary not installed")


def _index_of(tmp_path: Path, names: list[str]) -> tuple[Repo, Index]:
    repo = Repo.init(str(tmp_path / "repo"), mkdir=True)
    index = repo.open_index()
    for name in names:
        path = tmp_path / "repo" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(name)
        index[name.encode()] = index_entry_from_stat(os.lstat(path), b"a" * 40)
    index.write()
    return repo, index


def _entry(index: Index, name: str) -> IndexEntry:
    entry = index[name.encode()]
    assert isinstance(entry, IndexEntry)
    return entry


NAMES = [f"semantic/{i:04d}.md" for i in range(0, 200, 2)] + ["a.md", "z/last.md"]
LONG = "episodic/" + "x" * 5000 + ".md"  # past the 12-bit length field


@pytest.mark.parametrize(
    ("upserts", "removals"),
    [
        (["semantic/0001.md", "semantic/0003.md", "0first.md", "zz.md"], []),
        ([], ["semantic/0000.md", "semantic/0100.md", "z/last.md", "absent.md"]),
        (["semantic/0100.md", "semantic/0101.md"], ["semantic/0102.md", "a.md"]),
        ([NAMES[-1]], [n for n in NAMES if n != NAMES[-1]]),
    ],
    ids=["additions", "removals", "both", "all but one removed"],
)
def test_a_splice_equals_the_whole_write(
    tmp_path: Path, upserts: list[str], removals: list[str]
) -> None:
    _repo, index = _index_of(tmp_path, NAMES)
    new = index_entry_from_stat(os.lstat(tmp_path / "repo" / NAMES[1]), b"b" * 40)
    splice(index.path, {name.encode(): new for name in upserts}, [r.encode() for r in removals])
    for name in upserts:
        index[name.encode()] = new
    for name in removals:
        if name.encode() in index:
            del index[name.encode()]
    spliced = Index(index.path)  # dulwich checks the SHA-1 trailer as it reads
    assert dict(spliced.items()) == dict(index.items())
    assert list(spliced.paths()) == sorted(spliced.paths())


def _rewrite(path: str | bytes, body: bytes) -> None:
    Path(os.fsdecode(path)).write_bytes(body + hashlib.sha1(body).digest())


def test_the_tree_cache_extension_is_dropped_and_others_refused(tmp_path: Path) -> None:
    _repo, index = _index_of(tmp_path, NAMES)
    body = Path(os.fsdecode(index.path)).read_bytes()[:-20]
    _rewrite(index.path, body + b"TREE" + struct.pack(">L", 3) + b"abc")
    splice(index.path, {}, [NAMES[0].encode()])
    assert b"TREE" not in Path(os.fsdecode(index.path)).read_bytes()
    assert len(Index(index.path)) == len(NAMES) - 1
    body = Path(os.fsdecode(index.path)).read_bytes()[:-20]
    _rewrite(index.path, body + b"link" + struct.pack(">L", 3) + b"abc")  # a split index
    before = Path(os.fsdecode(index.path)).read_bytes()
    with pytest.raises(NotSpliceable, match="extension"):
        splice(index.path, {}, [NAMES[1].encode()])
    assert Path(os.fsdecode(index.path)).read_bytes() == before


@pytest.mark.parametrize("damage", ["checksum", "version 4", "truncated", "a path too long"])
def test_unknown_or_damaged_indexes_are_refused_untouched(tmp_path: Path, damage: str) -> None:
    _repo, index = _index_of(tmp_path, NAMES)
    path = Path(os.fsdecode(index.path))
    data = path.read_bytes()
    if damage == "checksum":
        path.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    elif damage == "version 4":
        _rewrite(index.path, data[:4] + struct.pack(">L", 4) + data[8:-20])
    elif damage == "truncated":
        _rewrite(index.path, data[:100])
    before = path.read_bytes()
    upserts = {LONG.encode(): _entry(index, NAMES[0])} if damage == "a path too long" else {}
    with pytest.raises(NotSpliceable):
        splice(index.path, upserts, [NAMES[0].encode()])
    assert path.read_bytes() == before


def test_a_spliced_index_keeps_every_edit_written(tmp_path: Path) -> None:
    _repo, index = _index_of(tmp_path, NAMES)
    edits = SplicedIndex(index.path)
    entry = _entry(index, NAMES[0])
    edits.set(b"new.md", entry)
    edits.remove(NAMES[1].encode())
    assert edits.edited == {}  # nothing written yet
    edits.write()
    assert edits.edited == {b"new.md": entry, NAMES[1].encode(): None}
    assert b"new.md" in Index(index.path)


@needs_git
@pytest.mark.needs_git
def test_git_reads_a_spliced_index(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    Repo.init(str(root), mkdir=True).close()
    for name in NAMES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(name)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "all", cwd=root)  # git's own index, with a TREE extension
    (root / "fresh.md").write_text("fresh")
    blob = git("hash-object", "-w", "fresh.md", cwd=root).strip()
    entry = index_entry_from_stat(os.lstat(root / "fresh.md"), blob.encode())
    splice(root / ".git" / "index", {b"fresh.md": entry}, [NAMES[0].encode()])
    staged = git("diff", "--cached", "--name-status", cwd=root).splitlines()
    assert sorted(staged) == sorted([f"D\t{NAMES[0]}", "A\tfresh.md"])
    assert sorted(git("status", "--porcelain", cwd=root).splitlines()) == sorted(
        [
            "A  fresh.md",
            f"D  {NAMES[0]}",
            f"?? {NAMES[0]}",  # still on disk: only the index dropped it
        ]
    )
