"""`anamnesis sync` for people (exit status, --json, --resolve) and as the hook (fails open)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from cli_testing import Env, machines


def test_a_note_travels_and_is_searchable_at_once(tmp_path: Path) -> None:
    laptop, desktop, _ = machines(tmp_path)
    written = laptop.run("write", "--title", "Flaky CI", "retry the esbuild step", "--json")
    pushed = laptop.run("sync", "--json")
    assert pushed.code == 0, pushed.err
    assert pushed.json()["pushed"] is True
    pulled = desktop.run("sync", "--json")
    assert pulled.code == 0 and pulled.json()["indexed"] == 1
    hits = desktop.run("search", "esbuild", "--json").json()
    assert [h["id"] for h in hits] == [written.json()["id"]]
    assert hits[0]["machine_id"] == "laptop"
    human = desktop.run("sync")
    assert human.code == 0 and "synced with" in human.out


def test_an_unreachable_remote_is_exit_1_and_one_line(tmp_path: Path) -> None:
    laptop = Env.make(tmp_path, "laptop")
    assert laptop.run("init", "--yes", "--local-only").code == 0
    assert laptop.run("config", "set", "remote", str(tmp_path / "gone.git")).code == 0
    laptop.run("write", "--title", "t", "b")
    result = laptop.run("sync")
    assert result.code == 1
    assert len(result.err_lines) == 1 and "gone.git" in result.err
    assert "Traceback" not in result.err
    assert laptop.run("status", "--json").json()["sync"]["dirty"] is False  # committed anyway
    hook = laptop.run("sync", "--quiet")  # the SessionStart hook form
    assert hook.code == 0 and hook.out == ""
    assert "gone.git" in (laptop.home / "logs" / "hooks.log").read_text()


def test_a_conflict_is_reported_then_resolved_keeping_both(tmp_path: Path) -> None:
    laptop, desktop, _ = machines(tmp_path)
    note_id = laptop.run("write", "--title", "Port", "8080", "--json").json()["id"]
    assert laptop.run("sync").code == 0
    assert desktop.run("sync").code == 0
    for machine, port in ((laptop, "9090"), (desktop, "7070")):
        path = Path(machine.run("show", note_id, "--json").json()["path"])
        path.write_text(path.read_text().replace("8080", port))
    assert laptop.run("sync").code == 0
    conflict = desktop.run("sync", "--json")
    assert conflict.code == 1
    assert conflict.json()["conflicted"] is True
    assert "--resolve keep-both" in conflict.err
    resolved = desktop.run("sync", "--resolve", "keep-both", "--json")
    assert resolved.code == 0, resolved.err
    assert laptop.run("sync").code == 0
    assert resolved.json()["indexed"] == 2  # both versions changed here: both reindexed
    for machine in (laptop, desktop):
        found = machine.run("search", "Port", "-k", "5", "--json").json()
        # Keep both means both stay visible: neither supersedes the other.
        assert sorted(n["body"].strip() for n in found) == ["7070", "9090"], found
        listed = machine.run("list", "--json").json()
        assert len(listed) == 2  # nothing lost: both versions are notes
        fork_id = next(n["id"] for n in listed if n["id"] != note_id)
        fork, kept = (machine.run("show", i, "--json").json() for i in (fork_id, note_id))
        assert (fork["body"].strip(), kept["body"].strip()) == ("7070", "9090")
        for one, other in ((fork, kept), (kept, fork)):
            assert one["supersedes"] == [] and "conflict" in one["tags"]
            # Each names the other, in the file the other machine sees too.
            raw = Path(one["path"]).read_text()
            assert f"conflict_with: {other['id']}\n" in raw, raw
        # The kept version is the one the resolving machine had: it is its author now.
        assert fork["machine_id"] == "desktop"
        # Listed by status and doctor until one supersedes the other.
        kept_both = machine.run("status", "--json").json()["kept_both"]
        assert {(k["id"], tuple(k["conflict_with"])) for k in kept_both} == {
            (fork_id, (note_id,)), (note_id, (fork_id,))
        }  # fmt: skip
        doctor = {c["name"]: c for c in machine.run("doctor", "--json").json()["checks"]}
        assert doctor["sync"]["status"] == "warn" and fork_id in doctor["sync"]["detail"]
    settled = desktop.run("write", "--title", "Port", "--supersedes", fork_id,
                          "--supersedes", note_id, "9090 (checked)")  # fmt: skip
    assert settled.code == 0, settled.err
    assert desktop.run("status", "--json").json()["kept_both"] == []
    assert {c["name"]: c for c in desktop.run("doctor", "--json").json()["checks"]}["sync"][
        "status"
    ] == "ok"
    bad = desktop.run("sync", "--resolve", "mine")
    assert bad.code == 2 and "keep-both" in bad.err


def test_sync_before_init_says_how_to_start(bare: Env) -> None:
    result = bare.run("sync")
    assert result.code == 1 and "anamnesis init" in result.err


def test_a_git_lock_left_by_a_killed_sync_is_reported_then_recovered(tmp_path: Path) -> None:
    laptop, _desktop, _remote = machines(tmp_path)
    lock = laptop.home / "memory" / ".git" / "index.lock"
    lock.write_bytes(b"")  # as a sync killed by Claude Code's hook timeout leaves it
    past = time.time() - 60
    os.utime(lock, (past, past))
    status = laptop.run("status", "--json").json()["sync"]
    assert [g["path"] for g in status["git_locks"]] == [".git/index.lock"]
    assert "git lock: .git/index.lock" in laptop.run("status").out
    doctor = {c["name"]: c for c in laptop.run("doctor", "--json").json()["checks"]}
    assert doctor["sync"]["status"] == "warn" and ".git/index.lock" in doctor["sync"]["detail"]
    assert laptop.run("write", "--title", "after the kill", "still pushed").code == 0
    synced = laptop.run("sync", "--json")
    assert synced.code == 0 and synced.json()["pushed"] is True, synced.err
    assert not lock.exists()
    assert laptop.run("status", "--json").json()["sync"]["git_locks"] == []
