"""Gemini CLI's settings.json (docs/agents/gemini.md): Anamnesis' hooks, in Claude Code's
shape with timeouts in milliseconds (the hooks package's table of agents says which), and
its MCP server under ``mcpServers``. Everything else in the file is left as it was."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config import hooks_settings
from anamnesis.cli.agent_config.json_files import our_server, read_json_object, server_entry
from anamnesis.cli.agent_config.mcp_registration import SERVER_NAME
from anamnesis.hooks import AGENTS

AGENT = "gemini"


def settings_path() -> Path:
    """Gemini CLI's user settings (``GEMINI_CLI_HOME`` moves the home it is under)."""
    return AGENTS[AGENT].hooks_path()


def read(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The settings' text and object; :class:`~.hooks_settings.InvalidSettings`
    when they cannot be edited safely."""
    text, settings = read_json_object(path)
    hooks_settings.check_hooks_shape(settings, path)
    servers = settings.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise hooks_settings.InvalidSettings(f'{path}: "mcpServers" must be an object')
    return text, settings


def with_ours(
    settings: dict[str, Any], command: list[str], env: dict[str, str], *, mcp: bool = True
) -> dict[str, Any]:
    """``settings`` with one current copy of each of our hooks, and our MCP server (``mcp``:
    the `mcp` extra is installed); a server of someone else's under our name is kept."""
    out = hooks_settings.with_ours(settings, command, env, agent=AGENT)
    servers = out.get("mcpServers")
    if mcp and (not isinstance(servers, dict) or SERVER_NAME not in servers
                or our_server(servers[SERVER_NAME])):  # fmt: skip
        out.setdefault("mcpServers", {})[SERVER_NAME] = server_entry(command, env)
    return out


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """``settings`` without our hooks and our MCP server, nothing else changed."""
    out = hooks_settings.without_ours(settings)
    servers = out.get("mcpServers")
    if isinstance(servers, dict) and our_server(servers.get(SERVER_NAME)):
        out["mcpServers"] = copy.deepcopy({k: v for k, v in servers.items() if k != SERVER_NAME})
        if not out["mcpServers"]:
            del out["mcpServers"]
    return out


def render(settings: dict[str, Any]) -> str:
    return hooks_settings.render(settings)
