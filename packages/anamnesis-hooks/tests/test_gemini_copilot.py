"""Gemini CLI and GitHub Copilot CLI: their session files read (files the real CLIs wrote,
tests/data/gemini and tests/data/copilot), and the hooks run as each agent runs them: a real
`anamnesis-hook` process, the hook input those CLIs sent (tests/data/*/hook-inputs), the
answer in the shape each reads, one note per captured session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anamnesis.hooks import AGENTS
from anamnesis.hooks.agents.copilot_events import parse_copilot_events
from anamnesis.hooks.agents.gemini_chat import parse_gemini_chat
from anamnesis.hooks.transcript import TranscriptUnreadable
from anamnesis.store import MemoryStore
from hooks_testing import captures_filed, checkout, run_hook

DATA = Path(__file__).parent / "data"
GEMINI_CHAT = DATA / "gemini" / "session-2026-11-29T14-28-ed58e140.jsonl"
COPILOT_EVENTS = DATA / "copilot" / "events.jsonl"
ASK = "Record in notes.txt which keyword search engine we chose, SQLite FTS5, and why."
ANSWER = "Wrote notes.txt: we chose SQLite FTS5 for keyword search because it ships with Python."


def _input(agent: str, name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((DATA / agent / "hook-inputs" / name).read_text())
    return data


def test_a_gemini_chat_file_the_cli_wrote() -> None:
    session = parse_gemini_chat(GEMINI_CHAT)
    assert session.session_id == "ed58e140-7843-4cee-b66a-f8dbbf455a96"
    # The <session_context> message and the tool result are not the person's turns.
    assert (session.first_prompt, session.user_turns) == (ASK, 1)
    assert session.last_outcome == ANSWER
    assert session.files_touched == ["notes.txt"]
    assert session.started_at == "2026-11-29T14:28:55.733Z"
    assert session.ended_at == "2026-11-29T14:28:56.175Z"
    assert (session.bad_lines, session.long_lines) == (0, 0)


def test_a_copilot_events_file_the_cli_wrote() -> None:
    session = parse_copilot_events(COPILOT_EVENTS)
    assert session.session_id == "70d172ff-ae2b-42d0-a489-6f8964e6f364"
    assert (session.cwd, session.git_branch) == ("/tmp/cf/proj", "master")
    assert (session.first_prompt, session.user_turns) == (ASK, 1)
    assert session.last_outcome == ANSWER
    assert session.files_touched == ["notes.txt"]  # named absolutely, under the session's cwd
    assert (session.bad_lines, session.long_lines) == (0, 0)


def _lines(path: Path, records: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_gemini_what_hooks_added_rewinds_and_checkpoints(tmp_path: Path) -> None:
    def user(mid: str, text: str) -> dict[str, Any]:
        return {"id": mid, "timestamp": f"2026-01-01T00:00:0{mid[-1]}Z", "type": "user",
                "content": [{"text": text}]}  # fmt: skip

    path = _lines(tmp_path / "session.jsonl", [
        {"sessionId": "s1", "projectHash": "h", "startTime": "2026-01-01T00:00:00Z"},
        # In -p mode, SessionStart's context arrives inside the first prompt.
        user("m1", "<hook_context>## Anamnesis memory\nold notes</hook_context>\n\nfix the build"),
        {"id": "m2", "type": "gemini", "content": "Fixed: a missing import."},
        user("m3", "a question the person took back"),
        {"$rewindTo": "m3"},
        user("m4", "/compress"),
        "{not json",
        # A checkpoint after a compression: what it holds is added, nothing is dropped.
        {"$set": {"messages": [user("m1", "ignored: m1 is known"), user("m5", "and the tests")]}},
    ])  # fmt: skip
    session = parse_gemini_chat(path)
    assert (session.first_prompt, session.user_turns) == ("fix the build", 2)
    assert session.commands == ["/compress"]
    assert session.last_outcome == "Fixed: a missing import."
    assert session.bad_lines == 1


def test_copilot_what_the_runtime_said_is_not_the_person(tmp_path: Path) -> None:
    path = _lines(tmp_path / "events.jsonl", [
        {"type": "session.start", "data": {"sessionId": "s", "context": {"cwd": "/w"}}},
        {"type": "user.message", "data": {"content": "a background task finished",
                                          "source": "system"}},
        {"type": "user.message", "data": {"content": "rename the flag",
                                          "transformedContent": "<system_reminder>notes"}},
        {"type": "assistant.message", "data": {
            "content": "", "toolRequests": [{"name": "edit", "arguments": '{"path": "/w/a.py"}'}]}},
        {"type": "assistant.message", "data": {"content": "a subagent's", "parentToolCallId": "t"}},
        {"type": "assistant.message", "data": {"content": "Renamed."}},
        {"type": "session.compaction_complete", "data": {}},
        "[1, 2]",
    ])  # fmt: skip
    session = parse_copilot_events(path)
    assert (session.first_prompt, session.user_turns) == ("rename the flag", 1)
    assert (session.last_outcome, session.files_touched) == ("Renamed.", ["a.py"])
    assert (session.compactions, session.bad_lines) == (1, 1)


@pytest.mark.parametrize("reader", [parse_gemini_chat, parse_copilot_events])
def test_only_a_regular_file_is_read(reader: Any, tmp_path: Path) -> None:
    with pytest.raises(TranscriptUnreadable):
        reader(tmp_path)  # a folder
    with pytest.raises(TranscriptUnreadable):
        reader(tmp_path / "missing.jsonl")


def _store_with_a_note(home: Path) -> None:
    with MemoryStore(home) as store:
        store.write(type="semantic", title="Deploys go through the staging box",
                    body="Never straight to production: the staging box first.")  # fmt: skip


def test_gemini_session_start_gets_hook_specific_output(isolated_home: Path) -> None:
    _store_with_a_note(isolated_home)
    done = run_hook("inject", "--agent", "gemini", "--format", "json",
                    stdin=_input("gemini", "01-SessionStart.json"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "SessionStart"
    assert "Deploys go through the staging box" in out["additionalContext"]


def test_copilot_session_start_gets_a_top_level_additional_context(isolated_home: Path) -> None:
    _store_with_a_note(isolated_home)
    done = run_hook("inject", "--agent", "copilot", "--format", "json",
                    stdin=_input("copilot", "01-SessionStart.json"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert list(out) == ["additionalContext"]
    assert "Deploys go through the staging box" in out["additionalContext"]


def test_gemini_prompt_recall_looks_past_the_injected_context(
    isolated_home: Path, tmp_path: Path
) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="Pancakes are the test fixture",
                    body="The fixture is pancakes, chosen in review.",
                    project="github.com/acme/api")  # fmt: skip
    payload = {**_input("gemini", "02-BeforeAgent.json"), "cwd": str(work)}
    # The real input's shape (SessionStart's context in the prompt), with a real question.
    assert payload["prompt"].startswith("<hook_context>CTX-FROM-SESSIONSTART</hook_context>")
    payload["prompt"] = payload["prompt"].replace(
        "hello there, remember pancakes", "which pancakes fixture did the review choose?"
    )
    payload["session_id"] = "gemini-recall"
    done = run_hook("prompt", "--agent", "gemini", "--format", "json", stdin=payload)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "BeforeAgent"
    assert "Pancakes are the test fixture" in out["additionalContext"]
    # Only the injected block names the note: recall has nothing to find from it alone.
    payload["prompt"] = (
        "<hook_context>pancakes fixture review</hook_context>\n\ndeploy the staging build now"
    )
    payload["session_id"] = "gemini-recall-2"
    quiet = run_hook("prompt", "--agent", "gemini", "--format", "json", stdin=payload)
    assert (quiet.returncode, quiet.stdout) == (0, "")


def test_copilot_prompt_recall_answers_as_copilot_reads_it(
    isolated_home: Path, tmp_path: Path
) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="Keyword search runs on SQLite FTS5",
                    body="Chosen for keyword search: ships with Python.",
                    project="github.com/acme/api")  # fmt: skip
    payload = {**_input("copilot", "02-UserPromptSubmit.json"), "cwd": str(work)}
    payload["prompt"] = "which keyword search engine did we choose?"
    done = run_hook("prompt", "--agent", "copilot", "--format", "json", stdin=payload)
    assert done.returncode == 0, done.stderr
    assert "SQLite FTS5" in json.loads(done.stdout)["additionalContext"]


@pytest.mark.parametrize(
    ("agent", "event_input", "session_file"),
    [("gemini", "05-SessionEnd.json", GEMINI_CHAT), ("copilot", "03-Stop.json", COPILOT_EVENTS)],
)
def test_capture_files_one_note_for_the_session(
    isolated_home: Path, tmp_path: Path, agent: str, event_input: str, session_file: Path
) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    payload = {**_input(agent, event_input), "transcript_path": str(session_file),
               "cwd": str(work)}  # fmt: skip
    capture = next(e for e in AGENTS[agent].hooks if e.hook == "capture")
    for _ in range(2):  # the same session captured twice (Copilot: every turn's end)
        done = run_hook(*AGENTS[agent].command_args(capture), stdin=payload)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
        captures_filed()
    with MemoryStore() as store:
        [note] = store.list()
    assert (note.type, note.project, note.prov_session, note.prov_agent) == (
        "episodic", "github.com/acme/api", payload["session_id"], agent)  # fmt: skip
    assert "SQLite FTS5" in note.body and "notes.txt" in note.body


def test_copilot_session_end_has_no_transcript_and_only_starts_the_sync(
    isolated_home: Path,
) -> None:
    spec = AGENTS["copilot"]
    [end] = [e for e in spec.hooks if e.event == "SessionEnd"]
    assert end.hook == "sync"
    done = run_hook(*spec.command_args(end), stdin=_input("copilot", "04-SessionEnd.json"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_config_folders_follow_their_variables(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    gemini, copilot = AGENTS["gemini"], AGENTS["copilot"]
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert gemini.hooks_path() == tmp_path / ".gemini" / "settings.json"
    assert copilot.hooks_path() == tmp_path / ".copilot" / "hooks" / "anamnesis.json"
    # GEMINI_CLI_HOME names the home .gemini is under; COPILOT_HOME the folder itself.
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "g"))
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "c"))
    assert gemini.hooks_path() == tmp_path / "g" / ".gemini" / "settings.json"
    assert copilot.hooks_path() == tmp_path / "c" / "hooks" / "anamnesis.json"
