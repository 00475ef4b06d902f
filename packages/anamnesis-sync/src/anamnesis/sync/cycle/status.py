"""Where the synced folder stands, from local data only (no network): what
``GitSyncBackend.state()`` reports, without taking the sync lock."""

from __future__ import annotations

import os
from pathlib import Path

from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.cycle.locks import find_git_locks, locks_detail
from anamnesis.sync.model.backend import OwnsPath, SyncState
from anamnesis.sync.objects.integrate import commits_between, diverged
from anamnesis.sync.objects.repository import WORKTREE_REF, merge_base, read_ref, short
from anamnesis.sync.remote.urls import describe
from anamnesis.sync.tree import worktree


def read_state(
    repo_dir: Path,
    remote_url: str | None,
    branch_ref: Ref,
    tracking_ref: Ref,
    owns: OwnsPath | None = None,
) -> SyncState:
    """The state of ``repo_dir``'s ``branch_ref`` against ``tracking_ref`` (the remote's
    branch as of the last fetch); ``remote_url``: the configured remote, if any; ``owns``:
    the paths it owns (see ``worktree.walk_files``)."""
    remote = describe(remote_url) if remote_url else None
    if not (repo_dir / ".git").is_dir():
        return SyncState(
            initialized=False,
            remote=remote,
            head=None,
            dirty=repo_dir.is_dir() and any(worktree.walk_files(repo_dir, owns)),
            detail="not initialized: no sync has run yet",
        )
    repo = Repo(str(repo_dir))
    try:
        head = read_ref(repo, branch_ref)
        staged = worktree.stage_all(repo, repo_dir, write=False, owns=owns)
        dirty = staged.changed
        tracking = read_ref(repo, tracking_ref)
        ahead = behind = None
        conflicts: tuple[str, ...] = ()
        if tracking is not None and head is not None:
            ahead = len(commits_between(repo, head, [tracking]))
            behind = len(commits_between(repo, tracking, [head]))
            if ahead and behind:
                split = diverged(repo, head, tracking, merge_base(repo, head, tracking))
                conflicts = tuple(os.fsdecode(p) for p in split.conflicts)
        detail = _state_detail(dirty, ahead, behind, conflicts, remote_url)
        base = read_ref(repo, WORKTREE_REF)
        if base is not None and head is not None and base != head:
            detail = (
                "the branch was moved by another program; the next sync brings the "
                "files in line with it, keeping local edits: " + detail
            )
        git_locks = tuple(find_git_locks(repo_dir))
        if git_locks:
            detail = f"{locks_detail(git_locks)}; {detail}"
        return SyncState(
            initialized=True,
            remote=remote,
            head=short(head),
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
