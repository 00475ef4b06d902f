"""Where Claude Code keeps its files, every one of them from its config folder.

That folder is ``anamnesis.ops.claude_home`` (``CLAUDE_CONFIG_DIR``, else ``~/.claude``):
the one function that decides it, for settings.json, the plugins Claude Code installed and
its own memory alike. Claude Code's ``.claude.json`` (user-scope MCP servers) is the one file
outside it by default, beside it in the home folder; with ``CLAUDE_CONFIG_DIR`` set, Claude
Code keeps that file inside the folder too (observed: `claude mcp add` and `claude plugin
install` under a scratch ``CLAUDE_CONFIG_DIR`` write ``$CLAUDE_CONFIG_DIR/.claude.json``).
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.ops import claude_home

CONFIG_DIR_VARIABLE = "CLAUDE_CONFIG_DIR"
# Claude Code's own override of where plugins live (its plugins folder, default
# ``<config folder>/plugins``): the record of installed plugins and their copies are there.
PLUGINS_DIR_VARIABLE = "CLAUDE_CODE_PLUGIN_CACHE_DIR"


def settings_path() -> Path:
    """Claude Code's user settings.json."""
    return claude_home() / "settings.json"


def claude_json_path() -> Path:
    """Where Claude Code keeps user-scope MCP servers (read only: `claude mcp` edits it)."""
    folder = claude_home()
    moved = bool(os.environ.get(CONFIG_DIR_VARIABLE))
    return (folder if moved else folder.parent) / ".claude.json"


def plugins_dir() -> Path:
    """Claude Code's plugins folder: ``installed_plugins.json`` and each plugin's copy."""
    raw = os.environ.get(PLUGINS_DIR_VARIABLE)
    return Path(raw).expanduser() if raw else claude_home() / "plugins"
