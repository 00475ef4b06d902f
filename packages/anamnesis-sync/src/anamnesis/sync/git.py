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
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from dulwich.errors import NotGitRepository
from dulwich.graph import can_fast_forward, find_merge_base
from dulwich.index import Index
from dulwich.objects import Blob, Commit, ObjectID
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync import worktree
from anamnesis.sync.backend import STRATEGIES, Strategy, SyncResult, SyncState
from anamnesis.sync.errors import NothingToResolve, SyncError
from anamnesis.sync.fork import Fork, fork_note
from anamnesis.sync.integrate import (
    Divergence,
    apply_changes,
    build_tree,
    commits_between,
    diverged,
    flat_tree,
    replay,
    tree_of,
)
from anamnesis.sync.lock import sync_lock
from anamnesis.sync.remote import describe, explain_transport_error
from anamnesis.sync.transport import PushRefused, PushRejected, fetch_branch, push_branch

# Loose objects beyond this are packed: thousands of syncs must not leave thousands of files.
LOOSE_OBJECT_LIMIT = 500
# Attempts when the remote moves between our fetch and our push.
_PUSH_ATTEMPTS = 3


class _TransportFailed(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _PushRejected(Exception):
    pass


class GitSyncBackend:
    """Sync ``repo_dir`` with ``remote`` (or commit locally only when it is None).

    ``remote`` may be a local path, ``file://``, ``ssh://``, scp-like ``user@host:path`` or
    ``https://`` URL. ``machine_id`` names this machine in commit messages and authorship.
    """

    def __init__(
        self,
        repo_dir: Path | str,
        *,
        remote: str | None,
        machine_id: str,
        branch: str = "main",
        lock_wait_s: float = 30.0,
    ) -> None:
        self.repo_dir = Path(repo_dir).expanduser()
        self.remote = remote.strip() if remote and remote.strip() else None
        self.machine_id = machine_id
        self.branch = branch
        self.lock_wait_s = lock_wait_s
        self._branch_ref = Ref(f"refs/heads/{branch}".encode())
        self._tracking_ref = Ref(f"refs/remotes/origin/{branch}".encode())

    # -- public API -----------------------------------------------------------------

    def init(self) -> None:
        """Create the repository if needed (idempotent; safe with existing notes)."""
        self._repo().close()

    def commit_local(self) -> str | None:
        """Commit local changes without touching the network; return the head."""
        with self._locked():
            repo = self._repo()
            try:
                self._commit_local(repo, repo.open_index())
                return _hex(self._head(repo))
            finally:
                repo.close()

    def sync(self) -> SyncResult:
        """One full cycle. Never raises for an unreachable remote: see ``detail``."""
        with self._locked():
            repo = self._repo()
            try:
                return self._cycle(repo)
            finally:
                repo.close()

    def resolve(self, strategy: Strategy, *, fork: Fork | None = None) -> SyncResult:
        """Settle a conflict reported by :meth:`sync`, then push the result.

        ``keep-both``: the remote version stays at its path and the local version becomes
        a new note that supersedes it (tagged ``conflict``); a note deleted on one side
        and edited on the other keeps the edit. ``ours``: local versions win.
        ``theirs``: remote versions win. ``fork`` overrides how keep-both turns a local
        file into a new note (the CLI passes one that uses the store's codec).
        """
        if strategy not in STRATEGIES:
            raise SyncError(f"unknown strategy {strategy!r}: use {', '.join(STRATEGIES)}")
        if self.remote is None:
            raise NothingToResolve("no remote is configured, so there is nothing to resolve")
        with self._locked():
            repo = self._repo()
            try:
                return self._resolve(repo, strategy, fork)
            finally:
                repo.close()

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
            dirty = worktree.stage_all(repo, self.repo_dir, write=False).changed
            tracking = _ref(repo, self._tracking_ref)
            ahead = behind = None
            conflicts: tuple[str, ...] = ()
            if tracking is not None and head is not None:
                ahead = len(commits_between(repo, head, [tracking]))
                behind = len(commits_between(repo, tracking, [head]))
                if ahead and behind:
                    split = diverged(repo, head, tracking, _merge_base(repo, head, tracking))
                    conflicts = tuple(os.fsdecode(p) for p in split.conflicts)
            return SyncState(
                initialized=True,
                remote=remote,
                head=_short(head),
                dirty=dirty,
                detail=_state_detail(dirty, ahead, behind, conflicts, self.remote),
                ahead=ahead,
                behind=behind,
                conflicts=conflicts,
            )
        finally:
            repo.close()

    # -- the cycle ------------------------------------------------------------------

    def _cycle(self, repo: Repo) -> SyncResult:
        # One index object for the whole cycle: reading it is the slow part of a no-op sync.
        index = repo.open_index()
        committed = self._commit_local(repo, index)
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
                committed=committed,
            )
        self._point_origin(repo)
        changed: list[str] = []
        pulled = 0
        for _attempt in range(_PUSH_ATTEMPTS):
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
                    committed=committed,
                )
            if remote_head is not None and local_head is not None and local_head != remote_head:
                if not can_fast_forward(repo, remote_head, local_head):
                    # Remote has commits we lack: bring them in (or report a conflict).
                    outcome = self._integrate(repo, local_head, remote_head, index)
                    if isinstance(outcome, Divergence):
                        return self._conflict_result(repo, outcome, committed)
                    more_changed, more_pulled = outcome
                    changed.extend(more_changed)
                    pulled += more_pulled
            elif remote_head is not None and local_head is None:
                more_changed, more_pulled = self._adopt(repo, remote_head, index)
                changed.extend(more_changed)
                pulled += more_pulled
            head = self._head(repo)
            if head is None or head == remote_head:
                return self._done(repo, False, pulled, changed, committed)
            try:
                self._push(repo, head)
            except _PushRejected:
                continue  # someone pushed since our fetch: fetch and integrate again
            except _TransportFailed as failure:
                return self._offline(repo, failure.message, committed, changed, pulled)
            return self._done(repo, True, pulled, changed, committed)
        return SyncResult(
            pushed=False,
            pulled=pulled,
            conflicted=False,
            head=_short(self._head(repo)),
            detail=(
                "the remote kept changing while we pushed; local changes are committed, sync again"
            ),
            changed=tuple(changed),
            committed=committed,
        )

    def _integrate(
        self, repo: Repo, local_head: ObjectID, remote_head: ObjectID, index: Index
    ) -> tuple[list[str], int] | Divergence:
        """Bring ``remote_head`` into the local branch: fast-forward or replay."""
        pulled = len(commits_between(repo, remote_head, [local_head]))
        local_tree = tree_of(repo, local_head)
        if can_fast_forward(repo, local_head, remote_head):
            new_head = remote_head
        else:
            split = diverged(
                repo, local_head, remote_head, _merge_base(repo, local_head, remote_head)
            )
            if split.conflicts:
                return split
            base = _merge_base(repo, local_head, remote_head)
            exclude = [remote_head] if base is None else [base, remote_head]
            new_head = replay(repo, commits_between(repo, local_head, exclude), remote_head)
        changed, _skipped = worktree.apply_tree_change(
            repo, self.repo_dir, local_tree, _required(tree_of(repo, new_head)), index=index
        )
        repo.refs[self._branch_ref] = new_head
        return changed, pulled

    def _adopt(self, repo: Repo, remote_head: ObjectID, index: Index) -> tuple[list[str], int]:
        """A repository with no commits takes the remote as it is."""
        changed, _skipped = worktree.apply_tree_change(
            repo, self.repo_dir, None, _required(tree_of(repo, remote_head)), index=index
        )
        repo.refs[self._branch_ref] = remote_head
        return changed, len(commits_between(repo, remote_head, []))

    # -- resolving ------------------------------------------------------------------

    def _resolve(self, repo: Repo, strategy: Strategy, fork: Fork | None) -> SyncResult:
        index = repo.open_index()
        self._commit_local(repo, index)  # local edits first, so nothing on disk is left out
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
        merged = self._merged_tree(repo, split, remote_head, strategy, fork)
        commit = self._new_commit(
            repo,
            build_tree(repo, merged),
            [remote_head],
            f"anamnesis: resolve conflict ({strategy}) from {self.machine_id} at {_now()}",
        )
        changed, _skipped = worktree.apply_tree_change(
            repo,
            self.repo_dir,
            tree_of(repo, local_head),
            _required(tree_of(repo, commit)),
            index=index,
        )
        repo.refs[self._branch_ref] = commit
        try:
            self._push(repo, commit)
        except _PushRejected:
            return SyncResult(
                pushed=False,
                pulled=0,
                conflicted=False,
                head=_short(commit),
                detail="resolved locally, but the remote moved meanwhile; sync again to push",
                changed=tuple(changed),
                committed=True,
            )
        except _TransportFailed as failure:
            raise SyncError(f"resolved locally but could not push: {failure.message}") from None
        pulled = len(commits_between(repo, remote_head, [local_head]))
        names = ", ".join(os.fsdecode(p) for p in split.conflicts)
        return SyncResult(
            pushed=True,
            pulled=pulled,
            conflicted=False,
            head=_short(commit),
            detail=f"resolved {len(split.conflicts)} conflict(s) with {strategy}: {names}",
            changed=tuple(changed),
            committed=True,
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
                new_path, data = fork(
                    os.fsdecode(path), _blob(repo, ours[1]), _blob(repo, theirs[1])
                )
                blob = Blob.from_string(data)
                repo.object_store.add_object(blob)
                tree[_tree_path(new_path)] = (ours[0], blob.id)
            # "theirs": the remote version is already in the tree
        return tree

    # -- plumbing -------------------------------------------------------------------

    @contextmanager
    def _locked(self) -> Iterator[None]:
        # A fixed place, valid before the repository exists, so two first syncs share it.
        self.repo_dir.mkdir(parents=True, exist_ok=True)
        with sync_lock(self.repo_dir / worktree.LOCK_FILE, wait_s=self.lock_wait_s):
            yield

    def _repo(self) -> Repo:
        self.repo_dir.mkdir(parents=True, exist_ok=True)
        try:
            repo = Repo(str(self.repo_dir))
        except NotGitRepository:
            repo = Repo.init(str(self.repo_dir), default_branch=self.branch.encode())
        if self._head(repo) is None:  # nothing committed yet: HEAD must name our branch
            repo.refs.set_symbolic_ref(Ref(b"HEAD"), self._branch_ref)
        return repo

    def _head(self, repo: Repo) -> ObjectID | None:
        return _ref(repo, self._branch_ref)

    def _commit_local(self, repo: Repo, index: Index) -> bool:
        """Stage everything and commit if the tree changed; True if a commit was made."""
        report = worktree.stage_all(repo, self.repo_dir, index=index)
        head = self._head(repo)
        tree = index.commit(repo.object_store)
        if head is not None and tree_of(repo, head) == tree:
            return False
        if head is None and not report.changed and not flat_tree(repo, tree):
            return False
        commit = self._new_commit(
            repo,
            tree,
            [head] if head else [],
            f"anamnesis: sync from {self.machine_id} at {_now()}",
        )
        repo.refs[self._branch_ref] = commit
        self._tidy(repo)
        return True

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
        current_url = config.get(section, b"url") if config.has_section(section) else None
        if current_url != url or config.get(section, b"fetch") != fetch:
            config.set(section, b"url", url)
            config.set(section, b"fetch", fetch)
            config.write_to_path()

    def _fetch(self, repo: Repo) -> ObjectID | None:
        """Fetch from the remote; return the remote branch head (None for an empty remote)."""
        assert self.remote is not None
        try:
            head = fetch_branch(repo, self.remote, self._branch_ref)
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
            push_branch(repo, self.remote, self._branch_ref, head)
        except PushRejected:
            raise _PushRejected from None
        except PushRefused as exc:
            raise _TransportFailed(explain_transport_error(self.remote, exc, "push to")) from None
        except Exception as exc:  # transport errors of every kind become a detail, not a traceback
            raise _TransportFailed(explain_transport_error(self.remote, exc, "push to")) from None
        repo.refs[self._tracking_ref] = head

    def _tidy(self, repo: Repo) -> None:
        """Pack loose objects once they pile up (each sync adds a handful)."""
        store = repo.object_store
        if store.count_loose_objects() > LOOSE_OBJECT_LIMIT:
            store.pack_loose_objects()

    def _done(
        self, repo: Repo, pushed: bool, pulled: int, changed: list[str], committed: bool
    ) -> SyncResult:
        parts = []
        if committed:
            parts.append("committed local changes")
        if pulled:
            parts.append(f"pulled {pulled} commit(s), {len(changed)} file(s) changed")
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
            detail=f"{message}; local changes are committed and will be pushed on the next sync",
            changed=tuple(changed),
            committed=committed,
            remote_error=message,
        )

    def _conflict_result(self, repo: Repo, split: Divergence, committed: bool) -> SyncResult:
        names = tuple(os.fsdecode(path) for path in split.conflicts)
        return SyncResult(
            pushed=False,
            pulled=0,
            conflicted=True,
            head=_short(self._head(repo)),
            detail=(
                f"conflict: {', '.join(names)} changed both here and on the remote; local edits "
                "are kept and nothing was pushed. Resolve with `anamnesis sync --resolve "
                "keep-both` (or ours / theirs)"
            ),
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


def _identity(machine_id: str) -> bytes:
    # An email may not hold spaces or angle brackets: keep a safe spelling of the id.
    safe = re.sub(r"[^A-Za-z0-9._-]", "-", machine_id).strip("-.") or "unknown"
    return f"anamnesis <anamnesis@{safe}>".encode()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _hex(sha: ObjectID | None) -> str | None:
    return sha.decode("ascii") if sha is not None else None


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
