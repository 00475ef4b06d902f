"""SessionEnd/PreCompact: one redacted episodic note per session and source."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport import TRANSCRIPTS
from dulwich.repo import Repo

from anamnesis.hooks.capture import (
    DIGEST_KEY,
    capture_session,
    edited_by_hand,
    legacy_note_ids,
    session_note_id,
)
from anamnesis.hooks.transcript import parse_transcript
from anamnesis.ops import select_inject
from anamnesis.store import (
    REFLECTION_ENV_GUARD,
    Memory,
    MemoryStore,
    content_digest,
    write_config,
)
from hooks_testing import (
    assistant,
    captures_filed,
    checkout,
    fixture,
    run_hook,
    transcript,
    user,
)

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
    # SessionEnd after PreCompact: one session is one note, with the newest content.
    with growing.open("a") as handle:
        handle.write('{"type": "assistant", "message": {"id": "last", "content": '
                     '[{"type": "text", "text": "Wrapped up at the end."}]}}\n')  # fmt: skip
    end = capture_session(
        store, growing, machine_id="laptop", cwd=str(tmp_path), source="session-end"
    )
    assert end.note is not None and end.note.id == first.note.id
    assert end.note.tags == ["session", "session-end"]  # says which hook captured it last
    assert "Wrapped up at the end." in end.note.body
    assert store.stats().total == 1
    again = capture_session(
        store, growing, machine_id="laptop", cwd=str(tmp_path), source="session-end"
    )
    assert again.unchanged


def _session(path: Path, *outcomes: str) -> Path:
    """A small session transcript: one ask, then one assistant reply per outcome."""
    records: list[dict[str, Any] | str] = [
        user("Fix the flaky login test", sessionId="s-7", timestamp="2026-03-01T10:00:00Z")
    ]
    for index, outcome in enumerate(outcomes):
        records.append(assistant([{"type": "text", "text": outcome}], f"m{index}"))
    return transcript(path, records)


FIRST = "Found the cause: the tests share one cookie jar."
LATER = "Later: gave each test its own cookie jar, and CI is green."


def test_the_note_records_whose_session_it_was(store: MemoryStore, tmp_path: Path) -> None:
    path = _session(tmp_path / "t.jsonl", FIRST)
    claude = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path))
    assert claude.note is not None and claude.note.prov_agent == "claude-code"
    # The same session captured again by another agent: the note says who captured it last.
    codex = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path), agent="codex")
    assert codex.note is not None and codex.note.id == claude.note.id
    assert not codex.unchanged and store.get(codex.note.id).prov_agent == "codex"
    other = capture_session(
        store, _session(tmp_path / "u.jsonl", LATER), machine_id="laptop", cwd=str(tmp_path),
        session_id="s-8", agent="codex",
    )  # fmt: skip
    assert other.note is not None and "prov_agent: codex\n" in store.path_of(other.note).read_text()


def test_recapture_keeps_what_others_added(store: MemoryStore, tmp_path: Path) -> None:
    path = _session(tmp_path / "t.jsonl", FIRST)
    first = capture_session(
        store, path, machine_id="laptop", cwd=str(tmp_path), source="precompact"
    )
    assert first.note is not None
    older = store.write(type="semantic", title="Older fact", body="x", project=first.note.project)
    # Reflection tagged it, someone lowered its confidence, linked and re-keyed it, and a
    # tool added a frontmatter key of its own.
    store.put(first.note.replace(
        tags=[*first.note.tags, "reflected", "keep-me"], confidence=0.4,
        supersedes=[older.id], project="renamed/project",
        extra={**first.note.extra, "reviewed_by": "me"},
    ))  # fmt: skip
    _session(path, FIRST, LATER)  # the session went on; PreCompact fires again
    again = capture_session(
        store, path, machine_id="laptop", cwd=str(tmp_path), source="precompact"
    )
    note = again.note
    assert note is not None and not again.unchanged and note.id == first.note.id
    assert LATER in note.body  # what capture owns is refreshed ...
    assert note.tags == ["session", "precompact", "reflected", "keep-me"]  # ... the rest kept
    assert (note.confidence, note.supersedes, note.project) == (0.4, [older.id], "renamed/project")
    assert note.extra["reviewed_by"] == "me"
    assert note.created_at == first.note.created_at
    assert store.get(note.id) == note
    for project in ("renamed/project", first.note.project):  # reflected stays out of inject
        assert select_inject(store, project=project).project_notes == []


def test_a_hand_edited_capture_is_kept_and_the_session_goes_to_a_follow_up(
    store: MemoryStore, tmp_path: Path
) -> None:
    path = _session(tmp_path / "t.jsonl", FIRST)
    first = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path)).note
    assert first is not None
    note_file = store.path_of(first)
    edited_text = note_file.read_text().replace(
        "**Outcome:**", "**My note:** the real culprit was a DNS cache.\n\n**Outcome:**"
    )
    note_file.write_text(edited_text)  # edited by hand in an editor
    _session(path, FIRST, LATER)
    second = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path))
    follow_up = second.note
    assert follow_up is not None and second.kept_edits == (first.id,)
    assert follow_up.id == session_note_id("s-7", "2026-03-01T10:00:00Z", 1)
    assert LATER in follow_up.body and "DNS" not in follow_up.body
    assert note_file.read_text() == edited_text  # the hand edit is untouched
    _session(path, FIRST, LATER, "Even later: merged.")
    third = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path))
    assert third.note is not None and third.note.id == follow_up.id  # the follow-up is updated
    assert "Even later: merged." in third.note.body
    assert note_file.read_text() == edited_text
    assert store.stats().total == 2


def test_what_counts_as_a_hand_edit() -> None:
    body = "**Ask:** fix it\n\n**Outcome:** fixed"
    note = Memory(id=session_note_id("s"), type="episodic", title="Fix it",
                  body=body, extra={DIGEST_KEY: content_digest("Fix it", body)})  # fmt: skip
    assert not edited_by_hand(note)
    assert not edited_by_hand(note.replace(body=body.replace("\n\n", "\n  \n") + "\n"))
    assert not edited_by_hand(note.replace(tags=["session", "reflected"], confidence=0.2))
    assert edited_by_hand(note.replace(body=body.replace("fixed", "fixed, see PR 12")))
    assert edited_by_hand(note.replace(title="Fix the login test"))
    assert edited_by_hand(note.replace(type="semantic"))  # promoted to a durable note
    assert not edited_by_hand(note.replace(extra={}))  # written before digests: capture's own


def test_note_ids_are_stable_ulids() -> None:
    a = session_note_id("s-1", "2026-01-21T06:20:30.851Z")
    assert a == session_note_id("s-1", "2026-01-21T06:20:30.851Z")
    assert a != session_note_id("s-2", "2026-01-21T06:20:30.851Z")
    assert a != session_note_id("s-1", "2026-01-21T06:20:30.851Z", follow_up=1)
    assert a.startswith("01KFF")  # the time part is the session start (January 2026)


@needs_fixtures
def test_a_note_captured_under_the_old_per_hook_id_is_updated_not_repeated(
    store: MemoryStore, tmp_path: Path
) -> None:
    source = fixture("DRMacIver__hello-world-script.jsonl")
    parsed = parse_transcript(source)
    legacy_id = legacy_note_ids("old-session", "precompact", parsed.started_at)[0]
    first = capture_session(store, source, machine_id="laptop", cwd=str(tmp_path),
                            source="precompact", session_id="old-session")  # fmt: skip
    assert first.note is not None
    # As an earlier version wrote it: the same note under its per-hook id.
    store.delete(first.note.id)
    store.put(first.note.replace(id=legacy_id))
    end = capture_session(store, source, machine_id="laptop", cwd=str(tmp_path),
                          source="session-end", session_id="old-session")  # fmt: skip
    assert end.note is not None and end.note.id == legacy_id
    assert [m.id for m in store.list()] == [legacy_id]


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


def test_filing_a_capture_validates_and_masks_the_note_once(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store checks and masks the note once per filing, for the comparison with what is
    stored and for the write alike: a new note, an unchanged one, a changed one."""
    from anamnesis.store.index import note_writer  # the one writer every note goes through

    calls: list[str] = []
    for name in ("validate_note", "mask_note"):
        original = getattr(note_writer, name)

        def counted(mem: Memory, _original: Any = original, _name: str = name) -> Memory:
            calls.append(_name)
            return _original(mem)  # type: ignore[no-any-return]

        monkeypatch.setattr(note_writer, name, counted)
    path = _session(tmp_path / "t.jsonl", FIRST, f"token {GITHUB_TOKEN}")
    for expected in ("written", "unchanged", "written"):
        calls.clear()
        result = capture_session(store, path, machine_id="laptop", cwd=str(tmp_path))
        assert result.note is not None and result.unchanged == (expected == "unchanged")
        assert calls == ["validate_note", "mask_note"], expected
        assert GITHUB_TOKEN not in store.path_of(result.note).read_text()
        assert not edited_by_hand(result.note)  # the digest is over the note as stored
        if expected == "unchanged":
            path = _session(tmp_path / "t.jsonl", FIRST, f"token {GITHUB_TOKEN}", LATER)


