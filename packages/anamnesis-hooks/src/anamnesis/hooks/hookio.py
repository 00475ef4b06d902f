"""The hook's input and output: Claude Code's JSON on stdin, read without ever hanging, and
what a hook prints back (:func:`hook_output`).

Claude Code has at times left stdin open for SessionEnd hooks, so a plain ``read()`` can
block until the hook is killed. This reads what arrives, stops as soon as it holds one
complete JSON object, and gives up after a timeout. Empty or invalid input means ``{}``.
"""

from __future__ import annotations

import json
import os
import select
import sys
import time

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from typing import Any, BinaryIO

DEFAULT_TIMEOUT_S = 1.0


def read_hook_input(
    stream: BinaryIO | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
) -> dict[str, Any]:
    """The hook JSON object from ``stream`` (stdin by default), or ``{}``."""
    return read_hook_input_checked(stream, timeout_s)[0]


def read_hook_input_checked(
    stream: BinaryIO | None = None, timeout_s: float = DEFAULT_TIMEOUT_S
) -> tuple[dict[str, Any], str | None]:
    """The hook JSON object (or ``{}``), and what was wrong with the input when something
    arrived that is not one JSON object (None: fine, or nothing at all)."""
    if stream is None:
        if sys.stdin is None or sys.stdin.closed:
            return {}, None
        stream = sys.stdin.buffer
    try:
        if stream.isatty():
            return {}, None
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return {}, None
    data = _read_posix(fd, timeout_s) if os.name != "nt" else _read_threaded(stream, timeout_s)
    payload = _parse(data)
    if payload or not data.strip() or _complete(data):
        return payload, None
    preview = data[:60].decode("utf-8", errors="replace")
    more = "..." if len(data) > 60 else ""
    return (
        payload,
        f"stdin held {len(data):,} bytes that are not one JSON object: {preview!r}{more}",
    )


def _read_posix(fd: int, timeout_s: float) -> bytes:
    buffer = b""
    deadline = time.monotonic() + timeout_s
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return buffer
        try:
            ready, _, _ = select.select([fd], [], [], remaining)
        except (OSError, ValueError):
            return buffer
        if not ready:
            return buffer
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return buffer  # end of input
        buffer += chunk
        if _complete(buffer):
            return buffer  # a whole object arrived: no need to wait for the end


def _read_threaded(stream: BinaryIO, timeout_s: float) -> bytes:  # pragma: no cover - Windows
    import threading  # only where select cannot wait on a pipe: not on a POSIX hook's path

    result: list[bytes] = []
    reader = threading.Thread(target=lambda: result.append(stream.read()), daemon=True)
    reader.start()
    reader.join(timeout_s)
    return result[0] if result else b""


def _complete(data: bytes) -> bool:
    """True once ``data`` holds a whole JSON object, ``{}`` included (an empty object is
    falsy, so "did it parse to something" would wait out the timeout for it)."""
    if not data.rstrip().endswith(b"}"):
        return False  # cheap: most partial reads end elsewhere
    try:
        value = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        return False
    return isinstance(value, dict)


def _parse(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data.decode("utf-8", errors="replace")) if data.strip() else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def text_field(payload: dict[str, Any], key: str) -> str | None:
    """A non-empty string field of the hook input, else None."""
    value = payload.get(key)
    return value if isinstance(value, str) and value.strip() else None


def hook_output(
    text: str,
    *,
    fmt: str = "text",
    event: str = "SessionStart",
    shape: str = "hook-specific-output",
) -> str:
    """What a hook prints: the text, or, with ``fmt`` json, the agent's envelope for
    ``event`` (``SessionStart``, ``UserPromptSubmit``, or the agent's own names) in the
    agent's output ``shape`` (the table of agents' :data:`~.agents.table.OUTPUT_SHAPES`)."""
    if not text:
        return ""
    if fmt == "json" and shape == "hook-specific-output":
        return json.dumps(
            {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
        )
    if fmt == "json" and shape == "additional-context":
        return json.dumps({"additionalContext": text})
    return text
