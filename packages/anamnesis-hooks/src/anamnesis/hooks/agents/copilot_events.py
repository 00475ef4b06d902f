"""GitHub Copilot CLI's session events turned into the facts of a session
(docs/agents/copilot.md).

Copilot CLI records a session as JSON lines in ``~/.copilot/session-state/<session id>/
events.jsonl`` (its Stop and PreCompact hooks get the path as ``transcript_path``). Each
line is one session event, ``{"type", "data", "id", "timestamp", "parentId"}``, of the
types the Copilot SDK publishes (``session-events.schema.json``, generated into the SDK's
``SessionEvent``): ``session.start`` (``data.sessionId``, ``startTime``, ``context.cwd``,
``context.branch``), ``user.message`` (``data.content``: what the person typed; what the
runtime and hooks added is in ``transformedContent``, never read here; a message with a
``source`` came from the runtime, not a person), ``assistant.message`` (``data.content``,
``data.toolRequests``), ``tool.execution_start`` (``data.toolName``, ``data.arguments``),
``session.compaction_complete``; the rest is skipped. The caps and the fail-open reading
are the shared reader's (:mod:`.session_lines`).
"""

from __future__ import annotations

from pathlib import Path

from anamnesis.hooks.agents.session_lines import ParsedSession, json_records, relative_paths
from anamnesis.store import load_json

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from typing import Any

# Copilot CLI's tools that write files (its hooks reference's tool names), and the
# arguments that may name the file.
EDIT_TOOLS = frozenset({"create", "edit", "str_replace_editor", "write"})
_PATH_KEYS = ("path", "file_path", "filePath")


def parse_copilot_events(path: str | Path) -> ParsedSession:
    """Parse a Copilot CLI events file; raise :class:`~.session_lines.TranscriptUnreadable`
    if it cannot be read."""
    session = ParsedSession()
    files: dict[str, None] = {}
    for record in json_records(path, session):
        _take(session, files, record)
    session.files_touched = relative_paths(files, session.cwd)
    return session


def _take(session: ParsedSession, files: dict[str, None], record: dict[str, Any]) -> None:
    stamp = record.get("timestamp")
    if isinstance(stamp, str) and stamp:
        session.started_at = session.started_at or stamp
        session.ended_at = stamp
    kind = record.get("type")
    data = record.get("data")
    if not isinstance(kind, str) or not isinstance(data, dict):
        return
    if kind == "session.start":
        _start(session, data)
    elif kind == "user.message":
        _user(session, data)
    elif kind == "assistant.message":
        for request in data.get("toolRequests") or ():
            if isinstance(request, dict):
                _edit(files, request.get("name"), request.get("arguments"))
        content = data.get("content")
        if isinstance(content, str) and content.strip() and not data.get("parentToolCallId"):
            session.last_outcome = content.strip()  # a subagent's words are not the outcome
    elif kind == "tool.execution_start":
        _edit(files, data.get("toolName"), data.get("arguments"))
    elif kind == "session.compaction_complete":
        session.compactions += 1


def _start(session: ParsedSession, data: dict[str, Any]) -> None:
    context = data.get("context")
    if not isinstance(context, dict):
        context = {}
    for attribute, value in (
        ("session_id", data.get("sessionId")),
        ("cwd", context.get("cwd")),
        ("git_branch", context.get("branch")),
    ):
        if isinstance(value, str) and value and not getattr(session, attribute):
            setattr(session, attribute, value)
    start = data.get("startTime")
    if isinstance(start, str) and start:
        session.started_at = start


def _user(session: ParsedSession, data: dict[str, Any]) -> None:
    if data.get("source") is not None:
        return  # the runtime's message (a notification, a command, a schedule), not a person's
    content = data.get("content")
    text = content.strip() if isinstance(content, str) else ""
    if not text:
        return
    session.typed(text)


def _edit(files: dict[str, None], tool: object, arguments: object) -> None:
    if tool not in EDIT_TOOLS:
        return
    if isinstance(arguments, str):  # a model's arguments, as the JSON text it wrote
        try:
            arguments = load_json(arguments)
        except ValueError:
            return
    if not isinstance(arguments, dict):
        return
    for key in _PATH_KEYS:
        if isinstance(arguments.get(key), str) and arguments[key]:
            files[arguments[key]] = None
            return
