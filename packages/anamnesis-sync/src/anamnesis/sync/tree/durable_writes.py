"""Writing the files a pull brings, durably, with few files open and little memory held.

Each file is written to a temp file beside it (``.<name>.<hex>.tmp``: never synced, never
indexed), made durable, and only then renamed over its name. What holds after a crash or a
power loss at any moment:

* a note file holds its old content or its new content in full, never a part of it and
  never nothing: its content was on disk before the rename made it visible;
* a file edited on this machine while the pull ran is not replaced: it is checked again
  just before its rename, and left for the next sync cycle to commit;
* at most one round of temp files (see below) may be left behind; they are inert.

How the durability is batched, in rounds of :data:`ROUND_FILES` files:

* On Linux, ``sync()`` returns once every dirty page of every file system is on disk. A
  round's files are written and closed, one ``sync()`` makes them all durable, then they
  are renamed: a round costs one journal commit instead of one per file (100,000 pulled
  notes took 100,000 ``fsync`` calls, about 20 s, before).
* Elsewhere (macOS's ``sync()`` only schedules the writes; Windows has none) each file is
  ``fsync``-ed before it is closed, as before.

Either way at most one file is open at a time (a pull of any size works under a low
open-file limit: macOS's default is 256), and a file's content is read from the object
store only when it is written, so memory does not grow with the size of the pull.
"""

# Names are strings and os functions here, not Paths: this is the loop of a pull that
# writes every file, and a Path made and parsed per file cost seconds at 100,000 notes.
# ruff: noqa: PTH103, PTH105, PTH108, PTH118

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from dulwich.objects import ObjectID

# Files written before each durability point (one sync() on Linux). Larger rounds commit
# the journal less often; the round also bounds the temp files a crash can leave behind.
ROUND_FILES = 1024
# Git's modes of a plain file and an executable one.
REGULAR = 0o100644
EXECUTABLE = 0o100755
# sync() waits for the writes to finish on Linux only (see the module docstring).
_SYNC_IS_DURABLE = sys.platform.startswith("linux") and hasattr(os, "sync")


@dataclass(frozen=True, slots=True, eq=False)
class PlannedFile:
    """One file (``path`` in the tree, under ``root``) to replace with blob ``sha`` (or
    remove, when ``sha`` is None), provided it still holds blob ``expected`` (None:
    absent). The path was checked safe when the file was planned (``worktree.safe_path``);
    its full name is not kept, to keep a plan of 100,000 files small."""

    path: bytes
    root: str
    expected: ObjectID | None
    mode: int
    sha: ObjectID | None

    @property
    def target(self) -> str:
        """The file's name (a string: see the note on the imports)."""
        return os.path.join(self.root, *os.fsdecode(self.path).split("/"))


# (file, blob expected there) -> whether the file still holds it.
StillHolds = Callable[[str, "ObjectID | None"], bool]


def apply_planned(
    planned: Sequence[PlannedFile], read_blob: Callable[[ObjectID], bytes], still: StillHolds
) -> Iterator[PlannedFile]:
    """Write and remove the planned files (see the module docstring), yielding each one
    done as soon as it is: if a later round fails (a full disk), the caller still knows
    which files are in place. A file no longer holding what it was planned from is left
    alone, and not yielded."""
    writes = [item for item in planned if item.sha is not None]
    for start in range(0, len(writes), ROUND_FILES):
        yield from _write_round(writes[start : start + ROUND_FILES], read_blob, still)
    for item in planned:
        target = item.target
        if item.sha is None and still(target, item.expected):
            _unlink(target)
            yield item


def _write_round(
    writes: Sequence[PlannedFile], read_blob: Callable[[ObjectID], bytes], still: StillHolds
) -> list[PlannedFile]:
    staged: list[tuple[PlannedFile, str, str]] = []
    try:
        for item in writes:
            assert item.sha is not None
            target = item.target
            staged.append((item, target, _write_temp(target, item.mode, read_blob(item.sha))))
        if _SYNC_IS_DURABLE:
            os.sync()
    except BaseException:
        for _item, _target, tmp in staged:
            _unlink(tmp)
        raise
    done: list[PlannedFile] = []
    for item, target, tmp in staged:
        # Checked again at the last moment: the edit window shrinks to a rename.
        if still(target, item.expected):
            os.replace(tmp, target)
            done.append(item)
        else:
            _unlink(tmp)
    return done


def _write_temp(target: str, mode: int, data: bytes) -> str:
    """``data`` in a new temp file beside ``target``, closed (and fsync-ed where one
    ``sync()`` per round does not make it durable)."""
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    perms = 0o755 if mode == EXECUTABLE else 0o644
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(tmp, flags, perms)
    except FileNotFoundError:  # its folder is new (made only then: one call less a file)
        os.makedirs(folder, exist_ok=True)
        fd = os.open(tmp, flags, perms)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if not _SYNC_IS_DURABLE:
            os.fsync(fd)
    except BaseException:
        os.close(fd)
        _unlink(tmp)
        raise
    os.close(fd)
    return tmp


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
