"""The working tree <-> git index <-> trees, without a git binary.

Staging walks the notes folder and brings the index in line with it (new, edited and
deleted files); applying a tree change writes pulled files atomically and updates only the
index entries that changed, so the store sees exactly the files a sync touched.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from dulwich.diff_tree import tree_changes
from dulwich.index import Index, IndexEntry, index_entry_from_stat
from dulwich.objects import Blob, ObjectID
from dulwich.repo import Repo

from anamnesis.sync.errors import SyncError

# Blobs beyond this many in one staging go into a single pack instead of loose files.
_PACK_THRESHOLD = 64
_REGULAR = 0o100644
_EXECUTABLE = 0o100755


@dataclass(frozen=True, slots=True)
class StageReport:
    """What staging found: whether the index changed, and which paths."""

    changed: bool
    paths: tuple[str, ...]


# Held while a sync runs; lives in the notes folder but is never synced.
LOCK_FILE = ".anamnesis-sync.lock"


def is_scratch_file(name: str) -> bool:
    """Temp files of atomic writes (``.<name>.<hex>.tmp``) and the sync lock: never synced."""
    return name == LOCK_FILE or (name.startswith(".") and name.endswith(".tmp"))


def walk_files(root: Path) -> Iterator[tuple[bytes, str]]:
    """(path in tree as bytes, absolute path) of every file to sync under ``root``."""
    base = len(str(root)) + 1
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [name for name in dirnames if name != ".git"]
        for name in filenames:
            if is_scratch_file(name):
                continue
            absolute = os.path.join(dirpath, name)
            relative = absolute[base:].replace(os.sep, "/")
            yield os.fsencode(relative), absolute


def stage_all(
    repo: Repo, root: Path, *, index: Index | None = None, write: bool = True
) -> StageReport:
    """Make the index match the working tree: additions, edits and deletions.

    With ``write=False`` nothing is stored; the report only says whether anything would
    change (for status reports).
    """
    index = index if index is not None else repo.open_index()
    index_mtime = _mtime_ns(index.path) if os.path.exists(index.path) else 0
    seen: set[bytes] = set()
    new_blobs: dict[bytes, Blob] = {}
    changed_paths: list[str] = []
    touched = False
    for rel, absolute in walk_files(root):
        try:
            info = os.lstat(absolute)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue  # symlinks, sockets: notes are plain files
        seen.add(rel)
        entry = _entry(index, rel)
        mode = _EXECUTABLE if info.st_mode & 0o111 else _REGULAR
        # Git's "racy" rule: a file modified in the same instant the index was written may
        # have changed without its stat changing, so it is always re-hashed.
        if (
            entry is not None
            and entry.mode == mode
            and _stat_matches(entry, info)
            and info.st_mtime_ns < index_mtime
        ):
            continue
        try:
            with open(absolute, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            seen.discard(rel)
            continue
        blob = Blob.from_string(data)
        if entry is None or entry.sha != blob.id or entry.mode != mode:
            new_blobs[blob.id] = blob
            changed_paths.append(os.fsdecode(rel))
        elif _stat_matches(entry, info):
            continue  # content and stat unchanged: nothing to refresh
        touched = True
        if write:
            index[rel] = index_entry_from_stat(info, blob.id, mode=mode)
    for rel in [path for path in index.paths() if path not in seen]:
        changed_paths.append(os.fsdecode(rel))
        touched = True
        if write:
            del index[rel]
    if write and new_blobs:
        _store_blobs(repo, list(new_blobs.values()))
    if write and touched:
        index.write()
    return StageReport(changed=bool(changed_paths), paths=tuple(sorted(set(changed_paths))))


def apply_tree_change(
    repo: Repo,
    root: Path,
    old_tree: ObjectID | None,
    new_tree: ObjectID,
    *,
    index: Index | None = None,
) -> tuple[list[str], list[str]]:
    """Move the working tree and index from ``old_tree`` to ``new_tree``.

    Only files that differ are written or removed. A file whose content no longer matches
    ``old_tree`` was edited while the sync ran: it is left alone (its next sync will carry
    it) and reported in the second list. Returns (changed paths, skipped paths).
    """
    index = index if index is not None else repo.open_index()
    changed: list[str] = []
    skipped: list[str] = []
    writes: list[_Write] = []
    store = repo.object_store
    for change in tree_changes(store, old_tree, new_tree):
        old, new = change.old, change.new
        path_bytes = (new.path if new is not None and new.path is not None else None) or (
            old.path if old is not None else None
        )
        if path_bytes is None:
            continue
        target = safe_path(root, path_bytes)
        expected = old.sha if old is not None and old.sha is not None else None
        if not _content_is(target, expected):
            skipped.append(os.fsdecode(path_bytes))
            if new is not None and new.sha is not None and new.mode is not None:
                # Keep the index on the new tree; the newer file then shows as a local edit.
                index[path_bytes] = _placeholder_entry(new.sha, new.mode)
            continue
        if new is None or new.sha is None:
            target.unlink(missing_ok=True)
            if path_bytes in index:
                del index[path_bytes]
        else:
            blob = store[new.sha]
            assert isinstance(blob, Blob)
            writes.append(
                _Write(path_bytes, target, blob.as_raw_string(), new.mode or _REGULAR, new.sha)
            )
        changed.append(os.fsdecode(path_bytes))
    _write_all_atomically(writes)
    for write in writes:
        index[write.path] = index_entry_from_stat(
            os.lstat(write.target), write.sha, mode=write.mode
        )
    if changed or skipped:
        index.write()
    return changed, skipped


def safe_path(root: Path, path: bytes) -> Path:
    """The file for a tree path, refusing anything that could escape the folder."""
    parts = path.split(b"/")
    if any(part in (b"", b".", b"..", b".git") for part in parts) or b"\\" in path:
        raise SyncError(f"refusing unsafe path {path!r} from the remote")
    return root.joinpath(*(os.fsdecode(part) for part in parts))


def _entry(index: Index, path: bytes) -> IndexEntry | None:
    if path not in index:
        return None
    entry = index[path]
    return entry if isinstance(entry, IndexEntry) else None


def _stat_matches(entry: IndexEntry, info: os.stat_result) -> bool:
    return entry.size == info.st_size and _as_ns(entry.mtime) == info.st_mtime_ns


def _as_ns(value: int | float | tuple[int, int]) -> int:
    if isinstance(value, tuple):
        return value[0] * 1_000_000_000 + value[1]
    return int(value * 1_000_000_000)


def _mtime_ns(path: str | bytes) -> int:
    return os.stat(path).st_mtime_ns


def _store_blobs(repo: Repo, blobs: list[Blob]) -> None:
    store = repo.object_store
    if len(blobs) >= _PACK_THRESHOLD:
        store.add_objects([(blob, None) for blob in blobs])  # one pack, not N loose files
    else:
        for blob in blobs:
            store.add_object(blob)


def _content_is(target: Path, expected: ObjectID | None) -> bool:
    """True when the file holds exactly the blob ``expected`` (or is absent for None)."""
    try:
        with open(target, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return expected is None
    except IsADirectoryError:
        return False
    return expected is not None and Blob.from_string(data).id == expected


def _placeholder_entry(sha: ObjectID, mode: int) -> IndexEntry:
    # A zero stat never matches a real file, so the next staging re-hashes that file.
    return IndexEntry(
        ctime=(0, 0), mtime=(0, 0), dev=0, ino=0, mode=mode, uid=0, gid=0, size=0, sha=sha
    )


@dataclass(frozen=True, slots=True)
class _Write:
    path: bytes
    target: Path
    data: bytes
    mode: int
    sha: ObjectID


def _write_all_atomically(writes: list[_Write]) -> None:
    """Write every file via a temp file, fsync, rename.

    All temp files are written first and synced next: the first fsync commits the file
    system journal for all of them, so syncing many files costs little more than one.
    Every rename still follows its own file's fsync.
    """
    staged: list[tuple[_Write, Path, int]] = []
    try:
        for write in writes:
            write.target.parent.mkdir(parents=True, exist_ok=True)
            tmp = write.target.with_name(f".{write.target.name}.{secrets.token_hex(4)}.tmp")
            perms = 0o755 if write.mode == _EXECUTABLE else 0o644
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, perms)
            staged.append((write, tmp, fd))
            view = memoryview(write.data)
            while view:
                view = view[os.write(fd, view) :]
        for _write, _tmp, fd in staged:
            os.fsync(fd)
    except BaseException:
        for _write, tmp, fd in staged:
            os.close(fd)
            tmp.unlink(missing_ok=True)
        raise
    for write, tmp, fd in staged:
        os.close(fd)
        tmp.replace(write.target)
