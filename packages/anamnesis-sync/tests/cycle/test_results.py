"""The one place results are built: fields, wording, and ``changed`` listed once each."""

from __future__ import annotations

from dulwich.objects import ObjectID

from anamnesis.sync import SyncResult
from anamnesis.sync.cycle import results

HEAD = ObjectID(b"0123456789abcdef0123456789abcdef01234567")
TRACKING = ObjectID(b"fedcba9876543210fedcba9876543210fedcba98")


def test_changed_is_listed_once_in_the_order_first_met() -> None:
    result = results.nothing_yet(changed=["b.md", "a.md", "b.md", "c.md", "a.md"], committed=True)
    assert result.changed == ("b.md", "a.md", "c.md")
    assert result.head is None
    assert result.committed


def test_synced_counts_each_changed_file_once() -> None:
    result = results.synced(
        HEAD,
        "https://me:secret@host/memory.git",
        pushed=True,
        pulled=2,
        changed=["a.md", "a.md", "b.md"],
        committed=True,
    )
    assert result == SyncResult(
        pushed=True,
        pulled=2,
        conflicted=False,
        head="0123456",
        detail=(
            "synced with https://me:***@host/memory.git: committed local changes; "
            "pulled 2 commit(s), 2 file(s) changed; pushed"
        ),
        changed=("a.md", "b.md"),
        committed=True,
    )


def test_local_only_and_nothing_to_push() -> None:
    assert results.local_only(None, changed=[], committed=False) == SyncResult(
        pushed=False,
        pulled=0,
        conflicted=False,
        head=None,
        detail="no local changes; no remote configured, so nothing was pushed"
        " (set one with `anamnesis init --remote URL`)",
    )
    assert results.synced(
        HEAD, "/srv/memory.git", pushed=False, pulled=0, changed=[], committed=False
    ).detail == ("synced with /srv/memory.git: nothing to push")


def test_stopped_unreachable_says_why_and_what_waits() -> None:
    unreachable = results.stopped(
        HEAD, TRACKING, "cannot fetch", changed=["a.md"], committed=False, pulled=1,
        unreachable=True,
    )  # fmt: skip
    assert unreachable.remote_error == "cannot fetch"
    assert unreachable.pulled == 1
    assert unreachable.detail == (
        "cannot fetch; local commits not yet pushed will be pushed on the next sync"
    )
    in_step = results.stopped(
        HEAD, HEAD, "the remote kept changing while we pushed", changed=[], committed=False,
        pulled=0, unreachable=False,
    )  # fmt: skip
    assert in_step.remote_error == ""
    assert in_step.detail == (
        "the remote kept changing while we pushed; nothing local is waiting to be pushed; "
        "the next sync tries again: sync again"
    )
    committed = results.stopped(
        None, None, "x", changed=[], committed=True, pulled=0, unreachable=True
    )
    assert committed.detail == "x; local changes are committed and will be pushed on the next sync"


def test_conflicted_names_the_files_and_what_landed() -> None:
    result = results.conflicted(
        HEAD, [b"semantic/a.md", b"semantic/b.md"], changed=["c.md", "c.md"], committed=True,
        taken=1,
    )  # fmt: skip
    assert result.conflicted and not result.pushed
    assert result.conflicts == ("semantic/a.md", "semantic/b.md")
    assert result.changed == ("c.md",)
    assert result.detail == (
        "conflict: semantic/a.md, semantic/b.md changed both here and on the remote; local "
        "edits are kept and nothing was pushed; 1 incoming file not in conflict landed. "
        "Resolve with `anamnesis sync --resolve keep-both` (or ours / theirs)"
    )
    moved = results.conflicted(HEAD, [b"a.md"], changed=[], committed=False, moved=True)
    assert "in commits another program put on this folder's branch; " in moved.detail
    assert "landed" not in moved.detail


def test_after_settling_keeps_the_cycle_result_and_says_what_was_settled() -> None:
    cycle = results.synced(
        HEAD, "/srv/m.git", pushed=True, pulled=0, changed=["a.md"], committed=False
    )
    result = results.after_settling(cycle, "ours", ("a.md", "b.md"))
    assert result.committed
    assert (result.pushed, result.head, result.changed) == (True, "0123456", ("a.md",))
    assert result.detail == f"resolved 2 conflict(s) with ours: a.md, b.md; {cycle.detail}"


def test_resolution_results() -> None:
    interrupted = results.resolve_interrupted(
        HEAD, ["a.md"], [b"a.md", b"b.md"], changed=["b.md"], committed=False
    )
    assert interrupted.conflicted
    assert interrupted.conflicts == ("a.md", "b.md")
    assert interrupted.detail == (
        "a.md changed on disk while resolving; nothing was overwritten. Resolve again"
    )
    unpushed = results.resolved_unpushed(HEAD, changed=["a.md", "a.md"])
    assert (unpushed.committed, unpushed.pushed, unpushed.changed) == (True, False, ("a.md",))
    done = results.resolved(HEAD, "keep-both", [b"a.md"], changed=["x.md", "x.md"], pulled=3)
    assert done == SyncResult(
        pushed=True,
        pulled=3,
        conflicted=False,
        head="0123456",
        detail="resolved 1 conflict(s) with keep-both: a.md",
        changed=("x.md",),
        committed=True,
    )
