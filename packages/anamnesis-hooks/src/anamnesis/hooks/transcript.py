"""Claude Code transcripts (JSONL) turned into the facts of a session, line by line.

The format is internal to Claude Code and changes between versions, so everything is
optional: unknown record types are skipped. The file is read by the readers' shared rules
(:mod:`.agents.session_lines`: only a regular file, streamed, every line and the whole file
capped, a bad line counted and skipped), which also hold :class:`ParsedSession`, what every
agent's reader gives.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.hooks.agents.session_lines import (
    MAX_LINE_BYTES,
    MAX_TRANSCRIPT_BYTES,
    ParsedSession,
    TranscriptUnreadable,
    json_records,
    relative_paths,
)

# The shared reader's names, still importable from here (capture and the tests read them).
__all__ = [
    "EDIT_TOOLS",
    "MAX_LINE_BYTES",
    "MAX_TRANSCRIPT_BYTES",
    "ParsedSession",
    "TranscriptUnreadable",
    "parse_transcript",
]

# Tools that write files, and where each names the file.
EDIT_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
              "NotebookEdit": "notebook_path"}  # fmt: skip

_COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_NOISE_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "[Request interrupted by user",
)


def parse_transcript(path: str | Path) -> ParsedSession:
    """Parse a transcript file; raise :class:`TranscriptUnreadable` if it cannot be read."""
    session = ParsedSession()
    state = _State()
    for record in json_records(path, session):
        _take(session, state, record)
    session.last_outcome = "\n".join(state.outcome_parts).strip()
    session.files_touched = relative_paths(state.files, session.cwd)
    if not session.first_prompt and state.command_prompt:
        session.first_prompt = state.command_prompt
    return session


@dataclass(slots=True)
class _State:
    outcome_id: str = ""
    outcome_parts: list[str] = field(default_factory=list)
    files: dict[str, None] = field(default_factory=dict)
    command_prompt: str = ""


def _take(session: ParsedSession, state: _State, record: dict[str, Any]) -> None:
    _envelope(session, record)
    kind = record.get("type")
    if kind == "system" and record.get("subtype") == "compact_boundary":
        session.compactions += 1
        return
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if kind == "user":
        _user(session, state, record, content)
    elif kind == "assistant":
        message_id = str(message.get("id", "")) if isinstance(message, dict) else ""
        _assistant(state, record, content, message_id)


def _envelope(session: ParsedSession, record: dict[str, Any]) -> None:
    for attribute, key in (
        ("session_id", "sessionId"),
        ("cwd", "cwd"),
        ("git_branch", "gitBranch"),
    ):
        value = record.get(key)
        if isinstance(value, str) and value and not getattr(session, attribute):
            setattr(session, attribute, value)
    stamp = record.get("timestamp")
    if isinstance(stamp, str) and stamp:
        session.started_at = session.started_at or stamp
        session.ended_at = stamp


def _user(session: ParsedSession, state: _State, record: dict[str, Any], content: object) -> None:
    if record.get("isMeta") or record.get("isSidechain"):
        return
    if record.get("isCompactSummary"):  # the summary of earlier turns is not the user's ask
        session.compactions += 1
        return
    if isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "tool_result" for block in content
    ):
        return  # tool output travelling back to the model
    text = _text(content).strip()
    if not text or text.startswith(_NOISE_PREFIXES):
        return
    command = _COMMAND.search(text)
    if command:
        name = command.group(1)
        name = name if name.startswith("/") else f"/{name}"
        session.commands.append(name)
        args = _COMMAND_ARGS.search(text)
        if args and args.group(1).strip() and not state.command_prompt:
            state.command_prompt = f"{name} {args.group(1).strip()}"
        return
    session.asked(text)


def _assistant(state: _State, record: dict[str, Any], content: object, message_id: str) -> None:
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                key = EDIT_TOOLS.get(str(block.get("name")))
                target = block.get("input")
                if key and isinstance(target, dict) and isinstance(target.get(key), str):
                    state.files[target[key]] = None
    if record.get("isSidechain"):
        return  # a subagent's words are not the session's outcome (its edits still count)
    text = _text(content).strip()
    if not text:
        return
    # One API response is written as several lines, one block each, sharing message.id.
    if message_id and message_id == state.outcome_id:
        state.outcome_parts.append(text)
    else:
        state.outcome_id = message_id
        state.outcome_parts = [text]


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
    return ""