@needs_fixtures
def test_the_capture_hook_as_claude_code_runs_it(store: MemoryStore, tmp_path: Path) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    store.close()
    done = run_hook("capture", "--no-sync", stdin={
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "session_id": "abc",
        "transcript_path": str(fixture("DRMacIver__coverage-test-fix.jsonl")), "cwd": str(work),
    })  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    captures_filed()
    with MemoryStore() as reopened:
        [note] = reopened.list()
        assert (note.project, note.prov_session, note.tags, note.prov_agent) == (
            "github.com/acme/api",
            "abc",
            ["session", "session-end"],
            "claude-code",  # the hook command carries no --agent: Claude Code's
        )
    precompact = run_hook("capture", "--no-sync", stdin={
        "hook_event_name": "PreCompact", "trigger": "auto", "session_id": "abc",
        "transcript_path": str(fixture("DRMacIver__coverage-test-fix.jsonl")), "cwd": str(work),
    })  # fmt: skip
    assert precompact.returncode == 0
    captures_filed()
    with MemoryStore() as reopened:  # one session, one note: the same one, updated
        assert [(m.id, m.tags[1]) for m in reopened.list()] == [(note.id, "precompact")]


GIT = shutil.which("git")


def _slow_ssh(folder: Path, delay_s: float) -> Path:
    """A fake ``ssh`` that waits, then serves the repository with git's own pack programs,
    as a slow network and a real git server would."""
    assert GIT is not None
    folder.mkdir()
    script = folder / "ssh"
    script.write_text(
        f"#!{sys.executable}\n"
        "import os, shlex, sys, time\n"
        f"time.sleep({delay_s})\n"
        "command = shlex.split(sys.argv[-1])  # git-upload-pack '/path'\n"
        f"os.execv({GIT!r}, ['git', command[0][len('git-'):], *command[1:]])\n"
    )
    script.chmod(0o755)
    return folder


