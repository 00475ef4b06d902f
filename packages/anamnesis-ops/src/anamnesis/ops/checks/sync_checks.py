"""The sync checks: the remote (answers, or not contacted when offline) and the sync
repository's state (conflicts, stale git locks, files it cannot sync, notes kept both ways,
commits waiting to be pushed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anamnesis.ops.checks.named_remotes import with_named_mirrors, with_named_remotes
from anamnesis.ops.checks.verdict import FAIL, OK, WARN, Check
from anamnesis.ops.keep_both import open_conflicts
from anamnesis.sync import check_remote, redact_url

if TYPE_CHECKING:
    from anamnesis.ops.home import Home

# Seconds the remote check waits for an answer: someone is watching the doctor run, and a
# remote that stays silent this long is a finding in itself.
REMOTE_TIMEOUT_S = 10.0


def remote_check(home: Home) -> Check:
    return with_named_remotes(
        home, _default_remote_check(home), online=True, timeout_s=REMOTE_TIMEOUT_S
    )


def _default_remote_check(home: Home) -> Check:
    remote = home.remote
    if not remote:
        return Check(
            "remote", OK, "none: notes stay on this machine",
            "to sync between machines: `anamnesis init --remote URL`",
        )  # fmt: skip
    problem = check_remote(remote, timeout_s=REMOTE_TIMEOUT_S)
    if problem:
        return Check(
            "remote", FAIL, problem,
            "check the URL and the network; change it with `anamnesis init --remote URL`",
        )  # fmt: skip
    return Check("remote", OK, f"{redact_url(remote)} answers")


def remote_skipped(home: Home) -> Check:
    """The remote check offline: what it is, without contacting it."""
    remote = home.remote
    check = Check("remote", OK, f"{redact_url(remote) if remote else 'none'} (not contacted)")
    return with_named_remotes(home, check, online=False, timeout_s=REMOTE_TIMEOUT_S)


def sync_check(home: Home) -> Check:
    return with_named_mirrors(home, _default_sync_check(home))


def _default_sync_check(home: Home) -> Check:
    if not home.layout.memory_dir.is_dir():
        return Check("sync", WARN, "no store yet", "run `anamnesis init`")
    state = home.sync_state()
    if state.conflicts:
        return Check(
            "sync", FAIL, f"unresolved conflicts: {', '.join(state.conflicts)}",
            "`anamnesis sync --resolve keep-both` (or ours / theirs)",
        )  # fmt: skip
    if not state.initialized:
        return Check("sync", WARN, state.detail, "run `anamnesis sync`")
    if state.git_locks:
        locks = ", ".join(f"{lock.path} ({lock.age_s:.0f} s old)" for lock in state.git_locks)
        return Check(
            "sync", WARN, f"git lock(s) left by a killed sync: {locks}",
            "run `anamnesis sync`: under its own lock it removes locks no live sync holds",
        )  # fmt: skip
    if state.unsynced:
        shown = ", ".join(f"{u.path} ({u.kind})" for u in state.unsynced[:5])
        return Check(
            "sync", WARN, f"not synced, not being plain files: {shown}",
            "replace links with the files themselves (links are never followed or synced)",
        )  # fmt: skip
    with home.open_store() as store:
        kept = [note.id for note, _others in open_conflicts(store)]
    if kept:
        return Check(
            "sync", WARN,
            f"{len(kept)} note(s) kept both ways after a conflict: {', '.join(kept[:6])}",
            "keep one: `anamnesis write --title TITLE --supersedes OTHER_ID BODY` (or merge "
            "them into a new note that supersedes both); both stay listed until then",
        )  # fmt: skip
    if state.ahead:
        return Check("sync", WARN, state.detail, "run `anamnesis sync` once the remote answers")
    return Check("sync", OK, state.detail)
