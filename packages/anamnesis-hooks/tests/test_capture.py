"""SessionEnd/PreCompact: one redacted episodic note per session and source."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from anamnesis_testsupport import TRANSCRIPTS
from dulwich.repo import Repo

from anamnesis.hooks.capture import capture_session, session_note_id
from anamnesis.store import MemoryStore, write_config
from hooks_testing import assistant, checkout, fixture, run_hook, transcript, user

GITHUB_TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic
needs_fixtures = pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason="../shared fixtures absent")


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    return MemoryStore(isolated_home)


@needs_fixtures
@pytest.mark.parametrize(
    "name", sorted(p.name for p in TRANSCRIPTS.glob("*.jsonl")) if TRANSCRIPTS.is_dir() else []
)
def test_every_fixture_becomes_one_episodic_note(
    store: MemoryStore, tmp_path: Path, name: str
) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    result = capture_session(
        store, fixture(name), machine_id="laptop", cwd=str(work), session_id="sess-1"
    )
    note = result.note
    assert note is not None, result.skipped
    assert (note.type, note.project, note.machine_id) == (
        "episodic",
        "github.com/acme/api",
        "laptop",
    )
    assert note.tags == ["session", "session-end"]
    assert (note.prov_source, note.prov_session) == ("session-end", "sess-1")
    assert note.body.startswith("**Ask:** ")
    assert "**Outcome:** " in note.body
    assert store.get(note.id) == note


@needs_fixtures
def test_capturing_again_updates_the_same_note(store: MemoryStore, tmp_path: Path) -> None:
    source = fixture("DRMacIver__hello-world-script.jsonl")
    growing = tmp_path / "t.jsonl"
    growing.write_bytes(source.read_bytes())
    first = capture_session(
        store, growing, machine_id="laptop", cwd=str(tmp_path), source="precompact"
    )
    with growing.open("a") as handle:  # the session went on after the compaction
        handle.write('{"type": "assistant", "message": {"id": "late", "content": '
                     '[{"type": "text", "text": "One more thing done late."}]}}\n')  # fmt: skip
    second = capture_session(
        store, growing, machine_id="laptop", cwd=str(tmp_path), source="precompact"
    )
    assert first.note is not None and second.note is not None
    assert second.note.id == first.note.id
    assert second.note.created_at == first.note.created_at
    assert "One more thing done late." in second.note.body
    end = capture_session(
        store, growing, machine_id="laptop", cwd=str(tmp_path), source="session-end"
    )
    assert end.note is not None and end.note.id != first.note.id
    assert end.note.tags == ["session", "session-end"]
    assert store.stats().total == 2
    again = capture_session(
        store, growing, machine_id="laptop", cwd=str(tmp_path), source="session-end"
    )
    assert again.unchanged


def test_note_ids_are_stable_ulids() -> None:
    a = session_note_id("s-1", "session-end", "2026-01-21T06:20:30.851Z")
    assert a == session_note_id("s-1", "session-end", "2026-01-21T06:20:30.851Z")
    assert a != session_note_id("s-1", "precompact", "2026-01-21T06:20:30.851Z")
    assert a.startswith("01KFF")  # the time part is the session start (January 2026)


def test_trivial_sessions_write_nothing(store: MemoryStore, tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", [
        user("<command-name>/model</command-name>"),
        assistant([{"type": "text", "text": "Kept model."}]),
    ])  # fmt: skip
    result = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path))
    assert result.note is None and "trivial" in (result.skipped or "")
    assert store.stats().total == 0


def test_secrets_never_reach_the_note(store: MemoryStore, tmp_path: Path) -> None:
    path = transcript(tmp_path / "t.jsonl", [
        user("Deploy with AWS key AKIAIOSFODNN7EXAMPLE and password: hunter2"),
        assistant([{"type": "text", "text": f"Done; token {GITHUB_TOKEN} used."}]),
    ])  # fmt: skip
    note = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path)).note
    assert note is not None
    text = store.path_of(note).read_text()
    for secret in ("AKIAIOSFODNN7EXAMPLE", "hunter2", GITHUB_TOKEN):
        assert secret not in text
    assert "[REDACTED]" in note.body and "[REDACTED]" in note.title


@needs_fixtures
def test_the_capture_hook_as_claude_code_runs_it(store: MemoryStore, tmp_path: Path) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    store.close()
    done = run_hook("capture", "--no-sync", stdin={
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "session_id": "abc",
        "transcript_path": str(fixture("DRMacIver__coverage-test-fix.jsonl")), "cwd": str(work),
    })  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with MemoryStore() as reopened:
        [note] = reopened.list()
        assert (note.project, note.prov_session, note.tags) == (
            "github.com/acme/api",
            "abc",
            ["session", "session-end"],
        )
    precompact = run_hook("capture", "--no-sync", stdin={
        "hook_event_name": "PreCompact", "trigger": "auto", "session_id": "abc",
        "transcript_path": str(fixture("DRMacIver__coverage-test-fix.jsonl")), "cwd": str(work),
    })  # fmt: skip
    assert precompact.returncode == 0
    with MemoryStore() as reopened:
        assert sorted(m.tags[1] for m in reopened.list()) == ["precompact", "session-end"]


@needs_fixtures
def test_capture_hands_the_sync_to_a_background_process(
    isolated_home: Path, tmp_path: Path
) -> None:
    remote = tmp_path / "remote.git"
    remote.mkdir()
    Repo.init_bare(str(remote), default_branch=b"main").close()
    write_config({"machine_id": "laptop", "remote": str(remote)}, isolated_home)
    done = run_hook("capture", stdin={
        "session_id": "bg", "cwd": str(tmp_path),
        "transcript_path": str(fixture("DRMacIver__hello-world-script.jsonl")),
    })  # fmt: skip
    assert done.returncode == 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        repo = Repo(str(remote))
        try:
            if repo.refs.as_dict().get(b"refs/heads/main"):  # type: ignore[call-overload]
                break
        finally:
            repo.close()
        time.sleep(0.2)
    else:
        pytest.fail(
            "the background sync never pushed: "
            + (isolated_home / "logs" / "hooks.log").read_text()
        )
    assert "sync" in (isolated_home / "logs" / "hooks.log").read_text()
