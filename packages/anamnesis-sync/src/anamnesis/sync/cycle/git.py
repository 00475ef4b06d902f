"""GitSyncBackend: the notes folder as a git repository, synced with dulwich.

One cycle: commit what changed in the folder (additions, edits, deletions; see
local_commits.py); with no remote, stop there. Otherwise make sure ``origin`` points at
the configured remote (it may have been added or changed since the last run), fetch,
integrate ``origin/<branch>`` by replaying local commits on it, and push. When the same
file changed on both sides, nothing is decided silently: local edits stay, nothing is
pushed, and ``resolve()`` offers keep-both, ours or theirs (resolution.py). Results are
worded in results.py; fetch and push go through origin.py; the dulwich plumbing (refs,
commits, blobs) is objects/repository.py.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dulwich.file import FileLocked
from dulwich.graph import can_fast_forward
from dulwich.index import Index
from dulwich.objects import ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.cycle import results
from anamnesis.sync.cycle.local_commits import Local, LocalCommits
from anamnesis.sync.cycle.lock import sync_lock
from anamnesis.sync.cycle.locks import locked_message, recover_stale_locks
from anamnesis.sync.cycle.origin import Origin, RemoteMoved, TransportFailed
from anamnesis.sync.cycle.resolution import resolve_with_remote
from anamnesis.sync.cycle.status import read_state
from anamnesis.sync.model.backend import (
    STRATEGIES,
    DescribeCommit,
    OwnsPath,
    Strategy,
    SyncResult,
    SyncState,
)
from anamnesis.sync.model.errors import NothingToResolve, SyncError
from anamnesis.sync.model.fork import Fork
from anamnesis.sync.objects.integrate import (
    Divergence,
    clean_incoming,
    commits_between,
    diverged,
    flat_tree,
    patch_tree,
    replay,
    tree_of,
)
from anamnesis.sync.objects.partial import take_message
from anamnesis.sync.objects.repository import (
    WORKTREE_REF,
    best_effort,
    merge_base,
    move_branch,
    read_blob,
    read_ref,
    required,
    short,
    timestamp,
    tree_path,
)
from anamnesis.sync.remote.connect import DEFAULT_TIMEOUT_S
from anamnesis.sync.remote.housekeeping import tidy, tidy_remote
from anamnesis.sync.tree import clean_tree, drift_staging, full_disk, worktree
from anamnesis.sync.tree.folder import open_repo
from anamnesis.sync.tree.index_splice import IndexEdits
from anamnesis.sync.tree.unsynced import UnsyncedReport

# Attempts when the remote moves between our fetch and our push, or a note is edited
# while we pull.
_PUSH_ATTEMPTS = 3


@dataclass(slots=True)
class _Pulled:
    """What integrating the remote did; ``complete`` False: a note was edited meanwhile,
    so the branch did not move (see worktree.Applied)."""

    changed: list[str]
    pulled: int
    complete: bool


class GitSyncBackend(LocalCommits):
    """Sync ``repo_dir`` with ``remote`` (or commit locally only when it is None).

    ``remote`` may be a local path, ``file://``, ``ssh://``, scp-like ``user@host:path`` or
    ``https://`` URL. ``machine_id`` names this machine in commit messages and authorship.
    ``timeout_s`` bounds every wait on the network: a remote that does not answer (or
    stops answering) for that long is given up on, and the sync says so. ``describe``
    writes what each local commit changed into its message (the store's
    ``describe_commit``, given by ``anamnesis.ops.Home``); without it a commit says only
    that it is a sync from this machine. ``owns``: the paths this remote owns (see
    :data:`~anamnesis.sync.OwnsPath`; None, as with a single remote: every path).
    """

    def __init__(
        self,
        repo_dir: Path | str,
        *,
        remote: str | None,
        machine_id: str,
        branch: str = "main",
        lock_wait_s: float = 30.0,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        describe: DescribeCommit | None = None,
        owns: OwnsPath | None = None,
    ) -> None:
        self.repo_dir = Path(repo_dir).expanduser()
        self.remote = remote.strip() if remote and remote.strip() else None
        self.machine_id = machine_id
        self.branch = branch
        self.lock_wait_s = lock_wait_s
        self.timeout_s = timeout_s
        self.describe = describe
        self.owns = owns
        self._unsynced = UnsyncedReport()  # of the sync running now (under the lock)
        # When local_changes last read the folder, and what it found (_commit_by_record).
        self._seen: tuple[float, drift_staging.Staged] | None = None
        self._branch_ref = Ref(f"refs/heads/{branch}".encode())
        self._tracking_ref = Ref(f"refs/remotes/origin/{branch}".encode())

    # -- public API -----------------------------------------------------------------

    def init(self) -> None:
        """Create the repository if needed (idempotent; safe with existing notes)."""
        self._repo().close()

    def local_changes(self) -> tuple[str, ...]:
        """Paths added, edited or deleted since the last commit (nothing is staged)."""
        if not (self.repo_dir / ".git").is_dir():
            walked = worktree.walk_files(self.repo_dir, self.owns)
            return tuple(os.fsdecode(rel) for rel, _ in walked)
        with self._session() as repo:
            staged = drift_staging.stage(
                repo, self.repo_dir, self._head(repo), read_ref(repo, WORKTREE_REF), self.owns
            )
            self._seen = (time.monotonic(), staged) if staged is not None else None
            if staged is None:
                return worktree.stage_all(repo, self.repo_dir, write=False, owns=self.owns).paths
            return staged.paths

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold this folder's sync lock without running anything, for a caller that changes
        the notes folder wholesale (a wipe): a sync meanwhile waits, then says it is busy.
        Raises :class:`SyncBusy` when a sync holds it longer than ``lock_wait_s``."""
        with sync_lock(self.repo_dir / worktree.LOCK_FILE, wait_s=self.lock_wait_s):
            yield

    def commit_local(self, message: str | None = None) -> str | None:
        """Commit local changes without touching the network; return the short head."""
        with self._session() as repo:
            self._commit_local(repo, repo.open_index(), message=message)
            return short(self._head(repo))

    def sync(self) -> SyncResult:
        """One full cycle. Never raises for an unreachable remote: see ``detail``."""
        with self._session() as repo:
            # One index object for the whole cycle, read only when it is needed: reading
            # it is the slow part of a no-op (clean_tree.py).
            index = clean_tree.IndexOnDemand(repo)
            local = self._commit_by_record(repo, index)
            if local is None:
                local = self._commit_local(repo, index())
            result = self._cycle(repo, index, local)
            if not result.conflicted:
                best_effort(index.record, self._head(repo))
            if result.pushed and self.remote is not None:
                best_effort(tidy_remote, self.remote)
            return self._unsynced.finish(result)

    def resolve(self, strategy: Strategy, *, fork: Fork | None = None) -> SyncResult:
        """Settle a conflict reported by :meth:`sync`, then push the result.

        ``keep-both``: the other version stays at its path and the local version becomes
        a new note; neither supersedes the other, both are tagged ``conflict`` and name
        each other (``conflict_with``), and both are pushed; a note deleted on one side
        and edited on the other keeps the edit. ``ours``: local versions win.
        ``theirs``: the other versions win. ``fork`` overrides how keep-both rewrites the
        two versions (the CLI passes one that uses the store's codec; see
        :data:`~anamnesis.sync.fork.Fork`).
        """
        if strategy not in STRATEGIES:
            raise SyncError(f"unknown strategy {strategy!r}: use {', '.join(STRATEGIES)}")
        with self._session() as repo:
            return self._unsynced.finish(self._settle(repo, strategy, fork))

    def _settle(self, repo: Repo, strategy: Strategy, fork: Fork | None) -> SyncResult:
        index = repo.open_index()
        # Local edits first, so nothing on disk is left out; a branch moved by another
        # program is settled here with the same strategy.
        local = self._commit_local(repo, index, strategy=strategy, fork=fork)
        if local.resolved:
            whole = clean_tree.IndexOnDemand(repo, opened=index)
            result = self._cycle(repo, whole, Local(True, local.changed))
            if result.pushed and self.remote is not None:
                best_effort(tidy_remote, self.remote)
            return results.after_settling(result, strategy, local.resolved)
        stop = self._unsettled(repo, local, local.committed, local.changed)
        if stop is not None:
            return stop
        if self.remote is None:
            raise NothingToResolve("no remote is configured, so there is nothing to resolve")
        result = resolve_with_remote(
            repo,
            index,
            self._origin(),
            strategy=strategy,
            fork=fork,
            machine_id=self.machine_id,
            committed=local.committed,
            changed=local.changed,
            apply=self._apply_tree_change,
        )
        if result.pushed:
            best_effort(tidy_remote, self.remote)
        return result

    def fetched_version(self, path: str) -> bytes | None:
        """The remote's version of ``path`` as last fetched (None: it has no such file, or
        nothing was fetched yet), read from local data only: how a caller compares the two
        sides of a conflict :meth:`sync` reported."""
        with self._session() as repo:
            tracked = read_ref(repo, self._tracking_ref)
            entry = flat_tree(repo, tree_of(repo, tracked)).get(tree_path(path))
            return None if entry is None else read_blob(repo, entry[1])

    def state(self) -> SyncState:
        """Where things stand, from local data only (no network)."""
        return read_state(
            self.repo_dir, self.remote, self._branch_ref, self._tracking_ref, self.owns
        )

    # -- the cycle ------------------------------------------------------------------

    def _cycle(self, repo: Repo, index: clean_tree.IndexOnDemand, local: Local) -> SyncResult:
        """Fetch, integrate and push after ``local``; ``index`` gives the index, read
        when first asked (a no-op never asks) or spliced (``index.edits()``)."""
        committed = local.committed
        changed = list(local.changed)
        stop = self._unsettled(repo, local, committed, changed)
        if stop is not None:
            return stop
        if self.remote is None:
            return results.local_only(self._head(repo), changed=changed, committed=committed)
        origin = self._origin()
        origin.point(repo)
        pulled = 0
        why_again = "the remote kept changing while we pushed"
        for attempt in range(_PUSH_ATTEMPTS):
            if attempt:  # edits made meanwhile go in first, on what they were based on
                again = self._commit_local(repo, index())
                committed = committed or again.committed
                changed.extend(again.changed)
                stop = self._unsettled(repo, again, committed, changed)
                if stop is not None:
                    return stop
            try:
                remote_head = origin.fetch(repo)
            except TransportFailed as failure:
                return self._stopped(repo, failure.message, committed, changed, pulled)
            local_head = self._head(repo)
            if remote_head is None and local_head is None:
                return results.nothing_yet(changed=changed, committed=committed)
            outcome: _Pulled | Divergence | None = None
            if remote_head is not None and local_head is not None and local_head != remote_head:
                if not can_fast_forward(repo, remote_head, local_head):
                    # Remote has commits we lack: bring them in (or report a conflict).
                    outcome = self._integrate(repo, local_head, remote_head, index.edits())
            elif remote_head is not None and local_head is None:
                outcome = self._adopt(repo, remote_head, index.edits())
            if isinstance(outcome, Divergence):
                assert local_head is not None
                assert remote_head is not None
                taken = self._take_clean(repo, index.edits(), local_head, remote_head, outcome)
                changed.extend(taken)
                return results.conflicted(
                    self._head(repo),
                    outcome.conflicts,
                    changed=changed,
                    committed=committed,
                    taken=len(taken),
                )
            if outcome is not None:
                changed.extend(outcome.changed)
                if not outcome.complete:
                    why_again = "notes kept changing on disk while we pulled"
                    continue
                pulled += outcome.pulled
            head = self._head(repo)
            if head is None or head == remote_head:
                return self._done(repo, False, pulled, changed, committed)
            try:
                origin.push(repo, head)
            except RemoteMoved as moved:
                why_again = str(moved) or "the remote kept changing while we pushed"
                continue  # someone pushed since our fetch: fetch and integrate again
            except TransportFailed as failure:
                return self._stopped(repo, failure.message, committed, changed, pulled)
            return self._done(repo, True, pulled, changed, committed)
        return self._stopped(repo, why_again, committed, changed, pulled, unreachable=False)

    def _integrate(
        self, repo: Repo, local_head: ObjectID, remote_head: ObjectID, index: Index | IndexEdits
    ) -> _Pulled | Divergence:
        """Bring ``remote_head`` into the local branch: fast-forward or replay."""
        pulled = len(commits_between(repo, remote_head, [local_head]))
        local_tree = tree_of(repo, local_head)
        if can_fast_forward(repo, local_head, remote_head):
            new_head = remote_head
        else:
            base = merge_base(repo, local_head, remote_head)
            split = diverged(repo, local_head, remote_head, base)
            if split.conflicts:
                return split
            exclude = [remote_head] if base is None else [base, remote_head]
            new_head = replay(repo, commits_between(repo, local_head, exclude), remote_head)
        return self._checkout(repo, index, local_tree, new_head, pulled)

    def _take_clean(
        self,
        repo: Repo,
        index: Index | IndexEdits,
        local_head: ObjectID,
        remote_head: ObjectID,
        split: Divergence,
    ) -> list[str]:
        """Land the incoming changes that are not in conflict, as a take commit on the
        local branch (see partial.py); return the files written."""
        clean = clean_incoming(split)
        if not clean:
            return []
        message = take_message(remote_head, len(clean), split.conflicts, timestamp())
        take = self._commit(
            repo, patch_tree(repo, tree_of(repo, local_head), clean), [local_head], message
        )
        # A note edited meanwhile stops the take (nothing overwritten); the next sync
        # takes again.
        return self._checkout(repo, index, tree_of(repo, local_head), take, 0).changed

    def _adopt(self, repo: Repo, remote_head: ObjectID, index: Index | IndexEdits) -> _Pulled:
        """A repository with no commits takes the remote as it is."""
        return self._checkout(
            repo, index, None, remote_head, len(commits_between(repo, remote_head, []))
        )

    def _checkout(
        self,
        repo: Repo,
        index: Index | IndexEdits,
        old_tree: ObjectID | None,
        new_head: ObjectID,
        pulled: int,
    ) -> _Pulled:
        """Bring the files from ``old_tree`` to ``new_head``'s; move the branch only if
        every file could be (a note edited meanwhile is committed on what it was based on
        at the next attempt, and so meets the pulled version as a conflict, never lost)."""
        applied = self._apply_tree_change(repo, old_tree, required(tree_of(repo, new_head)), index)
        if applied.complete:
            move_branch(repo, self._branch_ref, new_head)
        return _Pulled(applied.changed, pulled, applied.complete)

    # -- a branch moved by another program ------------------------------------------

    def _unsettled(
        self, repo: Repo, local: Local, committed: bool, changed: list[str]
    ) -> SyncResult | None:
        """The result to stop with when a moved branch is not settled yet: the files here
        are not the branch's, so nothing may be fetched onto it or pushed from it."""
        if local.conflict is not None:
            return results.conflicted(
                self._head(repo),
                local.conflict.conflicts,
                changed=changed,
                committed=committed,
                moved=True,
            )
        if local.complete:
            return None
        return results.edited_while_realigning(
            self._head(repo), changed=changed, committed=committed
        )

    # -- plumbing -------------------------------------------------------------------

    @contextmanager
    def _session(self) -> Iterator[Repo]:
        """The repository, under the sync lock; tidied afterwards. A full disk at any step
        is a :class:`DiskFull` saying so (full_disk.py), never a bare OSError."""
        try:
            # The lock has a fixed place, valid before the repository exists, so two first
            # syncs share it.
            self.repo_dir.mkdir(parents=True, exist_ok=True)
            with sync_lock(self.repo_dir / worktree.LOCK_FILE, wait_s=self.lock_wait_s):
                self._unsynced = UnsyncedReport()
                # Under our lock no sync of ours is writing: an old git lock is a dead
                # writer's.
                recover_stale_locks(self.repo_dir)
                try:
                    repo = self._repo()
                    try:
                        yield repo
                        best_effort(tidy, repo)
                    finally:
                        repo.close()
                except FileLocked as exc:  # a git command's lock that outlasted our wait
                    raise SyncError(locked_message(self.repo_dir, exc)) from None
        except OSError as exc:
            if not full_disk.is_full(exc):
                raise
            raise full_disk.sync_stopped(self.repo_dir, exc) from None

    def _repo(self) -> Repo:
        return open_repo(self.repo_dir, self.branch, self._branch_ref)

    def _origin(self) -> Origin:
        assert self.remote is not None
        return Origin(self.remote, self._branch_ref, self._tracking_ref, self.timeout_s)

    def _done(
        self, repo: Repo, pushed: bool, pulled: int, changed: list[str], committed: bool
    ) -> SyncResult:
        return results.synced(
            self._head(repo),
            self.remote or "",
            pushed=pushed,
            pulled=pulled,
            changed=changed,
            committed=committed,
        )

    def _stopped(
        self,
        repo: Repo,
        why: str,
        committed: bool,
        changed: list[str],
        pulled: int,
        *,
        unreachable: bool = True,
    ) -> SyncResult:
        """The cycle stopped: the remote is unreachable (``why`` says how), or it kept
        changing."""
        return results.stopped(
            self._head(repo),
            read_ref(repo, self._tracking_ref),
            why,
            changed=changed,
            committed=committed,
            pulled=pulled,
            unreachable=unreachable,
        )
