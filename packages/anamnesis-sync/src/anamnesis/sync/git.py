"""GitSyncBackend: the notes folder as a git repository, synced with dulwich.

One cycle: stage everything (additions, edits, deletions) and commit if anything changed;
with no remote, stop there. Otherwise make sure ``origin`` points at the configured remote
(it may have been added or changed since the last run), fetch, integrate ``origin/<branch>``
by replaying local commits on it, and push. When the same file changed on both sides,
nothing is decided silently: local edits stay, nothing is pushed, and ``resolve()`` offers
keep-both, ours or theirs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from dulwich.config import ConfigFile
from dulwich.errors import NotGitRepository
from dulwich.file import FileLocked
from dulwich.graph import can_fast_forward, find_merge_base
from dulwich.index import Index
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import worktree
from anamnesis.sync.backend import STRATEGIES, Strategy, SyncResult, SyncState
from anamnesis.sync.connect import DEFAULT_TIMEOUT_S
from anamnesis.sync.errors import NothingToResolve, SyncError
from anamnesis.sync.fork import Fork, fork_note
from anamnesis.sync.housekeeping import tidy, tidy_remote
from anamnesis.sync.integrate import (
    Divergence,
    apply_changes,
    build_tree,
    clean_incoming,
    commits_between,
    diverged,
    flat_tree,
    replay,
    tree_of,
)
from anamnesis.sync.lock import sync_lock
from anamnesis.sync.locks import (
    find_git_locks,
    locked_message,
    locks_detail,
    recover_stale_locks,
)
from anamnesis.sync.partial import take_message
from anamnesis.sync.remote import describe, explain_transport_error
from anamnesis.sync.remote_head import point_unborn_head
from anamnesis.sync.transport import PushRefused, PushRejected, fetch_branch, push_branch
from anamnesis.sync.unsynced import UnsyncedReport

# Attempts when the remote moves between our fetch and our push, or a note is edited
# while we pull.
_PUSH_ATTEMPTS = 3
# The commit the files on disk were last brought in line with. The branch moving away
# from it means another program moved the branch (a push into this folder, a git command)
# without updating the files: they must not be committed over it as if they were newer.
WORKTREE_REF = Ref(b"refs/anamnesis/worktree")


class _TransportFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _PushRejected(Exception):
    pass


class _Local:
    """What committing local changes did.

    ``changed``: files rewritten on disk (reconciling a moved branch). ``conflict``: the
    moved branch and the local edits changed the same notes (nothing was moved).
    ``resolved``: conflicts of a moved branch settled by a strategy. ``complete`` is
    False when a note was edited again while its new version was being written.
    """

    __slots__ = ("changed", "committed", "complete", "conflict", "resolved")

    def __init__(
        self,
        committed: bool,
        changed: list[str] | None = None,
        *,
        conflict: Divergence | None = None,
        resolved: tuple[str, ...] = (),
        complete: bool = True,
    ) -> None:
        self.committed = committed
        self.changed = changed or []
        self.conflict = conflict
        self.resolved = resolved
        self.complete = complete


class _Pulled:
    """What integrating the remote did; ``complete`` False: a note was edited meanwhile,
    so the branch did not move (see worktree.Applied)."""

    __slots__ = ("changed", "complete", "pulled")

    def __init__(self, changed: list[str], pulled: int, complete: bool) -> None:
        self.changed = changed
        self.pulled = pulled
        self.complete = complete


class GitSyncBackend:
    """Sync ``repo_dir`` with ``remote`` (or commit locally only when it is None).

    ``remote`` may be a local path, ``file://``, ``ssh://``, scp-like ``user@host:path`` or
    ``https://`` URL. ``machine_id`` names this machine in commit messages and authorship.
    ``timeout_s`` bounds every wait on the network: a remote that does not answer (or
    stops answering) for that long is given up on, and the sync says so.
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
    ) -> None:
        self.repo_dir = Path(repo_dir).expanduser()
        self.remote = remote.strip() if remote and remote.strip() else None
        self.machine_id = machine_id
        self.branch = branch
        self.lock_wait_s = lock_wait_s
        self.timeout_s = timeout_s
        self._unsynced = UnsyncedReport()  # of the sync running now (under the lock)
        self._branch_ref = Ref(f"refs/heads/{branch}".encode())
        self._tracking_ref = Ref(f"refs/remotes/origin/{branch}".encode())

    # -- public API -----------------------------------------------------------------

    def init(self) -> None:
        """Create the repository if needed (idempotent; safe with existing notes)."""
        self._repo().close()

    def local_changes(self) -> tuple[str, ...]:
        """Paths added, edited or deleted since the last commit (nothing is staged)."""
        if not (self.repo_dir / ".git").is_dir():
            return tuple(path for path, _ in _files_of(self.repo_dir))
        with self._session() as repo:
            return worktree.stage_all(repo, self.repo_dir, write=False).paths

    def commit_local(self, message: str | None = None) -> str | None:
        """Commit local changes without touching the network; return the short head."""
        with self._session() as repo:
            self._commit_local(repo, repo.open_index(), message=message)
            return _short(self._head(repo))

    def sync(self) -> SyncResult:
        """One full cycle. Never raises for an unreachable remote: see ``detail``."""
        with self._session() as repo:
            # One index object for the whole cycle: reading it is the slow part of a no-op.
            index = repo.open_index()
            result = self._cycle(repo, index, self._commit_local(repo, index))
            if result.pushed and self.remote is not None:
                _best_effort(tidy_remote, self.remote)
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
            return self._after_moved_resolution(repo, index, local, strategy)
        stop = self._unsettled(repo, local, local.committed, local.changed)
        if stop is not None:
            return stop
        if self.remote is None:
            raise NothingToResolve("no remote is configured, so there is nothing to resolve")
        result = self._resolve(repo, index, strategy, fork, local)
        if result.pushed:
            _best_effort(tidy_remote, self.remote)
        return result

    def state(self) -> SyncState:
        """Where things stand, from local data only (no network)."""
        remote = describe(self.remote) if self.remote else None
        if not (self.repo_dir / ".git").is_dir():
            return SyncState(
                initialized=False,
                remote=remote,
                head=None,
                dirty=self.repo_dir.is_dir() and any(worktree.walk_files(self.repo_dir)),
                detail="not initialized: no sync has run yet",
            )
        repo = Repo(str(self.repo_dir))
        try:
            head = self._head(repo)
            staged = worktree.stage_all(repo, self.repo_dir, write=False)
            dirty = staged.changed
            tracking = _ref(repo, self._tracking_ref)
            ahead = behind = None
            conflicts: tuple[str, ...] = ()
            if tracking is not None and head is not None:
                ahead = len(commits_between(repo, head, [tracking]))
                behind = len(commits_between(repo, tracking, [head]))
                if ahead and behind:
                    split = diverged(repo, head, tracking, _merge_base(repo, head, tracking))
                    conflicts = tuple(os.fsdecode(p) for p in split.conflicts)
            detail = _state_detail(dirty, ahead, behind, conflicts, self.remote)
            base = _ref(repo, WORKTREE_REF)
            if base is not None and head is not None and base != head:
                detail = (
                    "the branch was moved by another program; the next sync brings the "
                    "files in line with it, keeping local edits: " + detail
                )
            git_locks = tuple(find_git_locks(self.repo_dir))
            if git_locks:
                detail = f"{locks_detail(git_locks)}; {detail}"
            return SyncState(
                initialized=True,
                remote=remote,
                head=_short(head),
                dirty=dirty,
                detail=detail,
                ahead=ahead,
                behind=behind,
                conflicts=conflicts,
                git_locks=git_locks,
                unsynced=staged.unsynced,
            )
        finally:
            repo.close()

    # -- the cycle ------------------------------------------------------------------

    def _cycle(self, repo: Repo, index: Index, local: _Local) -> SyncResult:
        committed = local.committed
        changed = list(local.changed)
        stop = self._unsettled(repo, local, committed, changed)
        if stop is not None:
            return stop
        if self.remote is None:
            return SyncResult(
                pushed=False,
                pulled=0,
                conflicted=False,
                head=_short(self._head(repo)),
                detail=(
                    ("committed local changes" if committed else "no local changes")
                    + "; no remote configured, so nothing was pushed"
                    " (set one with `anamnesis init --remote URL`)"
                ),
                changed=tuple(dict.fromkeys(changed)),
                committed=committed,
            )
        self._point_origin(repo)
        pulled = 0
        why_again = "the remote kept changing while we pushed"
        for attempt in range(_PUSH_ATTEMPTS):
            if attempt:  # edits made meanwhile go in first, on what they were based on
                again = self._commit_local(repo, index)
                committed = committed or again.committed
                changed.extend(again.changed)
                stop = self._unsettled(repo, again, committed, changed)
                if stop is not None:
                    return stop
            try:
                remote_head = self._fetch(repo)
            except _TransportFailed as failure:
                return self._offline(repo, failure.message, committed, changed, pulled)
            local_head = self._head(repo)
            if remote_head is None and local_head is None:
                return SyncResult(
                    pushed=False,
                    pulled=0,
                    conflicted=False,
                    head=None,
                    detail="nothing to sync yet: no notes here or on the remote",
                    changed=tuple(dict.fromkeys(changed)),
                    committed=committed,
                )
            outcome: _Pulled | Divergence | None = None
            if remote_head is not None and local_head is not None and local_head != remote_head:
                if not can_fast_forward(repo, remote_head, local_head):
                    # Remote has commits we lack: bring them in (or report a conflict).
                    outcome = self._integrate(repo, local_head, remote_head, index)
            elif remote_head is not None and local_head is None:
                outcome = self._adopt(repo, remote_head, index)
            if isinstance(outcome, Divergence):
                assert local_head is not None
                assert remote_head is not None
                taken = self._take_clean(repo, index, local_head, remote_head, outcome)
                changed.extend(taken)
                return self._conflict_result(repo, outcome, committed, changed, taken=len(taken))
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
                self._push(repo, head)
            except _PushRejected:
                why_again = "the remote kept changing while we pushed"
                continue  # someone pushed since our fetch: fetch and integrate again
            except _TransportFailed as failure:
                return self._offline(repo, failure.message, committed, changed, pulled)
            return self._done(repo, True, pulled, changed, committed)
        return SyncResult(
            pushed=False,
            pulled=pulled,
            conflicted=False,
            head=_short(self._head(repo)),
            detail=f"{why_again}; {self._pending(repo, committed)}: sync again",
            changed=tuple(dict.fromkeys(changed)),
            committed=committed,
        )

    def _integrate(
        self, repo: Repo, local_head: ObjectID, remote_head: ObjectID, index: Index
    ) -> _Pulled | Divergence:
        """Bring ``remote_head`` into the local branch: fast-forward or replay."""
        pulled = len(commits_between(repo, remote_head, [local_head]))
        local_tree = tree_of(repo, local_head)
        if can_fast_forward(repo, local_head, remote_head):
            new_head = remote_head
        else:
            base = _merge_base(repo, local_head, remote_head)
            split = diverged(repo, local_head, remote_head, base)
            if split.conflicts:
                return split
            exclude = [remote_head] if base is None else [base, remote_head]
            new_head = replay(repo, commits_between(repo, local_head, exclude), remote_head)
        return self._checkout(repo, index, local_tree, new_head, pulled)

    def _take_clean(
        self,
        repo: Repo,
        index: Index,
        local_head: ObjectID,
        remote_head: ObjectID,
        split: Divergence,
    ) -> list[str]:
        """Land the incoming changes that are not in conflict, as a take commit on the
        local branch (see partial.py); return the files written."""
        clean = clean_incoming(split)
        if not clean:
            return []
        local_files = flat_tree(repo, tree_of(repo, local_head))
        message = take_message(remote_head, len(clean), split.conflicts, _now())
        take = self._new_commit(
            repo, build_tree(repo, apply_changes(local_files, clean)), [local_head], message
        )
        # A note edited meanwhile stops the take (nothing overwritten); the next sync
        # takes again.
        return self._checkout(repo, index, tree_of(repo, local_head), take, 0).changed

    def _adopt(self, repo: Repo, remote_head: ObjectID, index: Index) -> _Pulled:
        """A repository with no commits takes the remote as it is."""
        return self._checkout(
            repo, index, None, remote_head, len(commits_between(repo, remote_head, []))
        )

    def _checkout(
        self, repo: Repo, index: Index, old_tree: ObjectID | None, new_head: ObjectID, pulled: int
    ) -> _Pulled:
        """Bring the files from ``old_tree`` to ``new_head``'s; move the branch only if
        every file could be (a note edited meanwhile is committed on what it was based on
        at the next attempt, and so meets the pulled version as a conflict, never lost)."""
        applied = self._apply_tree_change(repo, old_tree, _required(tree_of(repo, new_head)), index)
        if applied.complete:
            self._move_head(repo, new_head)
        return _Pulled(applied.changed, pulled, applied.complete)

    # -- a branch moved by another program ------------------------------------------

    def _reconcile_moved(
        self,
        repo: Repo,
        index: Index,
        base: ObjectID,
        head: ObjectID,
        tree: ObjectID,
        strategy: Strategy | None,
        fork: Fork | None,
    ) -> _Local:
        """The branch moved from ``base`` to ``head`` behind our back; the files here are
        still ``base`` plus local edits (``tree``). Commit those edits on ``base`` and bring
        ``head`` in like a pull, so neither side is lost. Conflicting notes are reported
        (nothing moves) unless ``strategy`` settles them."""
        local = (
            base
            if tree == tree_of(repo, base)
            else self._new_commit(
                repo, tree, [base], f"anamnesis: sync from {self.machine_id} at {_now()}"
            )
        )
        resolved: tuple[str, ...] = ()
        if can_fast_forward(repo, local, head):
            new_head = head
        elif can_fast_forward(repo, head, local):
            new_head = local  # the branch went back (a reset): the files here are newer
        else:
            merge_base = _merge_base(repo, local, head)
            split = diverged(repo, local, head, merge_base)
            if split.conflicts and strategy is None:
                return _Local(False, conflict=split)
            if split.conflicts:
                assert strategy is not None
                new_head = self._resolution_commit(repo, split, head, strategy, fork)
                resolved = tuple(os.fsdecode(p) for p in split.conflicts)
            else:
                exclude = [head] if merge_base is None else [merge_base, head]
                new_head = replay(repo, commits_between(repo, local, exclude), head)
        applied = self._apply_tree_change(repo, tree, _required(tree_of(repo, new_head)), index)
        if not applied.complete:
            return _Local(False, applied.changed, complete=False)
        self._move_head(repo, new_head)
        return _Local(new_head != head, applied.changed, resolved=resolved)

    def _unsettled(
        self, repo: Repo, local: _Local, committed: bool, changed: list[str]
    ) -> SyncResult | None:
        """The result to stop with when a moved branch is not settled yet: the files here
        are not the branch's, so nothing may be fetched onto it or pushed from it."""
        if local.conflict is not None:
            return self._conflict_result(repo, local.conflict, committed, changed, moved=True)
        if local.complete:
            return None
        return SyncResult(
            pushed=False,
            pulled=0,
            conflicted=False,
            head=_short(self._head(repo)),
            detail=(
                "notes changed on disk while this folder was brought in line with commits "
                "another program put on its branch; nothing was overwritten: sync again"
            ),
            changed=tuple(dict.fromkeys(changed)),
            committed=committed,
        )

    def _after_moved_resolution(
        self, repo: Repo, index: Index, local: _Local, strategy: Strategy
    ) -> SyncResult:
        names = ", ".join(local.resolved)
        settled = f"resolved {len(local.resolved)} conflict(s) with {strategy}: {names}"
        result = self._cycle(repo, index, _Local(True, local.changed))
        if result.pushed and self.remote is not None:
            _best_effort(tidy_remote, self.remote)
        return SyncResult(
            pushed=result.pushed,
            pulled=result.pulled,
            conflicted=result.conflicted,
            head=result.head,
            detail=f"{settled}; {result.detail}",
            changed=result.changed,
            conflicts=result.conflicts,
            committed=True,
            remote_error=result.remote_error,
        )

    # -- resolving ------------------------------------------------------------------

    def _resolve(
        self, repo: Repo, index: Index, strategy: Strategy, fork: Fork | None, local: _Local
    ) -> SyncResult:
        self._point_origin(repo)
        try:
            remote_head = self._fetch(repo)
        except _TransportFailed as failure:
            raise SyncError(failure.message) from None
        local_head = self._head(repo)
        if (
            remote_head is None
            or local_head is None
            or can_fast_forward(repo, remote_head, local_head)
        ):
            raise NothingToResolve("local and remote do not conflict; run a normal sync")
        base = _merge_base(repo, local_head, remote_head)
        split = diverged(repo, local_head, remote_head, base)
        if not split.conflicts:
            raise NothingToResolve("local and remote do not conflict; run a normal sync")
        commit = self._resolution_commit(repo, split, remote_head, strategy, fork)
        applied = self._apply_tree_change(
            repo, tree_of(repo, local_head), _required(tree_of(repo, commit)), index
        )
        names = ", ".join(os.fsdecode(p) for p in split.conflicts)
        if not applied.complete:
            return SyncResult(
                pushed=False,
                pulled=0,
                conflicted=True,
                head=_short(local_head),
                detail=(
                    f"{', '.join(applied.skipped)} changed on disk while resolving; nothing "
                    "was overwritten. Resolve again"
                ),
                changed=tuple(applied.changed),
                conflicts=tuple(os.fsdecode(p) for p in split.conflicts),
                committed=local.committed,
            )
        self._move_head(repo, commit)
        changed = tuple(dict.fromkeys([*local.changed, *applied.changed]))
        try:
            self._push(repo, commit)
        except _PushRejected:
            return SyncResult(
                pushed=False,
                pulled=0,
                conflicted=False,
                head=_short(commit),
                detail="resolved locally, but the remote moved meanwhile; sync again to push",
                changed=changed,
                committed=True,
            )
        except _TransportFailed as failure:
            raise SyncError(f"resolved locally but could not push: {failure.message}") from None
        pulled = len(commits_between(repo, remote_head, [local_head]))
        return SyncResult(
            pushed=True,
            pulled=pulled,
            conflicted=False,
            head=_short(commit),
            detail=f"resolved {len(split.conflicts)} conflict(s) with {strategy}: {names}",
            changed=changed,
            committed=True,
        )

    def _resolution_commit(
        self,
        repo: Repo,
        split: Divergence,
        remote_head: ObjectID,
        strategy: Strategy,
        fork: Fork | None,
    ) -> ObjectID:
        """A commit on ``remote_head`` settling the conflicting files by ``strategy``."""
        merged = self._merged_tree(repo, split, remote_head, strategy, fork)
        return self._new_commit(
            repo,
            build_tree(repo, merged),
            [remote_head],
            f"anamnesis: resolve conflict ({strategy}) from {self.machine_id} at {_now()}",
        )

    def _merged_tree(
        self,
        repo: Repo,
        split: Divergence,
        remote_head: ObjectID,
        strategy: Strategy,
        fork: Fork | None,
    ) -> dict[bytes, tuple[int, ObjectID]]:
        tree = flat_tree(repo, tree_of(repo, remote_head))
        clean = {path: value for path, value in split.local.items() if path not in split.conflicts}
        tree = apply_changes(tree, clean)
        fork = fork or (
            lambda path, ours, theirs: fork_note(path, ours, theirs, machine_id=self.machine_id)
        )
        for path in split.conflicts:
            ours, theirs = split.local[path], split.remote[path]
            if strategy == "ours":
                tree = apply_changes(tree, {path: ours})
            elif strategy == "keep-both":
                if ours is None:
                    continue  # deleted here, edited there: keep the edit
                if theirs is None:
                    tree[path] = ours  # edited here, deleted there: keep the edit
                    continue
                their_data = _blob(repo, theirs[1])
                forked = fork(os.fsdecode(path), _blob(repo, ours[1]), their_data)
                new_path = _tree_path(forked.path)
                if new_path == path or new_path in tree:
                    # Never write one version over another note: nothing may be lost.
                    raise SyncError(
                        f"keep-both would put {os.fsdecode(path)}'s local version at "
                        f"{forked.path}, which exists: rename that file, or resolve with "
                        "ours / theirs"
                    )
                tree[new_path] = (ours[0], _add_blob(repo, forked.ours))
                if forked.theirs != their_data:  # now names the fork (tag, conflict_with)
                    tree[path] = (theirs[0], _add_blob(repo, forked.theirs))
            # "theirs": the remote version is already in the tree
        return tree

    # -- plumbing -------------------------------------------------------------------

    @contextmanager
    def _session(self) -> Iterator[Repo]:
        """The repository, under the sync lock; tidied afterwards."""
        # The lock has a fixed place, valid before the repository exists, so two first
        # syncs share it.
        self.repo_dir.mkdir(parents=True, exist_ok=True)
        with sync_lock(self.repo_dir / worktree.LOCK_FILE, wait_s=self.lock_wait_s):
            self._unsynced = UnsyncedReport()
            # Under our lock no sync of ours is writing: an old git lock is a dead writer's.
            recover_stale_locks(self.repo_dir)
            try:
                repo = self._repo()
                try:
                    yield repo
                    _best_effort(tidy, repo)
                finally:
                    repo.close()
            except FileLocked as exc:  # a git command's lock that outlasted our wait
                raise SyncError(locked_message(self.repo_dir, exc)) from None

    def _repo(self) -> Repo:
        self.repo_dir.mkdir(parents=True, exist_ok=True)
        try:
            repo = Repo(str(self.repo_dir))
        except NotGitRepository:
            repo = Repo.init(str(self.repo_dir), default_branch=self.branch.encode())
        if self._head(repo) is None:  # nothing committed yet: HEAD must name our branch
            repo.refs.set_symbolic_ref(Ref(b"HEAD"), self._branch_ref)
        _exclude_scratch_files(repo)
        return repo

    def _head(self, repo: Repo) -> ObjectID | None:
        return _ref(repo, self._branch_ref)

    def _apply_tree_change(
        self, repo: Repo, old_tree: ObjectID | None, new_tree: ObjectID, index: Index
    ) -> worktree.Applied:
        applied = worktree.apply_tree_change(repo, self.repo_dir, old_tree, new_tree, index=index)
        self._unsynced.add(applied.unsynced)
        return applied

    def _move_head(self, repo: Repo, commit: ObjectID) -> None:
        """Point the branch at ``commit``, whose files are now the ones on disk.

        The branch first: a crash in between leaves a state the next cycle reconciles
        by replaying (changes equal on both sides), never by undoing the pull.
        """
        repo.refs[self._branch_ref] = commit
        repo.refs[WORKTREE_REF] = commit

    def _commit_local(
        self,
        repo: Repo,
        index: Index,
        *,
        strategy: Strategy | None = None,
        fork: Fork | None = None,
        message: str | None = None,
    ) -> _Local:
        """Stage everything and commit if the tree changed (``message``: why)."""
        report = worktree.stage_all(repo, self.repo_dir, index=index)
        self._unsynced.add(report.unsynced)
        head = self._head(repo)
        tree = index.commit(repo.object_store)
        base = _ref(repo, WORKTREE_REF)
        if head is not None and base is not None and base != head and base in repo.object_store:
            return self._reconcile_moved(repo, index, base, head, tree, strategy, fork)
        if head is not None and tree_of(repo, head) == tree:
            if base is None:  # a repository from before the marker existed
                repo.refs[WORKTREE_REF] = head
            return _Local(False)
        if head is None and not report.changed and not flat_tree(repo, tree):
            return _Local(False)
        commit = self._new_commit(
            repo,
            tree,
            [head] if head else [],
            message or f"anamnesis: sync from {self.machine_id} at {_now()}",
        )
        self._move_head(repo, commit)
        return _Local(True)

    def _new_commit(
        self, repo: Repo, tree: ObjectID, parents: list[ObjectID], message: str
    ) -> ObjectID:
        commit = Commit()
        commit.tree = tree
        commit.parents = parents
        commit.author = commit.committer = _identity(self.machine_id)
        commit.author_time = commit.commit_time = int(datetime.now(UTC).timestamp())
        commit.author_timezone = commit.commit_timezone = 0
        commit.encoding = b"UTF-8"
        commit.message = message.encode("utf-8") + b"\n"
        repo.object_store.add_object(commit)
        return commit.id

    def _point_origin(self, repo: Repo) -> None:
        """Set ``origin`` to the configured remote on every cycle (it may have changed)."""
        assert self.remote is not None
        config = repo.get_config()
        section = (b"remote", b"origin")
        url = self.remote.encode()
        fetch = b"+refs/heads/*:refs/remotes/origin/*"
        # Either line may be missing from a hand-edited config; both are rewritten then.
        if _config_value(config, section, b"url") != url or (
            _config_value(config, section, b"fetch") != fetch
        ):
            config.set(section, b"url", url)
            config.set(section, b"fetch", fetch)
            config.write_to_path()

    def _fetch(self, repo: Repo) -> ObjectID | None:
        """Fetch from the remote; return the remote branch head (None for an empty remote)."""
        assert self.remote is not None
        try:
            head = fetch_branch(repo, self.remote, self._branch_ref, timeout_s=self.timeout_s)
        except Exception as exc:  # dulwich raises many kinds; none may escape as a traceback
            raise _TransportFailed(
                explain_transport_error(self.remote, exc, "fetch from")
            ) from None
        if head is not None:
            repo.refs[self._tracking_ref] = head
        return head

    def _push(self, repo: Repo, head: ObjectID) -> None:
        assert self.remote is not None
        try:
            push_branch(repo, self.remote, self._branch_ref, head, timeout_s=self.timeout_s)
        except PushRejected:
            raise _PushRejected from None
        except PushRefused as exc:
            raise _TransportFailed(explain_transport_error(self.remote, exc, "push to")) from None
        except Exception as exc:  # transport errors of every kind become a detail, not a traceback
            raise _TransportFailed(explain_transport_error(self.remote, exc, "push to")) from None
        repo.refs[self._tracking_ref] = head
        # A remote made by a plain `git init --bare` names `master`: clones of it would
        # check out nothing.
        _best_effort(point_unborn_head, self.remote, self._branch_ref)

    def _pending(self, repo: Repo, committed: bool) -> str:
        """What waits for the next sync, in words (only what is true)."""
        if committed:
            return "local changes are committed and will be pushed on the next sync"
        head = self._head(repo)
        if head is not None and head != _ref(repo, self._tracking_ref):
            return "local commits not yet pushed will be pushed on the next sync"
        return "nothing local is waiting to be pushed; the next sync tries again"

    def _done(
        self, repo: Repo, pushed: bool, pulled: int, changed: list[str], committed: bool
    ) -> SyncResult:
        parts = []
        if committed:
            parts.append("committed local changes")
        if pulled:
            parts.append(f"pulled {pulled} commit(s), {len(set(changed))} file(s) changed")
        parts.append("pushed" if pushed else "nothing to push")
        return SyncResult(
            pushed=pushed,
            pulled=pulled,
            conflicted=False,
            head=_short(self._head(repo)),
            detail=f"synced with {describe(self.remote or '')}: " + "; ".join(parts),
            changed=tuple(dict.fromkeys(changed)),
            committed=committed,
        )

    def _offline(
        self, repo: Repo, message: str, committed: bool, changed: list[str], pulled: int
    ) -> SyncResult:
        return SyncResult(
            pushed=False,
            pulled=pulled,
            conflicted=False,
            head=_short(self._head(repo)),
            detail=f"{message}; {self._pending(repo, committed)}",
            changed=tuple(dict.fromkeys(changed)),
            committed=committed,
            remote_error=message,
        )

    def _conflict_result(
        self,
        repo: Repo,
        split: Divergence,
        committed: bool,
        changed: list[str],
        *,
        moved: bool = False,
        taken: int = 0,
    ) -> SyncResult:
        names = tuple(os.fsdecode(path) for path in split.conflicts)
        where = (
            "in commits another program put on this folder's branch" if moved else "on the remote"
        )
        landed = (
            f"; {taken} incoming file{'s' if taken != 1 else ''} not in conflict landed"
            if taken
            else ""
        )
        return SyncResult(
            pushed=False,
            pulled=0,
            conflicted=True,
            head=_short(self._head(repo)),
            detail=(
                f"conflict: {', '.join(names)} changed both here and {where}; local edits "
                f"are kept and nothing was pushed{landed}. Resolve with `anamnesis sync "
                "--resolve keep-both` (or ours / theirs)"
            ),
            changed=tuple(dict.fromkeys(changed)),
            conflicts=names,
            committed=committed,
        )


