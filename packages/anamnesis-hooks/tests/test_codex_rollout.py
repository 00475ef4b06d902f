"""Codex rollouts: the one Codex 0.171.0 wrote (tests/data/codex/README.md), the shapes of
older versions, and every awkward line a rollout can hold."""

from __future__ import annotations

import json
import os
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

from anamnesis.hooks.agents import session_lines
from anamnesis.hooks.agents.codex_rollout import parse_rollout
from anamnesis.hooks.agents.session_lines import TranscriptUnreadable

DATA = Path(__file__).parent / "data" / "codex"
RECORDED = next(DATA.glob("rollout-*.jsonl"))
HOSTILE = DATA / "hostile-rollout.jsonl"


def rollout(path: Path, records: list[dict[str, Any] | str]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n")
    return path


def item(payload: dict[str, Any], stamp: str = "2026-01-02T03:04:05.000Z") -> dict[str, Any]:
    return {"timestamp": stamp, "type": "response_item", "payload": payload}


def message(role: str, *texts: str, kinds: list[str] | None = None) -> dict[str, Any]:
    kind = "output_text" if role == "assistant" else "input_text"
    payload: dict[str, Any] = {
        "type": "message",
        "role": role,
        "content": [{"type": kind, "text": text} for text in texts],
    }
    if kinds is not None:
        payload["internal_chat_message_metadata_passthrough"] = {"content_item_kinds": kinds}
    return item(payload)


def meta(**payload: Any) -> dict[str, Any]:
    return {"timestamp": "2026-01-02T03:04:00.000Z", "type": "session_meta", "payload": payload}


def test_the_recorded_rollout_gives_the_session_as_codex_ran_it() -> None:
    session = parse_rollout(RECORDED)
    assert session.session_id == "01a227b0-8200-7072-a12e-a9499c345c1f"
    assert session.cwd == "/tmp/anamnesis-fixture/home/webapp"
    assert session.git_branch == "fix-flaky-test"
    # the typed prompt: not the AGENTS.md text nor the environment Codex sends as "user",
    # nor the hooks' context (developer messages)
    assert session.first_prompt == (
        "tests/test_server.py is flaky: it connects before the server is up. "
        "Make it wait for the port."
    )
    assert session.user_turns == 2  # the resumed turn counts; the compacted history does not
    assert session.compactions == 1
    assert session.files_touched == ["tests/wait.py", "tests/test_server.py"]
    assert session.last_outcome.startswith("Port 8123 comes from tests/test_server.py")
    assert session.started_at == "2026-11-29T14:23:28.877Z"
    assert session.started_at < session.ended_at
    assert session.commands == []  # Codex records no slash commands
    assert (session.bad_lines, session.long_lines, session.truncated) == (0, 0, False)


def test_the_hostile_rollout_loses_its_bad_lines_and_nothing_else() -> None:
    session = parse_rollout(HOSTILE)
    # not JSON, cut off, not UTF-8, an array, nested too deep, binary noise
    assert session.bad_lines == 6
    assert "6 unreadable lines" in session.skipped_lines()
    assert session.first_prompt.startswith("tests/test_server.py is flaky")
    assert session.user_turns == 1  # the content that is a string is no prompt
    assert session.files_touched == ["tests/wait.py", "tests/test_server.py"]
    assert session.last_outcome.startswith("Port 8123 comes from")
    assert session.git_branch == "fix-flaky-test"


def test_injected_pieces_are_told_apart_without_kinds(tmp_path: Path) -> None:
    """Versions before ``content_item_kinds``: Codex's own pieces are one bracketed element
    or the AGENTS.md heading."""
    path = rollout(
        tmp_path / "old.jsonl",
        [
            meta(id="abc", cwd="/w", git={"branch": "main"}),
            message("user", "<user_instructions>\nbe brief\n</user_instructions>"),
            message("user", "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
            message("user", "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>x</INSTRUCTIONS>"),
            message("user", "rename <b>old</b> to <b>new</b> in README"),
            message("assistant", "Renamed."),
        ],
    )
    session = parse_rollout(path)
    assert session.first_prompt == "rename <b>old</b> to <b>new</b> in README"
    assert session.user_turns == 1 and session.last_outcome == "Renamed."


def test_kinds_decide_when_codex_gives_them(tmp_path: Path) -> None:
    path = rollout(
        tmp_path / "kinds.jsonl",
        [
            message(
                "user", "# AGENTS.md ...", "<environment_context/>", kinds=["agents_md", "env"]
            ),
            message("user", "<div>this is what I typed</div>", kinds=["user.text"]),
        ],
    )
    session = parse_rollout(path)
    assert session.first_prompt == "<div>this is what I typed</div>" and session.user_turns == 1


def test_older_file_changes_and_patches(tmp_path: Path) -> None:
    """``patch_apply_end`` events, ``shell`` calls running apply_patch, moves, and paths
    outside the session's folder (kept whole)."""
    patch = "*** Begin Patch\n*** Update File: src/a.py\n*** Move to: src/b.py\n*** End Patch"
    path = rollout(
        tmp_path / "older.jsonl",
        [
            meta(id="s1", cwd="/w"),
            item(
                {
                    "type": "function_call",
                    "name": "shell",
                    "arguments": json.dumps({"command": ["apply_patch", patch]}),
                }
            ),
            {
                "timestamp": "2026-01-02T03:04:06.000Z",
                "type": "event_msg",
                "payload": {
                    "type": "patch_apply_end",
                    "changes": {
                        "/w/src/a.py": {"update": {"move_path": "/w/src/b.py"}},
                        "/elsewhere/c.py": {"add": {"content": ""}},
                    },
                },
            },
            item({"type": "function_call", "name": "apply_patch", "arguments": "{not json"}),
        ],
    )
    assert parse_rollout(path).files_touched == ["src/a.py", "src/b.py", "/elsewhere/c.py"]


def test_cwd_falls_back_to_the_turn_context(tmp_path: Path) -> None:
    path = rollout(
        tmp_path / "no-meta.jsonl",
        [
            {"timestamp": "t", "type": "turn_context", "payload": {"cwd": "/from/turn"}},
            message("user", "hello there, fix the bug"),
        ],
    )
    session = parse_rollout(path)
    assert session.cwd == "/from/turn" and session.session_id == ""


def test_a_huge_line_is_counted_and_never_held_whole(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as handle:
        handle.write(RECORDED.read_bytes())
        handle.write(b'{"type": "event_msg", "payload": {"junk": "')
        handle.write(b"x" * (session_lines.MAX_LINE_BYTES + 1024))
        handle.write(b'"}}\n')
        handle.write((json.dumps(message("assistant", "after the huge line")) + "\n").encode())
    tracemalloc.start()
    try:
        session = parse_rollout(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert session.long_lines == 1 and session.bad_lines == 0
    assert session.last_outcome == "after the huge line"
    assert peak < session_lines.MAX_LINE_BYTES * 2  # the 4 MiB line was never held whole
    assert "over the 4 MiB line cap" in session.skipped_lines()


def test_reading_stops_at_the_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_lines, "MAX_TRANSCRIPT_BYTES", 150_000)
    monkeypatch.setattr(session_lines, "CHUNK", 4096)
    path = tmp_path / "long.jsonl"
    with path.open("wb") as handle:
        handle.write(RECORDED.read_bytes())  # 97 KB: read whole
        for _ in range(2000):
            handle.write((json.dumps(message("assistant", "later")) + "\n").encode())
    session = parse_rollout(path)
    assert session.truncated and session.first_prompt.startswith("tests/test_server.py")


@pytest.mark.parametrize("kind", ["missing", "folder", "fifo", "dev-zero"])
def test_only_a_regular_file_is_read(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "rollout.jsonl"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path = Path("/dev/zero")
    with pytest.raises(TranscriptUnreadable):
        parse_rollout(path)
