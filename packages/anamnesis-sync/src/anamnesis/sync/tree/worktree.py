"""The working tree <-> git index <-> trees, without a git binary.

Staging walks the notes folder and brings the index in line with it (new, edited and
deleted files); applying a tree change writes pulled files atomically and updates only the
index entries that changed, so the store sees exactly the files a sync touched.

Only plain files are synced. A symlink, FIFO, socket or device in the folder is never
followed, opened or committed (a symlink to ``/etc/passwd`` must not push the password
file; opening a FIFO waits forever): for sync it is absent, and it is reported
(:class:`~anamnesis.sync.backend.Unsynced`). A symlink or submodule in the remote's tree
is never created on disk: it is carried in the index as it is, so it is neither
materialized nor deleted from the tree, and reported too.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dulwich.diff_tree import tree_changes
from dulwich.index import Index, IndexEntry, index_entry_from_stat
from dulwich.object_store import DiskObjectStore
from dulwich.objects import Blob, ObjectID
from dulwich.repo import Repo

from anamnesis.sync.model.backend import OwnsPath, Unsynced
from anamnesis.sync.model.errors import DiskFull, SyncError
from anamnesis.sync.objects.pack_writer import write_pack
from anamnesis.sync.objects.packed_reader import PackedBlobs
from anamnesis.sync.tree import full_disk
from anamnesis.sync.tree.durable_writes import EXECUTABLE, REGULAR, PlannedFile, apply_planned
from anamnesis.sync.tree.index_splice import IndexEdits, WholeIndex

# Blobs beyond this many in one staging go into a single pack instead of loose files.
_PACK_THRESHOLD = 64
# New blobs held in memory before they are stored (a pack each time): a first sync of
# 100,000 notes would otherwise hold every note's text at once.
_BLOBS_HELD = 32 << 20
_GITLINK = 0o160000
# Opening for a read never follows a symlink nor waits on a FIFO (both are checked with
# lstat first; these close the window between the check and the open).
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_BINARY", 0)
)


@dataclass(frozen=True, slots=True)
class StageReport:
    """What staging found: whether the index changed, and which paths; ``unsynced``: what
    was left alone, not being a plain file (on disk here, or carried from the remote)."""

    changed: bool
    paths: tuple[str, ...]
    unsynced: tuple[Unsynced, ...] = ()


@dataclass(frozen=True, slots=True)
class Applied:
    """What applying a tree change did.

    ``skipped`` lists files that were edited on disk after the sync staged them: they are
    left as they are, and the tree change is *not* complete, so the caller must not move
    its branch (the edits are then committed on the version they were based on, and the
    next integration sees them as local changes). When the edit was seen before anything
    was written, nothing at all was touched (``changed`` is empty). ``unsynced``: symlinks
    and submodules of the new tree that were not created on disk (carried in the index).
    """

    changed: list[str]
    skipped: list[str]
    unsynced: list[Unsynced] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.skipped


# Held while a sync runs; lives in the notes folder but is never synced.
LOCK_FILE = ".anamnesis-sync.lock"
SYNC_LOCK_FILE = LOCK_FILE  # its public name: anamnesis.sync.SYNC_LOCK_FILE
# SQLite files (the derived index, its WAL and shared memory) are live machine-local state:
# copying them between machines corrupts them, so a stray one in the notes folder is
# never committed (the store keeps its index.db beside the folder, not in it).
_DATABASE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
_DATABASE_SIDECARS = ("", "-wal", "-shm", "-journal")
_DATABASE_ENDINGS = tuple(s + c for s in _DATABASE_SUFFIXES for c in _DATABASE_SIDECARS)
# Lines for .git/info/exclude, so `git status` agrees with what sync commits.
EXCLUDE_PATTERNS = (
    f"/{LOCK_FILE}",
    ".*.tmp",
    *(f"*{ending}" for ending in _DATABASE_ENDINGS),
)


def is_scratch_file(name: str) -> bool:
    """Never synced: the sync lock, temp files of atomic writes (``.<name>.<hex>.tmp``)
    and SQLite databases with their sidecar files."""
    if name == LOCK_FILE or (name.startswith(".") and name.endswith(".tmp")):
        return True
    return name.lower().endswith(_DATABASE_ENDINGS)  # one C call: this runs for every file


def is_scratch_path(path: bytes) -> bool:
    return is_scratch_file(os.fsdecode(path.rsplit(b"/", 1)[-1]))


def walk_files(root: Path, owns: OwnsPath | None = None) -> Iterator[tuple[bytes, str]]:
    """(path in tree as bytes, absolute path) of every file to sync under ``root``.

    Symlinks to directories are yielded too, as entries (never walked into), so that
    staging reports them. ``owns``: only the paths it owns (the rest are, for this
    folder's sync, absent: a tracked one is committed as deleted)."""
    base = len(str(root)) + 1
    for dirpath, dirnames, filenames in os.walk(root):
        # Case-insensitive: on macOS and Windows ".GIT" is the repository itself.
        kept = [name for name in dirnames if name.lower() != ".git"]
        linked = [name for name in kept if Path(dirpath, name).is_symlink()]
        dirnames[:] = [name for name in kept if name not in linked]
        for name in [*filenames, *linked]:
            if is_scratch_file(name):
                continue
            absolute = os.path.join(dirpath, name)
            relative = absolute[base:].replace(os.sep, "/")
            if owns is not None and not owns(relative):
                continue
            yield os.fsencode(relative), absolute


def stage_all(
    repo: Repo,
    root: Path,
    *,
    index: Index | None = None,
    write: bool = True,
    owns: OwnsPath | None = None,
) -> StageReport:
    """Make the index match the working tree: additions, edits and deletions.

    With ``write=False`` nothing is stored; the report only says whether anything would
    change (for status reports). ``owns``: see :func:`walk_files`.
    """
    index = index if index is not None else repo.open_index()
    index_mtime = _mtime_ns(index.path) if os.path.exists(index.path) else 0
    seen: set[bytes] = set()
    new_blobs: dict[bytes, Blob] = {}
    pending = 0  # bytes of new_blobs
    changed_paths: list[str] = []
    unsynced: list[Unsynced] = []
    touched = False
    for rel, absolute in walk_files(root, owns):
        try:
            info = os.lstat(absolute)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(info.st_mode):
            # Never followed nor read: for sync it is absent (see the module docstring).
            unsynced.append(Unsynced(os.fsdecode(rel), _disk_kind(info.st_mode), False))
            continue
        seen.add(rel)
        entry = _entry(index, rel)
        mode = file_mode(info)
        if entry is not None and unchanged_since_indexed(indexed_stat(entry), info, index_mtime):
            continue
        data = read_regular(absolute)
        if data is None:  # gone, or swapped for a symlink or FIFO since the lstat
            seen.discard(rel)
            continue
        blob = Blob.from_string(data)
        if entry is None or entry.sha != blob.id or entry.mode != mode:
            if write:
                new_blobs[blob.id] = blob
                pending += len(data)
                if pending >= _BLOBS_HELD:  # stored as they pile up: memory stays flat
                    store_blobs(repo, list(new_blobs.values()))
                    new_blobs.clear()
                    pending = 0
            changed_paths.append(os.fsdecode(rel))
        elif _stat_matches(entry, info):
            continue  # content and stat unchanged: nothing to refresh
        touched = True
        if write:
            index[rel] = index_entry_from_stat(info, blob.id, mode=mode)
    # A scratch path in the index came from the remote (committed by another tool): it is
    # not ours to change, so its absence here is not a deletion. Nor is a symlink's or a
    # submodule's from the remote: they are never created on disk.
    for rel in [p for p in index.paths() if p not in seen and not is_scratch_path(p)]:
        entry = _entry(index, rel)
        if entry is not None and not stat.S_ISREG(entry.mode):
            unsynced.append(Unsynced(os.fsdecode(rel), _tree_kind(entry.mode), True))
            continue
        changed_paths.append(os.fsdecode(rel))
        touched = True
        if write:
            del index[rel]
    if write and new_blobs:
        store_blobs(repo, list(new_blobs.values()))
    if write and touched:
        index.write()
    return StageReport(
        changed=bool(changed_paths),
        paths=tuple(sorted(set(changed_paths))),
        unsynced=tuple(unsynced),
    )


def apply_tree_change(
    repo: Repo,
    root: Path,
    old_tree: ObjectID | None,
    new_tree: ObjectID,
    *,
    index: Index | IndexEdits | None = None,
    owns: OwnsPath | None = None,
) -> Applied:
    """Move the working tree and index from ``old_tree`` to ``new_tree``.

    Only files that differ are written or removed. Every file is first checked to still
    hold its ``old_tree`` content: if one does not, it was edited while the sync ran, and
    nothing is written at all. Each file is checked again just before it is replaced, so
    an edit landing while the new files are written is skipped too (see :class:`Applied`).
    A path ``owns`` does not own is never written nor removed here: the file belongs to
    another remote; it leaves the index, so the next commit has it deleted.
    """
    if index is None or isinstance(index, Index):
        index = WholeIndex(index if index is not None else repo.open_index())
    store = repo.object_store
    plan: list[PlannedFile] = []
    skipped: list[str] = []
    unsynced: list[Unsynced] = []
    # Scratch names (lock, temp, database files) committed elsewhere are carried in the
    # index only: writing them would clobber this machine's own lock or index. So are
    # symlinks and submodules: never created here.
    carried: dict[bytes, IndexEntry | None] = {}
    root_name = str(root)  # one string for every planned file (see PlannedFile)
    for change in tree_changes(store, old_tree, new_tree):
        old, new = change.old, change.new
        path_bytes = (new.path if new is not None and new.path is not None else None) or (
            old.path if old is not None else None
        )
        if path_bytes is None:
            continue
        target = safe_path(root, path_bytes)
        if owns is not None and not owns(os.fsdecode(path_bytes)):
            carried[path_bytes] = None
            continue
        if is_scratch_path(path_bytes):
            carried[path_bytes] = (
                _placeholder_entry(new.sha, new.mode)
                if new is not None and new.sha is not None and new.mode is not None
                else None
            )
            continue
        new_file = new is not None and new.sha is not None and _is_file(new.mode)
        if new is not None and new.sha is not None and not new_file:
            assert new.mode is not None
            carried[path_bytes] = _placeholder_entry(new.sha, new.mode)
            unsynced.append(Unsynced(os.fsdecode(path_bytes), _tree_kind(new.mode), True))
        elif old is not None and old.sha is not None and not _is_file(old.mode) and not new_file:
            carried[path_bytes] = None  # a symlink or submodule entry the remote removed
        # On disk there is only ever a plain file of ours (or nothing).
        expected = old.sha if old is not None and _is_file(old.mode) else None
        if expected is None and not new_file:
            continue
        if not _content_is(target, expected):
            skipped.append(os.fsdecode(path_bytes))
            continue
        # The content is read from the object store when the file is written, not here.
        sha, mode = (new.sha, new.mode or REGULAR) if new is not None and new_file else (None, 0)
        plan.append(PlannedFile(path_bytes, root_name, expected, mode, sha))
    if skipped:  # untouched: the caller commits the edits and retries
        return Applied([], skipped, unsynced)
    done: set[bytes] = set()
    reader = PackedBlobs(store)
    full: DiskFull | None = None
    try:
        for item in apply_planned(plan, reader, _content_is):
            # Indexed as soon as it is in place: a later failure leaves it indexed.
            if item.sha is None:
                index.remove(item.path)
            else:
                info = os.lstat(item.target)
                index.set(item.path, index_entry_from_stat(info, item.sha, mode=item.mode))
            done.add(item.path)
    except OSError as exc:
        if not full_disk.is_full(exc):
            raise
        full = _out_of_space(root, plan, done, reader, exc)
    finally:
        reader.close()
        if done:
            index.write()
    if full is not None:
        raise full
    written = [os.fsdecode(item.path) for item in plan if item.path in done]
    skipped = [os.fsdecode(item.path) for item in plan if item.path not in done]
    for path, entry in carried.items():
        if entry is not None:
            index.set(path, entry)
        else:
            index.remove(path)
    if carried:
        index.write()
    return Applied(written, skipped, unsynced)


def _out_of_space(
    root: Path, plan: list[PlannedFile], done: set[bytes], read: PackedBlobs, exc: OSError
) -> DiskFull:
    """What a pull that ran out of space wrote, and the sizes of the notes left to write."""
    writes = [item for item in plan if item.sha is not None]
    rest = [len(read(item.sha)) for item in writes if item.sha and item.path not in done]
    return full_disk.pull_stopped(root, exc, written=len(writes) - len(rest), rest=rest)


# Windows and macOS resolve these spellings to ".git" too: trailing dots and spaces are
# dropped, "GIT~1" is the 8.3 short name, and HFS+ ignores some zero-width code points.
_HFS_IGNORABLE = re.compile("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_FORBIDDEN_NAMES = frozenset({"", ".", "..", ".git", "git~1"})


def safe_path(root: Path, path: bytes) -> Path:
    """The file for a tree path, refusing anything that could escape the folder or write
    into the repository itself (``..``, ``.git`` in any spelling, backslashes, NUL)."""
    parts = path.split(b"/")
    if b"\\" in path or b"\0" in path or any(_is_forbidden(part) for part in parts):
        raise SyncError(f"refusing unsafe path {path!r} from the remote")
    return root.joinpath(*(os.fsdecode(part) for part in parts))


def _is_forbidden(part: bytes) -> bool:
    if part in (b"", b".", b".."):
        return True
    name = _HFS_IGNORABLE.sub("", os.fsdecode(part))
    # "name:stream" is an NTFS alternate data stream of "name".
    return name.split(":", 1)[0].rstrip(". ").casefold() in _FORBIDDEN_NAMES


def _entry(index: Index, path: bytes) -> IndexEntry | None:
    if path not in index:
        return None
    entry = index[path]
    return entry if isinstance(entry, IndexEntry) else None


def _stat_matches(entry: IndexEntry, info: os.stat_result) -> bool:
    return entry.size == info.st_size and _as_ns(entry.mtime) == info.st_mtime_ns


def file_mode(info: os.stat_result) -> int:
    """The git mode of a plain file on disk: executable or not."""
    return EXECUTABLE if info.st_mode & 0o111 else REGULAR


def indexed_stat(entry: IndexEntry) -> tuple[int, int, int]:
    """What staging compares of an indexed file: its mode, size and mtime (ns)."""
    return (entry.mode, entry.size, _as_ns(entry.mtime))


def unchanged_since_indexed(
    indexed: tuple[int, int, int], info: os.stat_result, index_mtime: int
) -> bool:
    """Staging's test that a file is as indexed without reading it: the same mode, size
    and mtime (:func:`indexed_stat`), and older than the index (``index_mtime``). Git's
    "racy" rule: a file modified in the same instant the index was written may have
    changed without its stat changing, so it is always re-hashed."""
    current = (file_mode(info), info.st_size, info.st_mtime_ns)
    return indexed == current and info.st_mtime_ns < index_mtime


def _as_ns(value: int | float | tuple[int, int]) -> int:
    if isinstance(value, tuple):
        return value[0] * 1_000_000_000 + value[1]
    return int(value * 1_000_000_000)


def _mtime_ns(path: str | bytes) -> int:
    return os.stat(path).st_mtime_ns


def store_blobs(repo: Repo, blobs: list[Blob]) -> None:
    store = repo.object_store
    if len(blobs) >= _PACK_THRESHOLD and isinstance(store, DiskObjectStore):
        write_pack(store, blobs, len(blobs))  # one pack, not N loose files
    else:
        for blob in blobs:
            store.add_object(blob)


def _content_is(target: str | Path, expected: ObjectID | None) -> bool:
    """True when the file holds exactly the blob ``expected`` (or is absent for None).

    A symlink, FIFO or device there is never opened: it holds nothing of ours, so it
    counts as absent (a pulled note then replaces the link itself, never its target)."""
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return expected is None
    if stat.S_ISDIR(info.st_mode):
        return False
    data = read_regular(target) if stat.S_ISREG(info.st_mode) else None
    if data is None:
        return expected is None
    return expected is not None and Blob.from_string(data).id == expected


def read_regular(path: str | Path) -> bytes | None:
    """The bytes of a plain file; None when it is gone or is not a plain file (a symlink
    or FIFO swapped in since it was checked: never followed, never waited on)."""
    try:
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # O_NOFOLLOW met a symlink
            return None
        raise
    with open(fd, "rb", closefd=True) as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read()


def _is_file(mode: int | None) -> bool:
    """A tree or index mode of a plain file (not a symlink, not a submodule)."""
    return mode is None or stat.S_ISREG(mode)


def _disk_kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "other"


def _tree_kind(mode: int) -> str:
    if mode == _GITLINK:
        return "submodule"
    return "symlink" if stat.S_ISLNK(mode) else "other"


def _placeholder_entry(sha: ObjectID, mode: int) -> IndexEntry:
    # An index entry for a file that is not on disk (a carried scratch path).
    return IndexEntry(
        ctime=(0, 0), mtime=(0, 0), dev=0, ino=0, mode=mode, uid=0, gid=0, size=0, sha=sha
    )