# -- helpers -------------------------------------------------------------------------


def _tree_path(path: str) -> bytes:
    return path.replace(os.sep, "/").encode("utf-8", errors="surrogateescape")


def _ref(repo: Repo, name: Ref) -> ObjectID | None:
    try:
        return repo.refs[name]
    except KeyError:
        return None


def _required(tree: ObjectID | None) -> ObjectID:
    if tree is None:
        raise SyncError("a commit without a tree: the repository is damaged")
    return tree


def _merge_base(repo: Repo, a: ObjectID, b: ObjectID) -> ObjectID | None:
    bases = find_merge_base(repo, [a, b])
    return bases[0] if bases else None


def _blob(repo: Repo, sha: ObjectID) -> bytes:
    blob = repo.object_store[sha]
    assert isinstance(blob, Blob)
    return blob.as_raw_string()


def _add_blob(repo: Repo, data: bytes) -> ObjectID:
    blob = Blob.from_string(data)
    repo.object_store.add_object(blob)
    return blob.id


def _identity(machine_id: str) -> bytes:
    # An email may not hold spaces or angle brackets: keep a safe spelling of the id.
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", machine_id).strip("-.") or "unknown"
    return f"anamnesis <anamnesis@{safe}>".encode()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _config_value(config: ConfigFile, section: tuple[bytes, ...], name: bytes) -> bytes | None:
    try:
        return config.get(section, name)
    except KeyError:
        return None


