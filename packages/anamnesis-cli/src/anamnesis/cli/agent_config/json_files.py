"""An agent's JSON configuration file read for editing: refused, never guessed at, when it is
not a JSON object (a file with comments included: rewriting it would lose them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config.hooks_settings import InvalidSettings


def read_json_object(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text (None when there is no file) and its object ({} when empty)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidSettings(f"cannot read {path}: {exc}") from None
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidSettings(
            f"{path} is not plain JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}; "
            "comments are not kept by a rewrite); fix it or move it aside, then run this again"
        ) from None
    if not isinstance(data, dict):
        raise InvalidSettings(f"{path} must hold a JSON object, not {type(data).__name__}")
    return text, data


def our_server(entry: object) -> bool:
    """Whether an MCP server entry runs an Anamnesis ``serve`` (the ``anamnesis`` script, or
    a Python running ``-m anamnesis.cli``): the name alone proves nothing, someone may have
    a server of their own called anamnesis."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return False
    args = entry.get("args")
    if not isinstance(args, list) or not args or args[-1] != "serve":
        return False
    program = Path(entry["command"]).name
    if program in ("anamnesis", "anamnesis.exe"):
        return len(args) == 1
    return program.startswith("python") and args == ["-m", "anamnesis.cli", "serve"]


def server_entry(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Our MCP server as agents' JSON files declare a local server."""
    return {"command": command[0], "args": [*command[1:], "serve"], "env": dict(env)}