def _remote_head(remote: Path) -> bytes | None:
    repo = Repo(str(remote))
    try:
        head: bytes | None = repo.refs.as_dict().get(b"refs/heads/main")  # type: ignore[call-overload]
        return head
    finally:
        repo.close()


@needs_fixtures
@pytest.mark.skipif(GIT is None, reason="git binary not installed (it serves the fake remote)")
def test_capture_hands_the_sync_to_a_background_process(
    isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "remote.git"
    remote.mkdir()
    Repo.init_bare(str(remote), default_branch=b"main").close()
    # Every connection to the remote takes two seconds: a sync run by the hook itself
    # would make the hook that long, and the push would be done when it returns.
    fake = _slow_ssh(tmp_path / "fake-bin", delay_s=2)
    monkeypatch.setenv("PATH", f"{fake}{os.pathsep}{os.environ.get('PATH', '')}")
    write_config({"machine_id": "laptop", "remote": f"ssh://fakehost{remote}"}, isolated_home)
    done = run_hook("capture", stdin={
        "session_id": "bg", "cwd": str(tmp_path),
        "transcript_path": str(fixture("DRMacIver__hello-world-script.jsonl")),
    })  # fmt: skip
    assert done.returncode == 0
    assert _remote_head(remote) is None  # the hook returned before the push...
    log = isolated_home / "logs" / "hooks.log"
    deadline = time.monotonic() + 90
    while _remote_head(remote) is None:  # ... which a detached process finishes afterwards
        written = log.read_text() if log.exists() else ""
        if "sync: failed" in written or time.monotonic() > deadline:
            pytest.fail(f"the background sync never pushed: {written}")
        time.sleep(0.2)
    deadline = time.monotonic() + 30
    while "sync: " not in log.read_text():  # and says so in the log once it is done
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.1)


