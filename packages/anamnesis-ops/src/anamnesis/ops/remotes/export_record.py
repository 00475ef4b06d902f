"""What a mirror's last cycle left in step: each note's file here and its copy in the
mirror, by their stat, so an export whose notes did not change reads none of them.

Kept in the mirror's ``.git/`` (derived and local, like git's index): for each note, the
stat (mtime in ns, size) of the file in memory/ and of its mirror copy when they were
last known to match (exported, or imported), under a stamp of what else decides a copy
(the codec's meta files: an encrypted remote's recipients), so that a change there has
every note read and encoded again (sealed for a new member). An export reads and
encodes a note only when either stat differs, or either file is as new as the record
itself (git's "racy" rule: a file written in the instant the record was taken may change
without its stat doing so). Anything unreadable means no record: every note is read, as without one.
"""

from __future__ import annotations

import marshal
import os
import time
from pathlib import Path

RECORD_FILE = "anamnesis-export"
_VERSION = 2
# A file modified this close to the record's own time is read again (see the module).
_RACY_NS = 2_000_000_000

Stat = tuple[int, int]  # (mtime in ns, size)


def stat_of(path: Path | str) -> Stat | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_mtime_ns, info.st_size)


class ExportRecord:
    """The record of one mirror folder (``mirror``: its sync folder)."""

    def __init__(self, mirror: Path) -> None:
        self._path = mirror / ".git" / RECORD_FILE
        self._entries: dict[str, tuple[Stat, Stat]] = {}
        self._taken = 0
        self._stamp = ""
        self._changed = False
        try:
            version, taken, stamp, entries = marshal.loads(self._path.read_bytes())
        except (OSError, ValueError, EOFError, TypeError):
            return
        if version == _VERSION and isinstance(entries, dict) and isinstance(stamp, str):
            self._entries, self._taken, self._stamp = entries, taken, stamp

    def keep_if(self, stamp: str) -> None:
        """The record holds only under ``stamp`` (what besides the files decides a copy):
        under another one every note is read again, and recorded under this one."""
        if stamp != self._stamp:
            self._entries, self._stamp, self._changed = {}, stamp, True

    def in_step(self, rel: str, note: Stat | None, copy: Stat | None) -> bool:
        """Whether the note and its copy are as they were when last known to match."""
        if note is None or copy is None or self._entries.get(rel) != (note, copy):
            return False
        return max(note[0], copy[0]) < self._taken - _RACY_NS

    def set(self, rel: str, note: Stat | None, copy: Stat | None) -> None:
        """The note and its copy, just found to match (written, or read and compared)."""
        if note is None or copy is None:
            self.drop(rel)
        elif self._entries.get(rel) != (note, copy):
            self._entries[rel] = (note, copy)
            self._changed = True
        elif max(note[0], copy[0]) >= self._taken - _RACY_NS:
            # Too new to trust when recorded, and just checked by reading: a record taken
            # now trusts it from now on.
            self._changed = True

    def drop(self, rel: str) -> None:
        if self._entries.pop(rel, None) is not None:
            self._changed = True

    def save(self) -> None:
        """Write it (when it changed or has files too new to trust yet), if the mirror
        has a repository: the record lives in it."""
        if not self._changed or not self._path.parent.is_dir():
            return
        now = time.time_ns()
        tmp = self._path.with_name(RECORD_FILE + ".tmp")
        tmp.write_bytes(marshal.dumps((_VERSION, now, self._stamp, self._entries)))
        tmp.replace(self._path)
        self._taken, self._changed = now, False
