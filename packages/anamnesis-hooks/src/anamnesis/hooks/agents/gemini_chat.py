"""Gemini CLI's chat files turned into the facts of a session (docs/agents/gemini.md).

Gemini CLI records a session as JSON lines under ``~/.gemini/tmp/<project>/chats/``
(``session-<time>-<id>.jsonl``; its hooks get the path as ``transcript_path``). Each line is
one of: the session's metadata (``sessionId``, ``projectHash``, ``startTime``); a message
(``id``, ``timestamp``, ``type`` user | gemini | info | error | warning, ``content`` as text
or a list of parts, a gemini message's ``toolCalls``), written again whole under the same
``id`` when it grows; ``{"$set": {...}}``, metadata updated, whose ``messages`` list (a
checkpoint) holds messages too; ``{"$rewindTo": ID}``, the person undoing the conversation
from that message on. Read here the way Gemini CLI reads it back (``loadConversationRecord``
in its chatRecordingService), except that a checkpoint adds the messages it holds without
dropping earlier ones: a compressed session is still captured whole.

What Gemini CLI itself put in a user message is not the person's words and is left out:
the ``<session_context>`` message it opens every session with, and ``<hook_context>``
blocks, what hooks (ours among them) added to a prompt. The caps and the fail-open reading
are the shared reader's (:mod:`.session_lines`).
"""

from __future__ import annotations

import re
from pathlib import Path

from anamnesis.hooks.agents.session_lines import ParsedSession, json_records, relative_paths

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from typing import Any

# Gemini CLI's tools that write files, and the argument naming the file.
EDIT_TOOLS = {"write_file": "file_path", "replace": "file_path"}
_HOOK_CONTEXT = re.compile(r"<hook_context>.*?</hook_context>", re.DOTALL)
_OWN_PREFIXES = ("<session_context>", "<hook_context>")


def parse_gemini_chat(path: str | Path) -> ParsedSession:
    """Parse a Gemini CLI chat file; raise :class:`~.session_lines.TranscriptUnreadable` if
    it cannot be read."""
    session = ParsedSession()
    messages: dict[str, dict[str, Any]] = {}  # by id, in the order first written
    for record in json_records(path, session):
        _take(session, messages, record)
    files: dict[str, None] = {}
    for message in messages.values():
        _message(session, files, message)
    session.files_touched = relative_paths(files, session.cwd)
    return session


def _take(
    session: ParsedSession, messages: dict[str, dict[str, Any]], record: dict[str, Any]
) -> None:
    rewind = record.get("$rewindTo")
    if isinstance(rewind, str):
        _rewind(messages, rewind)
        return
    update = record.get("$set")
    if isinstance(update, dict):
        for message in update.get("messages") or ():
            if isinstance(message, dict) and isinstance(message.get("id"), str):
                messages.setdefault(message["id"], message)
        return
    if isinstance(record.get("id"), str):
        messages[record["id"]] = record  # a message written again replaces its first form
        return
    if isinstance(record.get("sessionId"), str):  # the metadata line
        session.session_id = session.session_id or record["sessionId"]
        start = record.get("startTime")
        if isinstance(start, str) and not session.started_at:
            session.started_at = start


def _rewind(messages: dict[str, dict[str, Any]], message_id: str) -> None:
    """Drop ``message_id`` and every message after it (all of them when it is unknown, as
    Gemini CLI does)."""
    ids = list(messages)
    cut = ids.index(message_id) if message_id in ids else 0
    for each in ids[cut:]:
        del messages[each]


def _message(session: ParsedSession, files: dict[str, None], message: dict[str, Any]) -> None:
    stamp = message.get("timestamp")
    if isinstance(stamp, str) and stamp:
        session.started_at = session.started_at or stamp
        session.ended_at = stamp
    kind = message.get("type")
    if kind == "user":
        _user(session, message)
    elif kind == "gemini":
        for call in message.get("toolCalls") or ():
            if isinstance(call, dict):
                key = EDIT_TOOLS.get(str(call.get("name")))
                args = call.get("args")
                if key and isinstance(args, dict) and isinstance(args.get(key), str):
                    files[args[key]] = None
        text = _text(message.get("content")).strip()
        if text:
            session.last_outcome = text


def _user(session: ParsedSession, message: dict[str, Any]) -> None:
    raw = _text(message.get("content")).strip()
    if raw.startswith("<session_context>"):
        return  # what Gemini CLI tells the model of the workspace, every session
    text = _HOOK_CONTEXT.sub("", raw).strip()
    if not text or text.startswith(_OWN_PREFIXES):
        return
    session.typed(text)


def _text(content: object) -> str:
    """A message's text: content is a string, a part, or a list of parts (``{"text": ...}``;
    other parts, function calls and files, carry none)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and isinstance(part.get("text"), str)
        )
    return ""
