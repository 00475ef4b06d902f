"""Where things are: this installation's `anamnesis`, Claude Code's files (its folder is
``anamnesis.ops.claude_home``; the store's paths are the home's layout)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from anamnesis.ops import claude_home


def anamnesis_command() -> list[str]:
    """The absolute command that runs this installation's `anamnesis`.

    The console script next to the running interpreter is the installed one (for `uv tool
    install`, inside the tool's own environment), whatever PATH says. Without it (running
    from a source tree), the interpreter runs the module.
    """
    bin_dir = Path(sys.executable).parent
    for name in ("anamnesis", "anamnesis.exe"):
        script = bin_dir / name
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "anamnesis.cli"]


def settings_path() -> Path:
    """Claude Code's settings.json, in its folder (``anamnesis.ops.claude_home``)."""
    return claude_home() / "settings.json"


def claude_json_path() -> Path:
    """Where Claude Code keeps user-scope MCP servers (read only: `claude mcp` edits it)."""
    raw = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() / ".claude.json" if raw else Path.home() / ".claude.json"
