"""Committing what changed in the notes folder, the part of a sync before the network.

Three ways, cheapest first: what ``local_changes`` read under a second ago; what the
clean record says changed (drift_staging.py: the cost of the change); the full staging
of the folder (worktree.stage_all: the cost of the store). A branch moved by another
program under the folder is reconciled here too: the local edits are committed on what
they were based on, then the moved branch is brought in like a pull.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from dulwich.graph import can_fast_forward
from dulwich.index import Index
from dulwich.objects import ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.cycle.resolution import resolution_commit
from anamnesis.sync.model.backend import DescribeCommit, OwnsPath, Strategy
from anamnesis.sync.model.fork import Fork
from anamnesis.sync.objects.commit_files import committed_files
from anamnesis.sync.objects.integrate import Divergence, commits_between, diverged, replay, tree_of
from anamnesis.sync.objects.repository import (
    WORKTREE_REF,
    merge_base,
    move_branch,
    new_commit,
    read_ref,
    required,
    timestamp,
)
from anamnesis.sync.tree import clean_tree, drift_staging, worktree
from anamnesis.sync.tree.index_splice import IndexEdits
from anamnesis.sync.tree.unsynced import UnsyncedReport

# How long what local_changes read stands for the sync that follows it.
VERDICT_S = 1.0
COMMIT_PREFIX = "anamnesis: "  # what every commit this machine makes says first


@dataclass(slots=True)
class Local:
    """What committing local changes did.

    ``changed``: files rewritten on disk (reconciling a moved branch). ``conflict``: the
    moved branch and the local edits changed the same notes (nothing was moved).
    ``resolved``: conflicts of a moved branch settled by a strategy. ``complete`` is
    False when a note was edited again while its new version was being written.
    """

    committed: bool
    changed: list[str] = field(default_factory=list)
    conflict: Divergence | None = None
    resolved: tuple[str, ...] = ()
    complete: bool = True


class LocalCommits:
    """The local half of :class:`~anamnesis.sync.git.GitSyncBackend` (its base class)."""

    repo_dir: Path
    machine_id: str
    describe: DescribeCommit | None
    owns: OwnsPath | None
    _branch_ref: Ref
    _unsynced: UnsyncedReport
    # When local_changes last read the folder, and what it found (_commit_by_record).
    _seen: tuple[float, drift_staging.Staged] | None

    def _reconcile_moved(
        self,
        repo: Repo,
        index: Index,
        base: ObjectID,
        head: ObjectID,
        tree: ObjectID,
        strategy: Strategy | None,
        fork: Fork | None,
    ) -> Local:
        """The branch moved from ``base`` to ``head`` behind our back; the files here are
        still ``base`` plus local edits (``tree``). Commit those edits on ``base`` and bring
        ``head`` in like a pull, so neither side is lost. Conflicting notes are reported
        (nothing moves) unless ``strategy`` settles them."""
        local = base if tree == tree_of(repo, base) else self._commit(repo, tree, [base])
        resolved: tuple[str, ...] = ()
        if can_fast_forward(repo, local, head):
            new_head = head
        elif can_fast_forward(repo, head, local):
            new_head = local  # the branch went back (a reset): the files here are newer
        else:
            base_of_both = merge_base(repo, local, head)
            split = diverged(repo, local, head, base_of_both)
            if split.conflicts and strategy is None:
                return Local(False, conflict=split)
            if split.conflicts:
                assert strategy is not None
                new_head = resolution_commit(
                    repo, split, head, strategy, fork, machine_id=self.machine_id
                )
                resolved = tuple(os.fsdecode(p) for p in split.conflicts)
            else:
                exclude = [head] if base_of_both is None else [base_of_both, head]
                new_head = replay(repo, commits_between(repo, local, exclude), head)
        applied = self._apply_tree_change(repo, tree, required(tree_of(repo, new_head)), index)
        if not applied.complete:
            return Local(False, applied.changed, complete=False)
        move_branch(repo, self._branch_ref, new_head)
        return Local(new_head != head, applied.changed, resolved=resolved)

    def _head(self, repo: Repo) -> ObjectID | None:
        return read_ref(repo, self._branch_ref)

    def _commit_by_record(self, repo: Repo, index: clean_tree.IndexOnDemand) -> Local | None:
        """Commit what changed since the last clean sync at the cost of what changed
        (drift_staging.py); None when only the full staging can tell. What
        :meth:`local_changes` read under a second ago stands, with HEAD and the index
        unchanged since (the secret scan asks it right before a sync; walking the folder
        twice was a third of a no-op). An edit landing in between waits for the next
        sync, as one landing after the staging always has."""
        head = self._head(repo)
        staged = self._recent_reading(repo, head) or drift_staging.stage(
            repo, self.repo_dir, head, read_ref(repo, WORKTREE_REF), self.owns
        )
        if staged is None:
            return None
        made = drift_staging.commit(
            repo,
            staged,
            index.splice_on(staged.drift),
            self._branch_ref,
            lambda tree, parents: self._commit(repo, tree, parents),
        )
        return None if made is None else Local(made)

    def _recent_reading(self, repo: Repo, head: ObjectID | None) -> drift_staging.Staged | None:
        """What local_changes read, if under a second ago with HEAD and the index as then."""
        seen, self._seen = self._seen, None
        if seen is None or time.monotonic() - seen[0] >= VERDICT_S:
            return None
        staged = seen[1]
        return (
            staged if staged.drift.head == head and clean_tree.current(repo, staged.drift) else None
        )

    def _apply_tree_change(
        self, repo: Repo, old_tree: ObjectID | None, new_tree: ObjectID, index: Index | IndexEdits
    ) -> worktree.Applied:
        applied = worktree.apply_tree_change(
            repo, self.repo_dir, old_tree, new_tree, index=index, owns=self.owns
        )
        self._unsynced.add(applied.unsynced)
        return applied

    def _commit_local(
        self,
        repo: Repo,
        index: Index,
        *,
        strategy: Strategy | None = None,
        fork: Fork | None = None,
        message: str | None = None,
    ) -> Local:
        """Stage everything and commit if the tree changed (``message``: why)."""
        report = worktree.stage_all(repo, self.repo_dir, index=index, owns=self.owns)
        self._unsynced.add(report.unsynced)
        head = self._head(repo)
        tree = index.commit(repo.object_store)
        base = read_ref(repo, WORKTREE_REF)
        if head is not None and base is not None and base != head and base in repo.object_store:
            return self._reconcile_moved(repo, index, base, head, tree, strategy, fork)
        if head is not None and tree_of(repo, head) == tree:
            if base is None:  # a repository from before the marker existed
                repo.refs[WORKTREE_REF] = head
            return Local(False)
        if head is None and not report.changed and tree == Tree().id:  # nothing at all
            return Local(False)
        commit = self._commit(repo, tree, [head] if head else [], message)
        move_branch(repo, self._branch_ref, commit)
        return Local(True)

    def _commit(
        self, repo: Repo, tree: ObjectID, parents: list[ObjectID], message: str | None = None
    ) -> ObjectID:
        """A commit by this machine. ``message`` says why; what it changed is said by
        ``describe`` (when the backend has one): as the subject when there is no other
        reason, else under it, as the commit's body. Without either, a sync from this
        machine, now."""
        described = self._described(repo, tree, parents)
        if message and described:
            message = f"{message}\n\n{described}"
        elif described:
            message = f"{COMMIT_PREFIX}{described}"
        message = message or f"{COMMIT_PREFIX}sync from {self.machine_id} at {timestamp()}"
        return new_commit(repo, tree, parents, message, machine_id=self.machine_id)

    def _described(self, repo: Repo, tree: ObjectID, parents: list[ObjectID]) -> str | None:
        if self.describe is None:
            return None
        old = tree_of(repo, parents[0]) if parents else None
        return self.describe(committed_files(repo, old, tree))