@needs_fixtures
def test_flags_override_the_hook_input(isolated_home: Path, tmp_path: Path) -> None:
    stdin_work = checkout(tmp_path / "from-stdin", "git@github.com:acme/stdin.git")
    flag_work = checkout(tmp_path / "from-flag", "git@github.com:acme/flag.git")
    stdin_transcript = transcript(tmp_path / "stdin.jsonl", [
        user("the ask from the stdin transcript"),
        assistant([{"type": "text", "text": "An outcome long enough to be worth a note."}]),
    ])  # fmt: skip
    done = run_hook(
        "capture", "--no-sync",
        "--transcript", str(fixture("DRMacIver__hello-world-script.jsonl")),
        "--session-id", "from-flag", "--cwd", str(flag_work), "--source", "precompact",
        stdin={"hook_event_name": "SessionEnd", "session_id": "from-stdin",
               "transcript_path": str(stdin_transcript), "cwd": str(stdin_work)},
    )  # fmt: skip
    assert (done.returncode, done.stderr) == (0, "")
    captures_filed()
    with MemoryStore(isolated_home) as store:
        [note] = store.list()
    assert (note.prov_session, note.project, note.tags) == (
        "from-flag",
        "github.com/acme/flag",
        ["session", "precompact"],
    )
    assert note.title.startswith("Write a shell script")  # the flag's transcript
    started = parse_transcript(fixture("DRMacIver__hello-world-script.jsonl")).started_at
    assert note.id == session_note_id("from-flag", started)


def test_hooks_stand_aside_in_a_session_that_reflection_started(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claude-code provider runs a Claude Code session for a reflection: capturing it
    would file the reflection as a session, injecting would feed it notes."""
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    store.write(type="semantic", title="api note", body="x", project="github.com/acme/api")
    store.close()
    monkeypatch.setenv(REFLECTION_ENV_GUARD, "1")
    session = _session(tmp_path / "t.jsonl", FIRST)
    with MemoryStore(tmp_path / "scratch") as scratch:  # a session capture would keep
        assert capture_session(scratch, session, machine_id="x").note is not None
    captured = run_hook("capture", "--no-sync", stdin={
        "hook_event_name": "SessionEnd", "session_id": "reflecting",
        "transcript_path": str(session), "cwd": str(work),
    })  # fmt: skip
    injected = run_hook("inject", stdin={"hook_event_name": "SessionStart", "cwd": str(work)})
    assert [(d.returncode, d.stdout, d.stderr) for d in (captured, injected)] == [(0, "", "")] * 2
    with MemoryStore() as reopened:
        assert [note.title for note in reopened.list()] == ["api note"]
    monkeypatch.delenv(REFLECTION_ENV_GUARD)
    assert "api note" in run_hook("inject", stdin={"cwd": str(work)}).stdout  # otherwise it does


def test_with_session_summaries_on_the_llm_rewrites_the_note_after_the_hook(
    store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Capture stays deterministic inside the hook; a detached step asks the provider and
    rewrites the same note. Capturing the session again still updates that note."""
    from anamnesis_testsupport.fake_llm import FakeLLMServer, openai_reply

    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    write_config({"llm.summarize_sessions": "true"}, store.root)
    store.close()
    summary = json.dumps({"title": "Made coverage pass", "summary": "Fixed the test."})
    server = FakeLLMServer().queue(openai_reply(summary))
    server.start()
    for name, value in (("PROVIDER", "openai"), ("MODEL", "m"), ("BASE_URL", server.url)):
        monkeypatch.setenv(f"ANAMNESIS_LLM_{name}", value)
    transcript_path = str(_session(tmp_path / "t.jsonl", FIRST))
    hook_input = {"hook_event_name": "SessionEnd", "session_id": "abc", "cwd": str(work),
                  "transcript_path": transcript_path}  # fmt: skip
    try:
        done = run_hook("capture", "--no-sync", stdin=hook_input)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        captures_filed()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with MemoryStore() as reopened:
                [note] = reopened.list()
            if note.title == "Made coverage pass":
                break
            time.sleep(0.1)
        assert (note.title, note.body, note.prov_model) == (
            "Made coverage pass",
            "Fixed the test.",
            "m",
        )
    finally:
        server.stop()
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "heuristic")  # the recapture asks nothing
    assert run_hook("capture", "--no-sync", stdin=hook_input).returncode == 0
    captures_filed()
    with MemoryStore() as reopened:
        assert [n.id for n in reopened.list()] == [note.id]  # the same note, no follow-up
