"""The hooks as Codex runs them: the commands `init --agent codex` writes, each given the
JSON the real Codex gave its hooks in the recorded session (tests/data/codex/hook-inputs),
over that session's rollout. What they print is held to Codex's output schemas
(codex-rs/hooks/schema/generated/*.command.output.schema.json: docs/agents/codex.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from anamnesis.hooks import AGENTS
from anamnesis.store import MemoryStore
from hooks_testing import captures_filed, checkout, run_hook

DATA = Path(__file__).parent / "data" / "codex"
INPUTS = sorted((DATA / "hook-inputs").glob("*.json"))
SESSION = "01a227b0-8200-7072-a12e-a9499c345c1f"
# What Codex takes from a SessionStart / UserPromptSubmit hook's JSON (their schemas are
# closed: "additionalProperties": false, at both levels).
TOP_KEYS = {"continue", "hookSpecificOutput", "stopReason", "suppressOutput", "systemMessage"}
SPECIFIC_KEYS = {
    "SessionStart": {"additionalContext", "env", "hookEventName"},
    "UserPromptSubmit": {"additionalContext", "hookEventName"},
}


@pytest.fixture
def session(tmp_path: Path) -> dict[str, Path]:
    """The recorded rollout, copied, and the project it ran in (a checkout with a remote,
    so its project key is the remote's)."""
    rollout = tmp_path / "codex" / "rollout.jsonl"
    rollout.parent.mkdir()
    shutil.copy(next(DATA.glob("rollout-*.jsonl")), rollout)
    cwd = checkout(tmp_path / "webapp", "git@github.com:acme/webapp.git")
    return {"rollout": rollout, "cwd": cwd}


def codex_input(name: str, session: dict[str, Path]) -> dict[str, Any]:
    """The JSON Codex gave the hook of that recorded call, pointed at the test's copies."""
    (path,) = [p for p in INPUTS if p.stem == name]
    payload: dict[str, Any] = json.loads(path.read_text())
    payload.update(transcript_path=str(session["rollout"]), cwd=str(session["cwd"]))
    return payload


def run_codex_hook(event: str, payload: dict[str, Any]) -> Any:
    """Run each of our Codex hooks on ``event`` (but the background sync) as written by
    init: the arguments of the table's entries, ``--agent codex`` among them."""
    spec = AGENTS["codex"]
    outputs = []
    for entry in spec.hooks:
        if entry.event != event or entry.hook == "sync":
            continue
        done = run_hook(*spec.command_args(entry), stdin=payload)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        outputs.append(done.stdout)
    (output,) = outputs
    return output


def check_output(output: str, event: str) -> str:
    """The context a hook's output gives Codex, after holding it to Codex's schema."""
    data = json.loads(output)
    assert set(data) <= TOP_KEYS, data
    specific = data["hookSpecificOutput"]
    assert set(specific) <= SPECIFIC_KEYS[event] and specific["hookEventName"] == event
    context = specific["additionalContext"]
    assert isinstance(context, str) and context
    return context


def session_notes(home: Path) -> list[Any]:
    with MemoryStore(home) as store:
        return [n for n in store.list(type="episodic", limit=100) if n.prov_session == SESSION]


def test_a_codex_session_through_its_hooks(isolated_home: Path, session: dict[str, Path]) -> None:
    with MemoryStore(isolated_home) as store:
        store.write(
            type="procedural",
            title="The flaky server test",
            body="tests/test_server.py races the server start; wait for the port first.",
            project="github.com/acme/webapp",
        )
    start = run_codex_hook("SessionStart", codex_input("01-SessionStart", session))
    assert "The flaky server test" in check_output(start, "SessionStart")

    prompt = codex_input("02-UserPromptSubmit", session)
    assert prompt["prompt"].startswith("tests/test_server.py is flaky")
    recalled = run_codex_hook("UserPromptSubmit", prompt)
    # the session start already showed it: recall leaves it out (nothing printed)
    assert recalled == ""
    fresh = {**prompt, "session_id": "another-session"}
    assert "The flaky server test" in check_output(
        run_codex_hook("UserPromptSubmit", fresh), "UserPromptSubmit"
    )

    # Stop after each turn, SessionEnd after each `codex exec`, PreCompact on the way:
    # one note for the session, kept current.
    for name in ("03-Stop", "04-SessionEnd", "07-PreCompact", "10-Stop", "11-SessionEnd"):
        event = name.split("-", 1)[1]
        assert run_codex_hook(event, codex_input(name, session)) == ""
        captures_filed(isolated_home)
        notes = session_notes(isolated_home)
        assert len(notes) == 1, (name, [n.title for n in notes])
    (note,) = notes
    assert note.title.startswith("tests/test_server.py is flaky")
    assert note.project == "github.com/acme/webapp"
    assert note.prov_agent == "codex"  # the hook command's --agent: whose session it was
    assert "tests/wait.py" in note.body and "fix-flaky-test" in note.body
    assert "Port 8123 comes from tests/test_server.py" in note.body  # the last turn's outcome
    assert "Project notes: none yet." not in note.body  # the hooks' context is not the ask


def test_the_hooks_of_a_codex_session_ahead_of_its_rollout(
    isolated_home: Path, session: dict[str, Path]
) -> None:
    """A Stop while Codex is still writing: the rollout holds only its first lines (the
    last one cut mid-write): the note has what is there, the cut line is logged."""
    lines = session["rollout"].read_bytes().splitlines(keepends=True)
    cut = b"".join(lines[:23]) + lines[23][:40]
    session["rollout"].write_bytes(cut)
    assert run_codex_hook("Stop", codex_input("03-Stop", session)) == ""
    captures_filed(isolated_home)
    (note,) = session_notes(isolated_home)
    assert "tests/wait.py" in note.body
    log = (isolated_home / "logs" / "hooks.log").read_text()
    assert "skipped 1 unreadable line" in log


def test_a_hostile_rollout_still_gives_its_note(
    isolated_home: Path, session: dict[str, Path]
) -> None:
    shutil.copy(DATA / "hostile-rollout.jsonl", session["rollout"])
    assert run_codex_hook("SessionEnd", codex_input("11-SessionEnd", session)) == ""
    captures_filed(isolated_home)
    (note,) = session_notes(isolated_home)
    assert note.title.startswith("tests/test_server.py is flaky")
    assert "6 unreadable lines" in (isolated_home / "logs" / "hooks.log").read_text()


def test_a_session_without_a_rollout_is_logged(
    isolated_home: Path, session: dict[str, Path]
) -> None:
    """Codex sends ``transcript_path: null`` for a session it keeps no rollout of."""
    payload = {**codex_input("11-SessionEnd", session), "transcript_path": None}
    assert run_codex_hook("SessionEnd", payload) == ""
    assert "no transcript to read" in (isolated_home / "logs" / "hooks.log").read_text()
