"""Where things are: this installation's `anamnesis`, Claude Code's files, the store."""

from __future__ import annotations

import os
import sys
from pathlib import Path


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


def claude_dir() -> Path:
    """Claude Code's folder: ``CLAUDE_CONFIG_DIR`` or ``~/.claude``."""
    raw = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() if raw else Path.home() / ".claude"


def settings_path() -> Path:
    return claude_dir() / "settings.json"


def claude_json_path() -> Path:
    """Where Claude Code keeps user-scope MCP servers (read only: `claude mcp` edits it)."""
    raw = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(raw).expanduser() / ".claude.json" if raw else Path.home() / ".claude.json"
