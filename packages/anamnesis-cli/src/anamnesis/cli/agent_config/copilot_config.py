"""GitHub Copilot CLI's configuration (docs/agents/copilot.md): Anamnesis' hooks in a hooks
file of their own, ``<COPILOT_HOME>/hooks/anamnesis.json`` (``{"version": 1, "hooks": {EVENT:
[{"type": "command", "bash": ..., "timeoutSec": ...}]}}``, the events the hooks package's
table of agents names), and its MCP server in ``<COPILOT_HOME>/mcp-config.json``
(``mcpServers``, the entry `copilot mcp add` writes for a local server)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config import hooks_settings
from anamnesis.cli.agent_config.json_files import our_server, read_json_object, server_entry
from anamnesis.cli.agent_config.mcp_registration import SERVER_NAME
from anamnesis.hooks import AGENTS

AGENT = "copilot"
MCP_FILE = "mcp-config.json"


def hooks_path() -> Path:
    return AGENTS[AGENT].hooks_path()


def mcp_path() -> Path:
    return AGENTS[AGENT].config_home() / MCP_FILE


def hooks_file(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """The whole hooks file: ours alone, so `--uninstall` can take it back whole."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    for spec in hooks_settings.hook_entries(AGENT):
        hooks.setdefault(spec.event, []).append(
            {
                "type": "command",
                "bash": hooks_settings.hook_command(command, spec, env),
                "timeoutSec": spec.timeout * AGENTS[AGENT].timeout_scale,
            }
        )
    return {"version": 1, "hooks": hooks}


def is_ours(data: dict[str, Any]) -> bool:
    """Whether a hooks file holds nothing but our hooks (then it may be removed whole)."""
    hooks = data.get("hooks")
    if set(data) - {"version", "hooks"} or not isinstance(hooks, dict):
        return False
    entries = [entry for groups in hooks.values() for entry in (groups or [])]
    return all(
        isinstance(entry, dict) and hooks_settings.is_our_command(entry.get("bash"))
        for entry in entries
    )


def read_mcp(path: Path) -> tuple[str | None, dict[str, Any]]:
    text, config = read_json_object(path)
    servers = config.get("mcpServers")
    if servers is not None and not isinstance(servers, dict):
        raise hooks_settings.InvalidSettings(f'{path}: "mcpServers" must be an object')
    return text, config


def mcp_with_ours(
    config: dict[str, Any], command: list[str], env: dict[str, str]
) -> dict[str, Any]:
    """``mcp-config.json`` with our server (a server of someone else's under our name is kept)."""
    out = copy.deepcopy(config)
    servers = out.setdefault("mcpServers", {})
    if SERVER_NAME not in servers or our_server(servers[SERVER_NAME]):
        servers[SERVER_NAME] = {"type": "local", **server_entry(command, env), "tools": ["*"]}
    return out


def mcp_without_ours(config: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(config)
    servers = out.get("mcpServers")
    if isinstance(servers, dict) and our_server(servers.get(SERVER_NAME)):
        del servers[SERVER_NAME]
    return out
