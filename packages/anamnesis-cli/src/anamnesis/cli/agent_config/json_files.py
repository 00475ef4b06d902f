"""An agent's JSON configuration file read for editing: refused, never guessed at, when it is
not a JSON object (a file with comments included: rewriting it would lose them)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config.hooks_settings import InvalidSettings, json_object


def read_json_object(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text (None when there is no file) and its object ({} when empty)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidSettings(f"cannot read {path}: {exc}") from None
    # Comments and trailing commas are refused rather than lost by a rewrite.
    return text, json_object(text, path, "is not plain JSON (comments are not kept by a rewrite)")


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


def render_like(before: str | None, data: dict[str, Any]) -> str:
    """``data`` as JSON laid out as ``before`` was (its indent, its final newline; two
    spaces and a newline for a new file), so taking ours back out gives a person's file
    back as they had it, not merely the same JSON."""
    indent: str | None = "  "
    newline = True
    if before is not None and before.strip():
        newline = before.endswith("\n")
        found = re.search(r"\n([ \t]+)\S", before)
        indent = found.group(1) if found else None  # none: all on one line
    return json.dumps(data, indent=indent, ensure_ascii=False) + ("\n" if newline else "")
