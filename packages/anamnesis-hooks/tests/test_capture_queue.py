"""The capture hook never waits on the store: it queues the session's note on disk and a
detached worker files it. Held here: the store's write lock, taken by another process for
as long as the test likes (as twenty sessions ending at once, or a long reindex, hold it),
and the worker killed, as a machine going to sleep or an OOM kill would."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from anamnesis.hooks.capture import session_note_id
from anamnesis.hooks.capture_queue import BadEntry, enqueue, file_queued, read_entry
from anamnesis.hooks.pending import DEFAULT_AGENT, PendingCapture
from anamnesis.store import MemoryStore
from hooks_testing import assistant, captures_filed, checkout, run_hook, transcript, user

ASK = "Make the importer skip rows whose checksum does not match"
# Hook processes are killed past this, so that a hook that waits on the store fails here
# rather than hanging (not a measure of speed: the hook returns in well under a second).
HANG_GUARD_S = 30


def queued(home: Path) -> list[Path]:
    """The captures waiting in the queue, as files: what the hook leaves on disk."""
    return sorted((home / "queue" / "captures").glob("*.json"))


def queued_once(home: Path) -> Path:
    """The one capture queued, or a failure saying where the session's note went."""
    entries = queued(home)
    log = home / "logs" / "hooks.log"
    logged = log.read_text() if log.exists() else "nothing"
    assert len(entries) == 1, f"the session's note is not queued ({entries}); the log: {logged}"
    return entries[0]


def session(folder: Path, name: str, ask: str = ASK) -> Path:
    return transcript(folder / f"{name}.jsonl", [
        user(ask, sessionId=name, timestamp="2026-03-01T10:00:00Z"),
        assistant([
            {"type": "text", "text": "Done: rows with a bad checksum are skipped and counted."},
            {"type": "tool_use", "name": "Edit", "input": {"file_path": "/w/importer.py"}},
        ]),
    ])  # fmt: skip