def _exclude_scratch_files(repo: Repo) -> None:
    """List the never-synced files in .git/info/exclude, so `git status` agrees with sync."""
    path = Path(repo.controldir()) / "info" / "exclude"
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    except OSError:
        return  # unreadable: only `git status` is affected, never the sync
    missing = [line for line in worktree.EXCLUDE_PATTERNS if line not in current.splitlines()]
    if not missing:
        return
    header = "# anamnesis: machine-local files in the notes folder, never synced"
    lines = ([] if header in current else [header]) + missing
    lead = "" if not current or current.endswith("\n") else "\n"
    _best_effort(_append, path, lead + "\n".join(lines) + "\n")


def _append(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def _best_effort(action: Callable[..., object], *args: object) -> None:
    """Housekeeping (packing, exclude lists) never fails a sync that did its work; it is
    tried again next time."""
    try:
        action(*args)
    except Exception:  # see the docstring
        return


def _files_of(root: Path) -> list[tuple[str, str]]:
    """(path in the folder, absolute path) of every file a first sync would commit."""
    return [(os.fsdecode(rel), absolute) for rel, absolute in worktree.walk_files(root)]


def _short(sha: ObjectID | None) -> str | None:
    return sha.decode("ascii")[:7] if sha is not None else None


def _state_detail(
    dirty: bool,
    ahead: int | None,
    behind: int | None,
    conflicts: tuple[str, ...],
    remote: str | None,
) -> str:
    if conflicts:
        return (
            f"conflict in {', '.join(conflicts)}: resolve with `anamnesis sync --resolve keep-both`"
        )
    parts = []
    if dirty:
        parts.append("local changes not yet committed")
    if remote is None:
        parts.append("no remote configured")
    elif ahead is None:
        parts.append("never synced with the remote")
    elif ahead or behind:
        parts.append(f"{ahead} commit(s) to push, {behind} to pull (as of the last fetch)")
    return "; ".join(parts) or "in sync (as of the last fetch)"
