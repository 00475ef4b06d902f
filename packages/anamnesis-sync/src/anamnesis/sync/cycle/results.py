"""Every :class:`~anamnesis.sync.backend.SyncResult` a sync or a resolve returns, built here.

One constructor per outcome, each with the words its ``detail`` says. All of them go
through :func:`_result`, which de-duplicates ``changed`` (a file written by two steps of
one sync is listed once, where it was first met). ``head`` is given as a commit id and
shown short; ``unsynced`` is added at the end of the sync (see unsynced.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence

from dulwich.objects import ObjectID

from anamnesis.sync.model.backend import Strategy, SyncResult
from anamnesis.sync.objects.repository import short
from anamnesis.sync.remote.urls import describe


def local_only(head: ObjectID | None, *, changed: Iterable[str], committed: bool) -> SyncResult:
    """No remote is configured: local changes were committed, nothing more."""
    return _result(
        short(head),
        (
            ("committed local changes" if committed else "no local changes")
            + "; no remote configured, so nothing was pushed"
            " (set one with `anamnesis init --remote URL`)"
        ),
        changed,
        committed=committed,
    )


def nothing_yet(*, changed: Iterable[str], committed: bool) -> SyncResult:
    """Neither this folder nor the remote has a commit."""
    return _result(
        None, "nothing to sync yet: no notes here or on the remote", changed, committed=committed
    )


def synced(
    head: ObjectID | None,
    remote: str,
    *,
    pushed: bool,
    pulled: int,
    changed: Iterable[str],
    committed: bool,
) -> SyncResult:
    """A cycle that went through: fetched, integrated, pushed what there was."""
    files = _unique(changed)
    parts = []
    if committed:
        parts.append("committed local changes")
    if pulled:
        parts.append(f"pulled {pulled} commit(s), {len(files)} file(s) changed")
    parts.append("pushed" if pushed else "nothing to push")
    return _result(
        short(head),
        f"synced with {describe(remote)}: " + "; ".join(parts),
        files,
        committed=committed,
        pushed=pushed,
        pulled=pulled,
    )


def stopped(
    head: ObjectID | None,
    tracking: ObjectID | None,
    why: str,
    *,
    changed: Iterable[str],
    committed: bool,
    pulled: int,
    unreachable: bool,
) -> SyncResult:
    """The cycle stopped before it went through, for the reason ``why``: the remote
    could not be fetched from or pushed to (``unreachable``: ``why`` is the transport
    error), or it, or the notes, kept changing through every attempt. ``tracking``: the
    remote's branch as last fetched, to say what waits for the next sync."""
    pending = _pending(head, tracking, committed)
    return _result(
        short(head),
        f"{why}; {pending}" if unreachable else f"{why}; {pending}: sync again",
        changed,
        committed=committed,
        pulled=pulled,
        remote_error=why if unreachable else "",
    )


def conflicted(
    head: ObjectID | None,
    conflicts: Sequence[bytes],
    *,
    changed: Iterable[str],
    committed: bool,
    moved: bool = False,
    taken: int = 0,
) -> SyncResult:
    """``conflicts`` changed on both sides: on the remote, or in commits another program
    put on the branch (``moved``); ``taken`` incoming files not in conflict landed."""
    names = tuple(os.fsdecode(path) for path in conflicts)
    where = "in commits another program put on this folder's branch" if moved else "on the remote"
    landed = (
        f"; {taken} incoming file{'s' if taken != 1 else ''} not in conflict landed"
        if taken
        else ""
    )
    return _result(
        short(head),
        (
            f"conflict: {', '.join(names)} changed both here and {where}; local edits "
            f"are kept and nothing was pushed{landed}. Resolve with `anamnesis sync "
            "--resolve keep-both` (or ours / theirs)"
        ),
        changed,
        committed=committed,
        conflicted=True,
        conflicts=names,
    )


def edited_while_realigning(
    head: ObjectID | None, *, changed: Iterable[str], committed: bool
) -> SyncResult:
    """Notes were edited while the files were brought in line with a moved branch."""
    return _result(
        short(head),
        (
            "notes changed on disk while this folder was brought in line with commits "
            "another program put on its branch; nothing was overwritten: sync again"
        ),
        changed,
        committed=committed,
    )


def after_settling(result: SyncResult, strategy: Strategy, resolved: Sequence[str]) -> SyncResult:
    """``result`` of the cycle that followed settling a moved branch's conflicts."""
    settled = f"resolved {len(resolved)} conflict(s) with {strategy}: {', '.join(resolved)}"
    return _result(
        result.head,
        f"{settled}; {result.detail}",
        result.changed,
        committed=True,
        pushed=result.pushed,
        pulled=result.pulled,
        conflicted=result.conflicted,
        conflicts=result.conflicts,
        remote_error=result.remote_error,
    )


def resolve_interrupted(
    head: ObjectID | None,
    skipped: Sequence[str],
    conflicts: Sequence[bytes],
    *,
    changed: Iterable[str],
    committed: bool,
) -> SyncResult:
    """Files (``skipped``) were edited while a resolution was written: nothing moved."""
    return _result(
        short(head),
        (
            f"{', '.join(skipped)} changed on disk while resolving; nothing "
            "was overwritten. Resolve again"
        ),
        changed,
        committed=committed,
        conflicted=True,
        conflicts=tuple(os.fsdecode(path) for path in conflicts),
    )


def resolved_unpushed(head: ObjectID | None, *, changed: Iterable[str]) -> SyncResult:
    """Resolved here, but the remote moved before the push."""
    return _result(
        short(head),
        "resolved locally, but the remote moved meanwhile; sync again to push",
        changed,
        committed=True,
    )


def resolved(
    head: ObjectID | None,
    strategy: Strategy,
    conflicts: Sequence[bytes],
    *,
    changed: Iterable[str],
    pulled: int,
) -> SyncResult:
    """Resolved with ``strategy`` and pushed."""
    names = ", ".join(os.fsdecode(path) for path in conflicts)
    return _result(
        short(head),
        f"resolved {len(conflicts)} conflict(s) with {strategy}: {names}",
        changed,
        committed=True,
        pushed=True,
        pulled=pulled,
    )


def _result(
    head: str | None,
    detail: str,
    changed: Iterable[str],
    *,
    committed: bool,
    pushed: bool = False,
    pulled: int = 0,
    conflicted: bool = False,
    conflicts: tuple[str, ...] = (),
    remote_error: str = "",
) -> SyncResult:
    """The one place a :class:`SyncResult` is made."""
    return SyncResult(
        pushed=pushed,
        pulled=pulled,
        conflicted=conflicted,
        head=head,
        detail=detail,
        changed=_unique(changed),
        conflicts=conflicts,
        committed=committed,
        remote_error=remote_error,
    )


def _pending(head: ObjectID | None, tracking: ObjectID | None, committed: bool) -> str:
    """What waits for the next sync, in words (only what is true)."""
    if committed:
        return "local changes are committed and will be pushed on the next sync"
    if head is not None and head != tracking:
        return "local commits not yet pushed will be pushed on the next sync"
    return "nothing local is waiting to be pushed; the next sync tries again"


def _unique(paths: Iterable[str]) -> tuple[str, ...]:
    """``paths`` without repeats, in the order first met."""
    return tuple(dict.fromkeys(paths))
