"""A no-op sync without reading git's index.

dulwich reads the index (every file's path, stat and blob id) in Python: about 0.45 s at
20,000 notes, and the sync hook needed it twice (the secret scan asks what would be sent,
then the cycle stages). After a cycle that leaves the index equal to HEAD's tree, this
module records what staging compares for each file (mode, size, mtime), with the index
file's own stat and HEAD, in ``.git/anamnesis-clean-tree``. The next sync walks the folder
(``lstat`` only) and, when everything matches, knows that staging would find nothing,
without opening the index.

The check mirrors :func:`.worktree.stage_all` and any doubt means the full staging:
a file added, removed, resized, touched, or as new as the index (git's "racy" rule: it
could have changed without its stat changing); a symlink or other non-regular file on
disk or in the index (staging reports those); the index or HEAD changed by anything (our
own commit, a git command); a branch moved under the folder; a record from another
version, unreadable or missing. The record is derived and local, like git's index.
"""

from __future__ import annotations

import marshal
import os
import stat
from pathlib import Path

from dulwich.index import Index, IndexEntry
from dulwich.objects import ObjectID
from dulwich.repo import Repo

from anamnesis.sync import worktree

RECORD_FILE = "anamnesis-clean-tree"
_VERSION = 1
# path in the tree -> (mode, size, mtime in ns), as the index has them
_Entries = dict[bytes, tuple[int, int, int]]


def record(repo: Repo, index: Index, head: ObjectID | None) -> None:
    """Remember this index as clean, if it is HEAD's tree and holds only plain files
    (otherwise forget any earlier record). Call it once the cycle is over."""
    path = _record_path(repo)
    entries: _Entries = {}
    index_stat = _index_stat(index.path)
    usable = head is not None and index_stat is not None
    for name, entry in index.items() if usable else ():
        if worktree.is_scratch_path(name):
            continue  # never staged (see stage_all): not part of the comparison
        if not isinstance(entry, IndexEntry) or not stat.S_ISREG(entry.mode):
            usable = False  # staging reports these every time: no shortcut
            break
        entries[name] = worktree.indexed_stat(entry)
    if usable and head is not None and index.commit(repo.object_store) == _tree(repo, head):
        data = marshal.dumps((_VERSION, head, index_stat, entries))
        tmp = path.with_name(f"{RECORD_FILE}.tmp")
        tmp.write_bytes(data)
        tmp.replace(path)
    else:
        path.unlink(missing_ok=True)


def is_clean(repo: Repo, root: Path, head: ObjectID | None, marker: ObjectID | None) -> bool:
    """True when staging the folder would find nothing to commit and HEAD's tree is the
    index's (see the module docstring); False whenever that is not certain."""
    if head is None or marker != head:
        return False
    try:
        version, recorded_head, index_stat, entries = marshal.loads(_record_path(repo).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return False
    index_path = Path(repo.controldir()) / "index"
    if version != _VERSION or recorded_head != head or index_stat != _index_stat(index_path):
        return False
    index_mtime = index_stat[1]
    seen = 0
    for rel, absolute in worktree.walk_files(root):
        try:
            info = os.lstat(absolute)
        except FileNotFoundError:
            continue  # gone since it was listed: as staging treats it, absent
        expected = entries.get(rel)
        if expected is None or not stat.S_ISREG(info.st_mode):
            return False
        if not worktree.unchanged_since_indexed(expected, info, index_mtime):
            return False
        seen += 1
    return seen == len(entries)


class IndexOnDemand:
    """The repository's index, read on the first call and the same object after."""

    __slots__ = ("opened", "_repo")

    def __init__(self, repo: Repo) -> None:
        self._repo = repo
        self.opened: Index | None = None

    def __call__(self) -> Index:
        if self.opened is None:
            self.opened = self._repo.open_index()
        return self.opened


def _index_stat(path: str | bytes | Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _record_path(repo: Repo) -> Path:
    return Path(repo.controldir()) / RECORD_FILE


def _tree(repo: Repo, commit: ObjectID) -> ObjectID | None:
    from anamnesis.sync.integrate import tree_of

    return tree_of(repo, commit)
