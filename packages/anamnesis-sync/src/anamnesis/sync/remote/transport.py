"""Fetch and push one branch through dulwich's transport clients.

dulwich's porcelain would do this too, but importing it costs ~0.3 s, and a sync started
by a session hook pays for every import.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from dulwich.client import LocalGitClient
from dulwich.file import FileLocked
from dulwich.graph import can_fast_forward
from dulwich.object_store import DiskObjectStore
from dulwich.objects import ObjectID
from dulwich.pack import generate_unpacked_objects
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.sync.objects import new_objects, object_copy
from anamnesis.sync.objects.pack_copy import copy_packed
from anamnesis.sync.remote.connect import DEFAULT_TIMEOUT_S, bounded, open_client
from anamnesis.sync.remote.urls import explain_transport_error


class PushRejected(Exception):
    """The remote branch moved since we fetched, or another push holds its lock: fetch
    and integrate again. The message, when there is one, says why for the user."""


# How long to let another push that holds the remote branch's lock finish, in seconds
# (a ref update takes milliseconds; the jitter keeps two waiting pushes apart).
_LOCKED_PAUSE_S = (0.05, 0.3)


class PushRefused(Exception):
    """The remote refused the update for another reason (permissions, hooks, locks).

    ``hint`` says what to do, when we know better than a generic hint.
    """

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


def fetch_branch(
    repo: Repo, url: str, ref: Ref, *, timeout_s: float = DEFAULT_TIMEOUT_S
) -> ObjectID | None:
    """Fetch ``ref`` from ``url`` into ``repo``; return its remote head (None if absent)."""
    client, path = open_client(url, config=repo.get_config_stack(), timeout_s=timeout_s)
    if isinstance(client, LocalGitClient):
        return _fetch_local(repo, path, ref)

    def wants(refs: Mapping[Ref, ObjectID], depth: int | None = None) -> list[ObjectID]:
        head = refs.get(ref)
        return [head] if head is not None and head not in repo.object_store else []

    with bounded(client, timeout_s):
        result = client.fetch(path, repo, determine_wants=wants, progress=_quiet)
    return result.refs.get(ref)


def list_remote_branches(url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> list[str]:
    """The branch names the remote has (an empty list for an empty repository).

    Raises what dulwich raises when the remote cannot be reached: callers explain it.
    """
    client, path = open_client(url, config=None, timeout_s=timeout_s)
    names: list[bytes]
    if isinstance(client, LocalGitClient):
        with Repo(path) as remote:
            names = list(remote.refs.as_dict())
    else:
        with bounded(client, timeout_s):
            names = list(client.get_refs(path.encode()).refs)
    prefix = b"refs/heads/"
    return sorted(ref[len(prefix) :].decode() for ref in names if ref.startswith(prefix))


def check_remote(url: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> str | None:
    """None when ``url`` answers as a git repository, else one line saying why not."""
    try:
        list_remote_branches(url, timeout_s=timeout_s)
    except Exception as exc:  # dulwich raises many kinds; the caller wants words
        return explain_transport_error(url, exc, "reach")
    return None


def _fetch_local(repo: Repo, path: str, ref: Ref) -> ObjectID | None:
    """Copy just the missing objects from a repository on this file system: all its files
    when we have none of its commits (object_copy.py), else the objects the new commits
    add, read one by one and streamed into one pack (dulwich's generic local fetch scans
    the remote's packs from start to end for reusable deltas)."""
    with Repo(path) as remote:
        try:
            head = remote.refs[ref]
        except KeyError:
            return None
        if head in repo.object_store:
            return head
        haves = [sha for sha in repo.refs.as_dict().values() if sha in remote.object_store]
        copied = not haves and object_copy.copy_objects(remote.object_store, repo.object_store)
        if copied and object_copy.complete(repo.object_store, head):
            return head
        source = remote.object_store
        wanted = [
            sha
            for sha in new_objects.missing(source, [head], haves)
            if sha not in repo.object_store
        ]
        if (
            wanted
            and isinstance(repo.object_store, DiskObjectStore)
            and isinstance(source, DiskObjectStore)
        ):
            copy_packed(source, wanted, repo.object_store)
        elif wanted:
            repo.object_store.add_objects([(source[sha], None) for sha in wanted])
        return head


def push_branch(
    repo: Repo, url: str, ref: Ref, head: ObjectID, *, timeout_s: float = DEFAULT_TIMEOUT_S
) -> None:
    """Make the remote ``ref`` point at ``head``, only as a fast-forward."""
    client, path = open_client(url, config=repo.get_config_stack(), timeout_s=timeout_s)
    if isinstance(client, LocalGitClient):
        _refuse_checked_out_branch(path, ref)
        _push_local(repo, path, ref, head)
        return

    def update_refs(refs: dict[Ref, ObjectID]) -> dict[Ref, ObjectID]:
        current = refs.get(ref)
        # The remote must be an ancestor of what we push; a head we have never seen means
        # someone pushed after our fetch.
        if current is not None and current != head and not _is_ancestor(repo, current, head):
            raise PushRejected
        return {ref: head}  # only our branch: other refs are not ours to rewrite

    def pack_data(
        have: Any,
        want: Any,
        *,
        ofs_delta: bool = False,
        progress: Callable[..., None] | None = None,
    ) -> tuple[int, Iterator[Any]]:
        return _pack_data(repo, set(have), set(want), ofs_delta=ofs_delta, progress=progress)

    with bounded(client, timeout_s):
        result = client.send_pack(
            path.encode(), update_refs, generate_pack_data=pack_data, progress=_quiet
        )
    error = (result.ref_status or {}).get(ref)
    if error is not None:
        # "unable to set": a local remote whose branch moved between reading and writing it,
        # the same race as a non-fast-forward over the network.
        moved = ("non-fast-forward", "fetch first", "stale info", "unable to set")
        if any(word in error for word in moved):
            raise PushRejected
        raise PushRefused(f"the remote refused {ref.decode()}: {error}")


def _push_local(repo: Repo, path: str, ref: Ref, head: ObjectID) -> None:
    """A push to a repository on this file system: what ``head`` adds to the remote's
    branch, written straight into one pack there (pack_copy.py), then the branch moved
    only if it still is where it was read (a compare-and-swap under the ref's lock file,
    as git's receive-pack does) and only forward. Never a copy of our object files: those
    may hold objects no commit reaches any more, such as notes purged from history for a
    secret. dulwich's local send_pack wrote the pack, then read every object of it back
    to index it."""
    with Repo(path) as remote:
        target, source = remote.object_store, repo.object_store
        current = remote.refs.as_dict().get(ref)
        if current == head:
            return
        if current is not None and not _is_ancestor(repo, current, head):
            raise PushRejected  # someone pushed after our fetch
        haves = [current] if current is not None else []
        wanted = new_objects.missing(source, [head], haves)
        if current is not None:  # a first push finds an empty store: nothing to skip
            wanted = [sha for sha in wanted if sha not in target]
        if wanted:
            copy_packed(source, wanted, target)
        try:
            moved = (
                remote.refs.set_if_equals(ref, current, head)
                if current is not None
                else remote.refs.add_if_new(ref, head)
            )
        except FileLocked as exc:  # another machine's push is setting the branch right now
            time.sleep(random.uniform(*_LOCKED_PAUSE_S))  # let it finish before we fetch
            raise PushRejected(_locked(exc)) from None
        if not moved:
            raise PushRejected  # another machine's push got there first


def _locked(exc: FileLocked) -> str:
    return (
        "the remote's branch was locked by another push each time"
        f" ({os.fsdecode(exc.lockfilename)});"
        " if no sync or git command is writing to the remote, remove that file"
    )


def _refuse_checked_out_branch(path: str, ref: Ref) -> None:
    """Refuse to push into the checked-out branch of a repository with a working tree.

    Moving that branch would leave its files behind; the next sync there would commit the
    old files over what was pushed. git refuses the same push (receive.denyCurrentBranch).
    """
    with Repo(path) as target:
        non_bare = not target.bare or _config_flag(target, b"bare") is False
        if non_bare and target.refs.read_ref(Ref(b"HEAD")) == b"ref: " + ref:
            raise PushRefused(
                f"it has {ref.decode()} checked out with files beside it (another machine's"
                " notes folder?); pushing would move that branch without updating its files",
                hint=(
                    "use a bare repository as the remote: create one with"
                    " `git init --bare PATH.git` or, without git,"
                    " `python -m dulwich init --bare PATH.git`, and point every machine at it"
                ),
            )


def _config_flag(repo: Repo, name: bytes) -> bool | None:
    try:
        return repo.get_config().get_boolean((b"core",), name)
    except KeyError:
        return None


def _is_ancestor(repo: Repo, older: ObjectID, newer: ObjectID) -> bool:
    return older in repo.object_store and can_fast_forward(repo, older, newer)


def _quiet(_data: bytes) -> None:
    """Transport progress is not shown: syncs run in the background."""


def _pack_data(
    repo: Repo,
    have: set[ObjectID],
    want: set[ObjectID],
    *,
    ofs_delta: bool,
    progress: Callable[..., None] | None,
) -> tuple[int, Iterator[Any]]:
    """The objects the remote lacks (new_objects.py), read one by one. dulwich's
    default also looks for deltas to reuse, which reads every object of every pack
    whatever is sent (3 s of a 10-note push at 100,000 notes); ours are written here,
    and dulwich never stores them as deltas, so there is nothing to find."""
    object_ids = [(sha, None) for sha in new_objects.missing(repo.object_store, want, have)]
    objects = generate_unpacked_objects(
        repo.object_store, object_ids, reuse_deltas=False, ofs_delta=ofs_delta, progress=progress
    )
    return len(object_ids), objects
