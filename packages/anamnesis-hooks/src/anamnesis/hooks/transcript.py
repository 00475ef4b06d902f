"""Claude Code transcripts (JSONL) turned into the facts of a session, line by line.

The format is internal to Claude Code and changes between versions, so everything is
optional: unknown record types are skipped, and a line that cannot be read (not JSON, cut
off mid-write, not UTF-8, nested too deep for the parser) is counted and skipped: one bad
line never costs the session its note. The file is streamed (a huge transcript costs time,
not memory). Only a regular file is read (a FIFO would block the hook, a device never end),
a line is never held whole past :data:`MAX_LINE_BYTES` (it is counted and skipped), and
reading stops at :data:`MAX_TRANSCRIPT_BYTES`.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.store import UnsafeFile, open_regular

# Tools that write files, and where each names the file.
EDIT_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path",
              "NotebookEdit": "notebook_path"}  # fmt: skip
# Lines longer than this are tool output (file dumps, logs): skipped unparsed.
MAX_LINE_BYTES = 4 * 1024 * 1024
# Reading stops here: a session this long has been compacted many times, and its start and
# the note made from it are in the first part anyway. The hook has seconds, not minutes.
MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
_CHUNK = 1 << 16

_COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]+)\s*</command-name>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_NOISE_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "[Request interrupted by user",
)


class TranscriptUnreadable(Exception):
    """The transcript file is missing or cannot be read."""


@dataclass(slots=True)
class ParsedSession:
    """What happened in a session, as far as the transcript tells."""

    session_id: str = ""
    cwd: str = ""
    git_branch: str = ""
    first_prompt: str = ""
    commands: list[str] = field(default_factory=list)
    last_outcome: str = ""
    files_touched: list[str] = field(default_factory=list)
    started_at: str = ""
    ended_at: str = ""
    user_turns: int = 0
    compactions: int = 0
    # Lines skipped: not a JSON object (garbage, cut off, not UTF-8, nested too deep), and
    # longer than MAX_LINE_BYTES (tool output, never parsed).
    bad_lines: int = 0
    long_lines: int = 0
    # Set when the file was longer than MAX_TRANSCRIPT_BYTES: only its start was read.
    truncated: bool = False

    def skipped_lines(self) -> str:
        """The lines left out, in words ("" when none were)."""
        parts = []
        if self.bad_lines:
            parts.append(
                f"{self.bad_lines} unreadable {_lines_word(self.bad_lines)} (not a JSON "
                "object, cut off, not UTF-8 or nested too deep)"
            )
        if self.long_lines:
            parts.append(
                f"{self.long_lines} {_lines_word(self.long_lines)} over the "
                f"{MAX_LINE_BYTES // (1024 * 1024)} MiB line cap"
            )
        return " and ".join(parts)


def _lines_word(count: int) -> str:
    return "line" if count == 1 else "lines"


def parse_transcript(path: str | Path) -> ParsedSession:
    """Parse a transcript file; raise :class:`TranscriptUnreadable` if it cannot be read."""
    session = ParsedSession()
    state = _State()
    fd = _open_regular(path)

    with io.FileIO(fd, "rb", closefd=True) as handle:
        for raw in _lines(handle, session):
            line = raw.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
                session.bad_lines += 1  # garbage, cut off mid-write, or nested too deep
                continue
            if isinstance(record, dict):
                _take(session, state, record)
            else:
                session.bad_lines += 1
    session.last_outcome = "\n".join(state.outcome_parts).strip()
    session.files_touched = _relative(state.files, session.cwd)
    if not session.first_prompt and state.command_prompt:
        session.first_prompt = state.command_prompt
    return session


def _open_regular(path: str | Path) -> int:
    """A descriptor of the transcript, once it is known to be a regular file."""
    try:
        # Claude Code's folder may well be a link (dotfile managers): follow links here,
        # but read only a regular file (a FIFO would block, /dev/zero never end).
        return open_regular(path, follow=True)
    except UnsafeFile as exc:
        raise TranscriptUnreadable(f"transcript {path} was not read: {exc.strerror}") from None
    except OSError as exc:
        raise TranscriptUnreadable(
            f"cannot read transcript {path}: {exc.strerror or exc}"
        ) from None


def _lines(handle: Any, session: ParsedSession) -> Any:
    """The file's lines, each cut off (skipped, and counted in ``session.long_lines``) once
    past MAX_LINE_BYTES without ever being held whole, up to MAX_TRANSCRIPT_BYTES in all."""
    pending = b""
    skipping = False  # inside a line already known to be too long
    total = 0
    while chunk := handle.read(_CHUNK):
        total += len(chunk)
        if total > MAX_TRANSCRIPT_BYTES:
            session.truncated = True
            return
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if not skipping and len(pending) + end - start > MAX_LINE_BYTES:
                session.long_lines += 1  # it ends in this chunk, over the cap all the same
            elif not skipping:
                yield pending + chunk[start:end]
            pending, skipping, start = b"", False, end + 1
        if not skipping:
            pending += chunk[start:]
            if len(pending) > MAX_LINE_BYTES:
                pending, skipping = b"", True
                session.long_lines += 1
    if pending and not skipping:
        yield pending  # at most MAX_LINE_BYTES: checked as it grew


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
    session.user_turns += 1
    if not session.first_prompt:
        session.first_prompt = text


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


def _relative(files: dict[str, None], cwd: str) -> list[str]:
    out: list[str] = []
    base = Path(cwd) if cwd else None
    for name in files:
        path = Path(name)
        if base is not None and path.is_absolute():
            try:
                name = path.relative_to(base).as_posix()
            except ValueError:
                pass
        if name not in out:
            out.append(name)
    return out
