"""What changed since the last clean sync, without reading git's index.

dulwich reads the index (every file's path, stat and blob id) in Python: about 0.45 s at
20,000 notes, 2 s at 100,000, and writing it back as long. After a cycle that leaves the
index equal to HEAD's tree, this module records what staging compares for each file
(mode, size, mtime), with the index file's own stat and HEAD, in
``.git/anamnesis-clean-tree``. The next sync walks the folder (``lstat`` only) and
:func:`drift` says which files differ from the record: none (a no-op), or the few that
drift_staging.py then reads and commits. :class:`IndexOnDemand` keeps the record up to
date after a cycle, from the whole index or from what was spliced into it.

The comparison mirrors :func:`.worktree.stage_all`: a file added, removed, resized,
touched, or as new as the index (git's "racy" rule: it could have changed without its
stat changing) is read again. Any doubt means the full staging: a symlink or other
non-regular file on disk or in the index (staging reports those); the index or HEAD
changed by anything (a git command); a branch moved under the folder; a record from
another version, unreadable or missing. The record is derived and local, like git's
index.
"""

from __future__ import annotations

import marshal
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from dulwich.index import Index, IndexEntry
from dulwich.objects import ObjectID
from dulwich.repo import Repo

from anamnesis.sync.model.backend import OwnsPath
from anamnesis.sync.objects import integrate, raw_tree
from anamnesis.sync.tree import worktree
from anamnesis.sync.tree.index_splice import IndexEdits, SplicedIndex, WholeIndex

RECORD_FILE = "anamnesis-clean-tree"
_VERSION = 1
# Beyond this many changed files the full staging (one pack of blobs, one index write) is
# as cheap, and better trodden.
MAX_DRIFT = 1_000
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
    if usable and head is not None and index_stat is not None and _holds_tree(repo, index, head):
        _write(repo, head, index_stat, entries)
    else:
        path.unlink(missing_ok=True)


@dataclass(frozen=True, slots=True)
class Drift:
    """How the folder differs from the record: ``changed`` files (new, or with another
    stat: their content is read again to know whether it changed) and ``removed`` ones.
    ``entries`` is the record's (path -> mode, size, mtime), ``index_stat`` the stat of
    the index it was read against, ``head`` the commit whose tree that index held."""

    head: ObjectID
    index_stat: tuple[int, int, int]
    entries: _Entries
    changed: list[tuple[bytes, str, os.stat_result]]
    removed: list[bytes]

    @property
    def empty(self) -> bool:
        return not self.changed and not self.removed