@contextmanager
def write_lock_held(home: Path) -> Iterator[None]:
    """The index's write lock, held by this process (another one than the hooks')."""
    conn = sqlite3.connect(home / "index.db", isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        yield
        conn.execute("ROLLBACK")
    finally:
        conn.close()


def end_session(work: Path, path: Path, name: str, *flags: str) -> None:
    done = run_hook("capture", *flags, timeout=HANG_GUARD_S, stdin={
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "session_id": name,
        "transcript_path": str(path), "cwd": str(work),
    })  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.fixture
def work(isolated_home: Path, tmp_path: Path) -> Path:
    """A store, and a project's checkout that sessions end in."""
    MemoryStore(isolated_home).close()
    return checkout(tmp_path / "api", "git@github.com:acme/api.git")


def worker_pid(home: Path) -> int:
    """The pid of the worker holding the lock, once it has taken it."""
    lock = home / "queue" / "worker.lock"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = lock.read_text() if lock.exists() else ""
        if text.strip():
            return int(text)
        time.sleep(0.05)
    raise AssertionError("no worker took the lock")


def test_capture_returns_while_the_store_is_locked_and_the_note_lands_afterwards(
    isolated_home: Path, tmp_path: Path, work: Path
) -> None:
    with write_lock_held(isolated_home):
        end_session(work, session(tmp_path, "s1"), "s1", "--no-sync")
        # Returned with the store still locked: the note is on disk, in the queue.
        entry = queued_once(isolated_home)
        pending = json.loads(entry.read_text())
        assert (pending["session_id"], pending["title"], pending["project"]) == (
            "s1",
            ASK,
            "github.com/acme/api",
        )
        assert entry.stat().st_mode & 0o077 == 0  # the user's alone: secrets are unmasked
        with MemoryStore(isolated_home) as store:
            assert store.list() == []
    captures_filed()
    with MemoryStore(isolated_home) as store:
        (note,) = store.list()
    assert (note.id, note.title, note.prov_session) == (
        session_note_id("s1", "2026-03-01T10:00:00Z"),
        ASK,
        "s1",
    )
    assert "importer.py" in note.body and note.tags == ["session", "session-end"]
    log = (isolated_home / "logs" / "hooks.log").read_text()
    assert f" capture: captured {note.id} (github.com/acme/api) from " in log


def test_sessions_ending_together_share_one_worker_and_every_note_lands_once(
    isolated_home: Path, tmp_path: Path, work: Path
) -> None:
    names = [f"s{number}" for number in range(4)]
    with write_lock_held(isolated_home):
        for name in names:
            end_session(work, session(tmp_path, name, f"{ASK} ({name})"), name, "--no-sync")
        # The same session captured again (PreCompact, then SessionEnd): one note, the newest.
        end_session(work, session(tmp_path, "s0", f"{ASK} (s0, later)"), "s0", "--no-sync")
        assert len(queued(isolated_home)) == 5
    captures_filed()
    with MemoryStore(isolated_home) as store:
        titles = sorted(note.title for note in store.list())
    assert titles == sorted([f"{ASK} (s0, later)", *(f"{ASK} ({name})" for name in names[1:])])


def test_a_killed_worker_leaves_the_capture_queued_for_the_next_session_start(
    isolated_home: Path, tmp_path: Path, work: Path
) -> None:
    with write_lock_held(isolated_home):
        end_session(work, session(tmp_path, "s1"), "s1", "--no-sync")
        queued_once(isolated_home)
        os.kill(worker_pid(isolated_home), signal.SIGKILL)  # waiting on the lock: killed
    entry = queued_once(isolated_home)  # nothing else files it
    assert json.loads(entry.read_text())["session_id"] == "s1"
    with MemoryStore(isolated_home) as store:
        assert store.list() == []
    # The next session's start runs the sync hook (async): it files what is queued first.
    done = run_hook("sync", "--quiet", stdin={"hook_event_name": "SessionStart"})
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    assert queued(isolated_home) == []
    with MemoryStore(isolated_home) as store:
        (note,) = store.list()
    assert note.title == ASK
    assert not list((isolated_home / "queue" / "captures").iterdir())  # nothing left behind


def test_a_queued_capture_the_store_refuses_is_moved_aside_and_logged(
    isolated_home: Path, tmp_path: Path
) -> None:
    MemoryStore(isolated_home).close()
    folder = isolated_home / "queue" / "captures"
    folder.mkdir(parents=True)
    (folder / "00000000000000000001-1-aaaaaa.json").write_text("{not json")
    # Nested past what json's parser survives: refused like any garbage, not retried for ever.
    deep = "[" * 100_000 + "]" * 100_000
    (folder / "00000000000000000002-1-bbbbbb.json").write_text(deep)
    end_session(checkout(tmp_path / "api", None), session(tmp_path, "s1"), "s1", "--no-sync")
    captures_filed()
    with MemoryStore(isolated_home) as store:
        assert [note.title for note in store.list()] == [ASK]  # the good one still lands
    refused = isolated_home / "queue" / "refused"
    assert (refused / "00000000000000000001-1-aaaaaa.json").read_text() == "{not json"
    assert (refused / "00000000000000000002-1-bbbbbb.json").read_text() == deep
    log = (isolated_home / "logs" / "hooks.log").read_text()
    assert log.count("was refused (not the JSON the capture hook writes); moved to") == 2


# What the capture hook queued before captures recorded their agent: no "agent" field.
OLD_ENTRY = {
    "session_id": "s1", "started_at": "2026-03-01T10:00:00Z", "source": "session-end",
    "project": "github.com/acme/api", "title": ASK, "body": f"**Ask:** {ASK}", "model": "",
    "captured_at": "2026-03-01T11:00:00+00:00", "transcript": "/w/s1.jsonl", "truncated": False,
}  # fmt: skip


def test_a_capture_queued_by_an_older_version_is_filed_as_claude_codes(
    isolated_home: Path,
) -> None:
    folder = isolated_home / "queue" / "captures"
    folder.mkdir(parents=True)
    (folder / "00000000000000000001-1-aaaaaa.json").write_text(json.dumps(OLD_ENTRY))
    assert read_entry(folder / "00000000000000000001-1-aaaaaa.json").agent == DEFAULT_AGENT
    with MemoryStore(isolated_home) as store:
        assert file_queued(store, machine_id="laptop", tried=set())
        (note,) = store.list()
    assert (note.title, note.prov_session, note.prov_agent) == (ASK, "s1", "claude-code")
    assert queued(isolated_home) == []


def test_the_queue_keeps_the_agent_of_a_capture(isolated_home: Path) -> None:
    fields = {key: value for key, value in OLD_ENTRY.items() if key != "truncated"}
    path = enqueue(isolated_home, PendingCapture(**fields, agent="codex"))  # type: ignore[arg-type]
    assert json.loads(path.read_text())["agent"] == "codex"
    with MemoryStore(isolated_home) as store:
        assert file_queued(store, machine_id="laptop", tried=set())
        (note,) = store.list()
    assert note.prov_agent == "codex"
    # An agent that is not text is no entry the hook wrote: refused, never filed.
    path.write_text(json.dumps({**OLD_ENTRY, "agent": ["codex"]}))
    with pytest.raises(BadEntry, match="agent"):
        read_entry(path)
