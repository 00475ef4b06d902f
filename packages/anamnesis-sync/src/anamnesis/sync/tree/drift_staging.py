"""Staging and committing what changed since the last clean sync, at the cost of what
changed.

The full staging (:func:`.worktree.stage_all`) reads git's index and writes it back, and
the commit builds every folder's tree from it: at 100,000 notes that is seconds of Python
to commit ten notes. When the clean record (clean_tree.py) can say which files changed,
this reads only those, builds the new tree from HEAD's by changing only their folders
(``integrate.patch_tree``), and splices their entries into the index
(index_splice.py). The index then equals the new HEAD's tree as the full staging would
leave it, so the record is updated rather than rebuilt (at the end of the cycle, with
what a pull spliced too: ``clean_tree.IndexOnDemand``). Whenever the record cannot tell
(a file vanished or turned into something else since it was listed, an index layout the
splice does not handle), the caller stages in full instead; nothing has been written yet.

Order, for a crash at any point: blobs first (the index never names a blob that is not
stored), then the index, then the commit and the branch. A crash after the index leaves
the index ahead of HEAD with no record, which the next full staging commits.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dulwich.index import IndexEntry, index_entry_from_stat
from dulwich.objects import Blob, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.model.backend import OwnsPath
from anamnesis.sync.objects.integrate import Changes, patch_tree, path_entry, tree_of
from anamnesis.sync.objects.repository import move_branch
from anamnesis.sync.tree import clean_tree, worktree
from anamnesis.sync.tree.index_splice import NotSpliceable, SplicedIndex


@dataclass(frozen=True, slots=True)
class Staged:
    """The drift read: index entries to set, and the tree changes they amount to (a file
    touched but not changed needs only its index entry refreshed)."""

    drift: clean_tree.Drift
    indexed: dict[bytes, IndexEntry]
    changes: Changes
    blobs: list[Blob]

    @property
    def paths(self) -> tuple[str, ...]:
        """What a commit would change: added, edited and deleted paths."""
        return tuple(sorted(os.fsdecode(path) for path in self.changes))


def stage(
    repo: Repo,
    root: Path,
    head: ObjectID | None,
    marker: ObjectID | None,
    owns: OwnsPath | None = None,
) -> Staged | None:
    """Read what changed since the clean record; None when only the full staging can
    tell (see the module docstring). ``owns``: see ``worktree.walk_files``."""
    found = clean_tree.drift(repo, root, head, marker, owns)
    if found is None:
        return None
    head_tree = tree_of(repo, found.head)
    if head_tree is None:
        return None
    indexed: dict[bytes, IndexEntry] = {}
    changes: Changes = {}
    blobs: dict[ObjectID, Blob] = {}
    for rel, absolute, info in found.changed:
        data = worktree.read_regular(absolute)
        if data is None:  # gone, or swapped for a symlink or FIFO since it was listed
            return None
        blob = Blob.from_string(data)
        mode = worktree.file_mode(info)
        if path_entry(repo, head_tree, rel) != (mode, blob.id):
            changes[rel] = (mode, blob.id)
            blobs[blob.id] = blob
        indexed[rel] = index_entry_from_stat(info, blob.id, mode=mode)
    changes.update((rel, None) for rel in found.removed)
    return Staged(found, indexed, changes, list(blobs.values()))


def commit(
    repo: Repo,
    staged: Staged,
    index: SplicedIndex,
    branch_ref: Ref,
    make_commit: Callable[[ObjectID, list[ObjectID]], ObjectID],
) -> bool | None:
    """Store, index and commit ``staged``; True when a commit was made, False when only
    index entries were refreshed, None when the index cannot be spliced (nothing was
    written to it: stage in full)."""
    head = staged.drift.head
    worktree.store_blobs(repo, staged.blobs)
    for path, entry in staged.indexed.items():
        index.set(path, entry)
    for path in staged.drift.removed:
        index.remove(path)
    try:
        index.write()
    except NotSpliceable:
        return None
    if not staged.changes:
        return False
    head_tree = tree_of(repo, head)
    assert head_tree is not None  # stage() checked it
    tree = patch_tree(repo, head_tree, staged.changes)
    move_branch(repo, branch_ref, make_commit(tree, [head]))
    return True
