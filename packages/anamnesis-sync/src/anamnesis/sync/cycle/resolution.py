"""Settling a conflict a sync reported: keep-both, ours or theirs.

A resolution is a commit on the other side's head whose tree takes every change of ours
that is not in conflict, and settles each conflicting file by the strategy: ``ours`` (the
local version), ``theirs`` (the other version, already there) or ``keep-both`` (both, as
two notes that name each other: see fork.py). :func:`resolve_with_remote` settles a
conflict with the remote and pushes; the sync cycle uses :func:`resolution_commit` for
a branch moved by another program.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from dulwich.graph import can_fast_forward
from dulwich.index import Index
from dulwich.objects import ObjectID
from dulwich.repo import Repo

from anamnesis.sync.cycle import results
from anamnesis.sync.cycle.origin import Origin, RemoteMoved, TransportFailed
from anamnesis.sync.model.backend import Strategy, SyncResult
from anamnesis.sync.model.errors import NothingToResolve, SyncError
from anamnesis.sync.model.fork import Fork, fork_note
from anamnesis.sync.objects.integrate import (
    Divergence,
    Tree,
    apply_changes,
    build_tree,
    commits_between,
    diverged,
    flat_tree,
    tree_of,
)
from anamnesis.sync.objects.repository import (
    add_blob,
    merge_base,
    move_branch,
    new_commit,
    read_blob,
    read_ref,
    required,
    timestamp,
    tree_path,
)
from anamnesis.sync.tree import worktree

# (repo, old tree, new tree, index) -> what writing the change on disk did.
ApplyTree = Callable[[Repo, ObjectID | None, ObjectID, Index], worktree.Applied]


def resolve_with_remote(
    repo: Repo,
    index: Index,
    origin: Origin,
    *,
    strategy: Strategy,
    fork: Fork | None,
    machine_id: str,
    committed: bool,
    changed: list[str],
    apply: ApplyTree,
) -> SyncResult:
    """Fetch, settle the conflicts between the local branch and the remote's by
    ``strategy``, write the result on disk and push it.

    ``committed``/``changed``: what committing local changes first did. Raises
    :class:`NothingToResolve` when the two do not conflict, :class:`SyncError` when the
    remote cannot be reached.
    """
    origin.point(repo)
    try:
        remote_head = origin.fetch(repo)
    except TransportFailed as failure:
        raise SyncError(failure.message) from None
    local_head = read_ref(repo, origin.branch)
    if remote_head is None or local_head is None or can_fast_forward(repo, remote_head, local_head):
        raise NothingToResolve("local and remote do not conflict; run a normal sync")
    base = merge_base(repo, local_head, remote_head)
    split = diverged(repo, local_head, remote_head, base)
    if not split.conflicts:
        raise NothingToResolve("local and remote do not conflict; run a normal sync")
    commit = resolution_commit(repo, split, remote_head, strategy, fork, machine_id=machine_id)
    applied = apply(repo, tree_of(repo, local_head), required(tree_of(repo, commit)), index)
    if not applied.complete:
        return results.resolve_interrupted(
            local_head,
            applied.skipped,
            split.conflicts,
            changed=applied.changed,
            committed=committed,
        )
    move_branch(repo, origin.branch, commit)
    changed = [*changed, *applied.changed]
    try:
        origin.push(repo, commit)
    except RemoteMoved:
        return results.resolved_unpushed(commit, changed=changed)
    except TransportFailed as failure:
        raise SyncError(f"resolved locally but could not push: {failure.message}") from None
    pulled = len(commits_between(repo, remote_head, [local_head]))
    return results.resolved(commit, strategy, split.conflicts, changed=changed, pulled=pulled)


def resolution_commit(
    repo: Repo,
    split: Divergence,
    remote_head: ObjectID,
    strategy: Strategy,
    fork: Fork | None,
    *,
    machine_id: str,
) -> ObjectID:
    """A commit on ``remote_head`` settling the conflicting files by ``strategy``
    (``fork``: how keep-both rewrites the two versions; default :func:`fork_note`)."""
    fork = fork or (lambda path, ours, theirs: fork_note(path, ours, theirs, machine_id=machine_id))
    merged = _merged_tree(repo, split, flat_tree(repo, tree_of(repo, remote_head)), strategy, fork)
    return new_commit(
        repo,
        build_tree(repo, merged),
        [remote_head],
        f"anamnesis: resolve conflict ({strategy}) from {machine_id} at {timestamp()}",
        machine_id=machine_id,
    )


def _merged_tree(repo: Repo, split: Divergence, tree: Tree, strategy: Strategy, fork: Fork) -> Tree:
    """The other side's ``tree`` with our changes that are not in conflict, and the
    conflicting files settled by ``strategy``."""
    clean = {path: value for path, value in split.local.items() if path not in split.conflicts}
    tree = apply_changes(tree, clean)
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
            their_data = read_blob(repo, theirs[1])
            forked = fork(os.fsdecode(path), read_blob(repo, ours[1]), their_data)
            new_path = tree_path(forked.path)
            if new_path == path or new_path in tree:
                # Never write one version over another note: nothing may be lost.
                raise SyncError(
                    f"keep-both would put {os.fsdecode(path)}'s local version at "
                    f"{forked.path}, which exists: rename that file, or resolve with "
                    "ours / theirs"
                )
            tree[new_path] = (ours[0], add_blob(repo, forked.ours))
            if forked.theirs != their_data:  # now names the fork (tag, conflict_with)
                tree[path] = (theirs[0], add_blob(repo, forked.theirs))
        # "theirs": the remote version is already in the tree
    return tree