def drift(
    repo: Repo,
    root: Path,
    head: ObjectID | None,
    marker: ObjectID | None,
    owns: OwnsPath | None = None,
) -> Drift | None:
    """What differs from the record, or None when the record cannot tell (no record, the
    index or HEAD changed since, a symlink or other non-regular file, too many changes):
    then only the full staging can. ``owns``: see ``worktree.walk_files``."""
    if head is None or marker != head:
        return None
    try:
        version, recorded_head, index_stat, entries = marshal.loads(_record_path(repo).read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    index_path = Path(repo.controldir()) / "index"
    if version != _VERSION or recorded_head != head or index_stat != _index_stat(index_path):
        return None
    index_mtime = index_stat[1]
    changed: list[tuple[bytes, str, os.stat_result]] = []
    seen: set[bytes] = set()
    for rel, absolute in worktree.walk_files(root, owns):
        try:
            info = os.lstat(absolute)
        except FileNotFoundError:
            continue  # gone since it was listed: as staging treats it, absent
        if not stat.S_ISREG(info.st_mode):
            return None
        seen.add(rel)
        expected = entries.get(rel)
        if expected is None or not worktree.unchanged_since_indexed(expected, info, index_mtime):
            changed.append((rel, absolute, info))
            if len(changed) > MAX_DRIFT:
                return None
    removed = [] if len(seen) - len(changed) == len(entries) else sorted(entries.keys() - seen)
    return Drift(head, index_stat, entries, changed, removed)


def current(repo: Repo, found: Drift) -> bool:
    """The index is still the one ``found`` was read against (nothing rewrote it)."""
    return _index_stat(Path(repo.controldir()) / "index") == found.index_stat


def record_edits(
    repo: Repo, base: Drift, edited: Mapping[bytes, IndexEntry | None], head: ObjectID | None
) -> None:
    """Record the index after ``edited`` entries were spliced into it (None: removed),
    the index having been ``base.head``'s tree (the record said so), if that made it
    ``head``'s tree: every path that differs between the two trees was edited to its new
    entry, and every other edit set what the tree already holds. Otherwise forget it."""
    new_tree = _tree(repo, head) if head is not None else None
    differs = integrate.tree_diff(repo, _tree(repo, base.head), new_tree)
    entries = dict(base.entries)
    consistent = new_tree is not None
    for name, entry in edited.items():
        value = None if entry is None else (entry.mode, entry.sha)
        expected = (
            differs.pop(name) if name in differs else integrate.path_entry(repo, new_tree, name)
        )
        if value != expected or worktree.is_scratch_path(name):
            consistent = False
            break
        if entry is None:
            entries.pop(name, None)
        elif stat.S_ISREG(entry.mode):
            entries[name] = worktree.indexed_stat(entry)
        else:
            consistent = False  # staging reports these every time: no shortcut
            break
    index_stat = _index_stat(Path(repo.controldir()) / "index")
    if consistent and not differs and head is not None and index_stat is not None:
        _write(repo, head, index_stat, entries)
    else:
        _record_path(repo).unlink(missing_ok=True)


class IndexOnDemand:
    """The repository's index for one cycle: read whole on the first call (the same
    object after), or, after :meth:`splice_on`, edited by splicing until something needs
    it whole (drift_staging.py)."""

    __slots__ = ("opened", "_repo", "_spliced", "_base")

    def __init__(self, repo: Repo, opened: Index | None = None) -> None:
        self._repo = repo
        self.opened = opened
        self._spliced: SplicedIndex | None = None
        self._base: Drift | None = None

    def __call__(self) -> Index:
        if self.opened is None:  # spliced edits are on disk already: this reads them
            self.opened = self._repo.open_index()
        return self.opened

    def splice_on(self, base: Drift) -> SplicedIndex:
        """Edit the index by splicing, from the state the record ``base`` describes."""
        self._base = base
        self._spliced = SplicedIndex(Path(self._repo.controldir()) / "index")
        return self._spliced

    def edits(self) -> IndexEdits:
        if self.opened is None and self._spliced is not None:
            return self._spliced
        return WholeIndex(self())

    def record(self, head: ObjectID | None) -> None:
        """Update the clean record once the cycle is over (see :func:`record`)."""
        if self.opened is not None:
            record(self._repo, self.opened, head)
        elif self._spliced is not None and self._base is not None and self._spliced.edited:
            record_edits(self._repo, self._base, self._spliced.edited, head)


def _write(repo: Repo, head: ObjectID, index_stat: tuple[int, int, int], entries: _Entries) -> None:
    path = _record_path(repo)
    tmp = path.with_name(f"{RECORD_FILE}.tmp")
    tmp.write_bytes(marshal.dumps((_VERSION, head, index_stat, entries)))
    tmp.replace(path)


def _index_stat(path: str | bytes | Path) -> tuple[int, int, int] | None:
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    return (info.st_size, info.st_mtime_ns, info.st_ino)


def _record_path(repo: Repo) -> Path:
    return Path(repo.controldir()) / RECORD_FILE


def _holds_tree(repo: Repo, index: Index, head: ObjectID) -> bool:
    """Whether ``index`` is exactly ``head``'s tree: every file of the tree, with its mode
    and blob, and nothing else. Read file by file from the trees' bytes (raw_tree.py),
    where building the index's tree to compare ids built every folder in memory and
    stored each again, and parsing the trees held a 100,000-note folder as 40 MB."""
    tree = _tree(repo, head)
    if tree is None:
        return False
    count = 0
    for found in raw_tree.files(repo.object_store, tree):
        entry = index[found.path] if found.path in index else None  # noqa: SIM401 (no get)
        if not isinstance(entry, IndexEntry) or (entry.mode, entry.sha) != (found.mode, found.sha):
            return False
        count += 1
    return count == len(index)


def _tree(repo: Repo, commit: ObjectID) -> ObjectID | None:
    return integrate.tree_of(repo, commit)
