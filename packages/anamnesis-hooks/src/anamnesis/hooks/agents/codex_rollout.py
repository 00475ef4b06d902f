"""Codex CLI rollouts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl``) turned into the
facts of a session (:class:`ParsedSession`, as Claude Code's transcripts give them).

Each line is ``{"timestamp", "type", "payload"}``; ``type`` is ``session_meta`` (the id, cwd
and git branch), ``response_item`` (what the model saw and said: messages, tool calls),
``event_msg`` (what happened: a finished item such as a ``FileChange``), ``turn_context``,
``compacted`` (a compaction, with the history that replaced the old one) and, lately,
``world_state`` and ``token_usage_record`` (docs/agents/codex.md has the sources). The format
is Codex's own and changes between versions, so everything is optional and unknown records
are skipped; the file is read by the readers' shared rules (:mod:`.session_lines`).

What is the user's: Codex writes the AGENTS.md instructions and an ``<environment_context>``
as user messages too. Recent versions mark each piece of a message with its kind
(``content_item_kinds``: ``user.text`` is what the person typed); older ones do not, and a
piece that is one bracketed element (``<environment_context>...</environment_context>``) or
the AGENTS.md heading is taken for Codex's. A hook's context arrives as a developer message,
never the user's. Codex records no slash commands, and a shell command that edits a file is
not told apart from one that reads: ``commands`` stays empty, and the files touched are
those ``apply_patch`` names and those the rollout's file changes list.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from anamnesis.hooks.agents.session_lines import ParsedSession, json_records, relative_paths

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from typing import Any

# Codex's own pieces of a user message: one bracketed element, or the AGENTS.md heading.
_HARNESS_ELEMENT = re.compile(r"\A\s*<([A-Za-z_][\w-]*)\b[^>]*>.*</\1>\s*\Z", re.DOTALL)
_HARNESS_PREFIXES = ("# AGENTS.md instructions for ",)
# An apply_patch envelope names each file on a line of its own.
_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", re.MULTILINE
)
_USER_TEXT_KIND = "user.text"


def parse_rollout(path: str | Path) -> ParsedSession:
    """Parse a Codex rollout; raise :class:`~.session_lines.TranscriptUnreadable` if it
    cannot be read."""
    session = ParsedSession()
    state = _State()
    for record in json_records(path, session):
        _take(session, state, record)
    session.cwd = session.cwd or state.turn_cwd
    session.last_outcome = state.outcome
    session.files_touched = relative_paths(state.files, session.cwd)
    return session


@dataclass(slots=True)
class _State:
    outcome: str = ""
    turn_cwd: str = ""
    files: dict[str, None] = field(default_factory=dict)


def _take(session: ParsedSession, state: _State, record: dict[str, Any]) -> None:
    stamp = record.get("timestamp")
    if isinstance(stamp, str) and stamp:
        session.started_at = session.started_at or stamp
        session.ended_at = stamp
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return
    kind = record.get("type")
    if kind == "session_meta":
        _meta(session, payload)
    elif kind == "turn_context":
        cwd = payload.get("cwd")
        if isinstance(cwd, str) and not state.turn_cwd:
            state.turn_cwd = cwd
    elif kind == "compacted":
        session.compactions += 1
    elif kind == "response_item":
        _response_item(session, state, payload)
    elif kind == "event_msg":
        _event(state, payload)


def _meta(session: ParsedSession, payload: dict[str, Any]) -> None:
    """The first session_meta names the session (a forked one may carry its parent's too)."""
    if session.session_id:
        return
    for attribute, value in (
        ("session_id", payload.get("id") or payload.get("session_id")),
        ("cwd", payload.get("cwd")),
    ):
        if isinstance(value, str) and value:
            setattr(session, attribute, value)
    git = payload.get("git")
    branch = git.get("branch") if isinstance(git, dict) else None
    if isinstance(branch, str) and branch:
        session.git_branch = branch


def _response_item(session: ParsedSession, state: _State, payload: dict[str, Any]) -> None:
    item = payload.get("type")
    if item == "message":
        role = payload.get("role")
        if role == "user":
            _user(session, payload)
        elif role == "assistant":
            text = "\n".join(_texts(payload.get("content"), "output_text")).strip()
            if text:
                state.outcome = text
    elif item in ("custom_tool_call", "function_call"):
        _patch_files(state, payload)


def _user(session: ParsedSession, payload: dict[str, Any]) -> None:
    content = payload.get("content")
    pieces = content if isinstance(content, list) else []
    kinds = _content_kinds(payload)
    typed: list[str] = []
    for index, piece in enumerate(pieces):
        if not isinstance(piece, dict) or piece.get("type") != "input_text":
            continue
        text = piece.get("text")
        if not isinstance(text, str) or not text.strip():
            continue
        if kinds is not None:
            if index < len(kinds) and kinds[index] == _USER_TEXT_KIND:
                typed.append(text)
        elif not _HARNESS_ELEMENT.match(text) and not text.startswith(_HARNESS_PREFIXES):
            typed.append(text)
    prompt = "\n".join(typed).strip()
    if not prompt:
        return
    session.asked(prompt)


def _content_kinds(payload: dict[str, Any]) -> list[str] | None:
    """What each piece of a message is, where Codex says (None: this version does not)."""
    meta = payload.get("internal_chat_message_metadata_passthrough")
    kinds = meta.get("content_item_kinds") if isinstance(meta, dict) else None
    if not isinstance(kinds, list) or not kinds:
        return None
    return [kind if isinstance(kind, str) else "" for kind in kinds]


def _texts(content: object, kind: str) -> list[str]:
    if not isinstance(content, list):
        return []
    return [
        piece["text"]
        for piece in content
        if isinstance(piece, dict)
        and piece.get("type") == kind
        and isinstance(piece.get("text"), str)
    ]


def _patch_files(state: _State, payload: dict[str, Any]) -> None:
    """The files an apply_patch call names: the freeform tool's ``input``, or the patch in a
    function call's arguments (``{"input": ...}``, or older ``shell`` calls running
    ``["apply_patch", PATCH]``)."""
    patch: object = None
    if payload.get("type") == "custom_tool_call":
        if payload.get("name") == "apply_patch":
            patch = payload.get("input")
    else:
        arguments = payload.get("arguments")
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else None
        except (ValueError, RecursionError):
            parsed = None
        if isinstance(parsed, dict):
            if payload.get("name") == "apply_patch":
                patch = parsed.get("input") or parsed.get("patch")
            command = parsed.get("command")
            if isinstance(command, list) and len(command) >= 2 and command[0] == "apply_patch":
                patch = command[1]
    if isinstance(patch, str):
        for name in _PATCH_FILE.findall(patch):
            state.files[name] = None


def _event(state: _State, payload: dict[str, Any]) -> None:
    """Files changed, as Codex reports them: an ``item_completed`` ``FileChange`` (recent
    versions) or a ``patch_apply_end`` (older ones), each a map from path to change."""
    kind = payload.get("type")
    changes: object = None
    if kind == "item_completed":
        item = payload.get("item")
        if isinstance(item, dict) and item.get("type") == "FileChange":
            changes = item.get("changes")
    elif kind == "patch_apply_end":
        changes = payload.get("changes")
    if not isinstance(changes, dict):
        return
    for name, change in changes.items():
        if isinstance(name, str) and name:
            state.files[name] = None
        moved = change.get("move_path") if isinstance(change, dict) else None
        if isinstance(moved, str) and moved:
            state.files[moved] = None
