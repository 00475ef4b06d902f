"""`doctor`'s check of an agent other than Claude Code, where it is found (:mod:`.found`):
our hooks in its files, every one there, running a program that exists, for this store; our
MCP server entry, the same. Codex's check (:mod:`.codex_doctor`) adds what only Codex has;
Gemini CLI's and GitHub Copilot CLI's are :func:`check_json_agent` (their JSON files, as
:mod:`.changes` writes them).

An agent not found is fine: nothing to check. Found but not set up is fine too, with the
command that sets it up as a tip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config import copilot_config, gemini_settings, hooks_settings
from anamnesis.cli.agent_config.found import found, where_found
from anamnesis.cli.agent_config.json_files import our_server
from anamnesis.cli.agent_config.mcp_registration import SERVER_NAME, mcp_extra_installed
from anamnesis.hooks import AGENTS
from anamnesis.ops import FAIL, OK, WARN, Check, Home


def set_up_command(agent: str) -> str:
    return f"`anamnesis init --agent {agent}`"


def not_found(agent: str) -> Check:
    return Check(agent, OK, f"{AGENTS[agent].label} not found (nothing to check)")


def not_set_up(agent: str) -> Check:
    spec = AGENTS[agent]
    return Check(
        agent, OK, f"{spec.label} found ({where_found(agent)}), not set up",
        f"set it up: {set_up_command(agent)}",
    )  # fmt: skip


def hooks_problem(home: Home, agent: str, path: Path, ours: list[tuple[str, str]]) -> Check | None:
    """What is wrong with our hooks (``ours``: (event, command) read from ``path``), if
    anything: one missing, a program gone, another store."""
    set_up = set_up_command(agent)
    label = AGENTS[agent].label
    missing = hooks_settings.missing_from(ours, agent)
    if missing:
        wanted = len(hooks_settings.hook_entries(agent))
        named = ", ".join(f"{spec.event} ({' '.join(spec.args)})" for spec in missing)
        return Check(
            agent, FAIL,
            f"{wanted - len(missing)} of {wanted} Anamnesis hooks in {path}; missing: {named}",
            f"run {set_up}",
        )  # fmt: skip
    for _event, command in ours:
        read = hooks_settings.read_command(command)
        assert read is not None  # only commands read as ours are listed
        if not Path(read.program).exists():
            return Check(
                agent, FAIL, f"the {label} hooks run {read.program}, which no longer exists",
                f"run {set_up} again from the installed `anamnesis`",
            )  # fmt: skip
        store = read.env.get("ANAMNESIS_HOME")
        if store and Path(store) != home.root:
            return Check(
                agent, WARN, f"the {label} hooks use the store at {store}, not {home.root}",
                f"run {set_up} to point them here",
            )  # fmt: skip
    return None


def server_problem(
    home: Home, agent: str, where: str, server: object, *, ours: bool, remove: str
) -> Check | None:
    """What is wrong with our MCP server entry (``server``, None: none; ``ours``: it runs
    `anamnesis serve`) in ``where``, if anything; ``remove`` says how to remove another's."""
    set_up = set_up_command(agent)
    label = AGENTS[agent].label
    if server is None:
        if not mcp_extra_installed():  # none expected: init registers none
            return None
        return Check(agent, WARN, f"no MCP server {SERVER_NAME} in {where}", f"run {set_up}")
    if not ours or not isinstance(server, dict):
        return Check(
            agent, WARN, f"the MCP server {SERVER_NAME} in {where} runs another command",
            f"{remove}, then {set_up}",
        )  # fmt: skip
    if not Path(str(server.get("command"))).exists():
        return Check(
            agent, FAIL,
            f"{label}'s MCP server runs {server.get('command')}, which no longer exists",
            f"run {set_up} again from the installed `anamnesis`",
        )  # fmt: skip
    env = server.get("env")
    store = env.get("ANAMNESIS_HOME") if isinstance(env, dict) else None
    if store and Path(str(store)) != home.root:
        return Check(
            agent, WARN, f"{label}'s MCP server uses the store at {store}, not {home.root}",
            f"run {set_up} to point it here",
        )  # fmt: skip
    return None


def _json_agent_files(agent: str) -> tuple[Path, list[tuple[str, str]], Path, object]:
    """The hooks file, our hooks in it, the file of MCP servers and our entry there."""
    if agent == gemini_settings.AGENT:
        path = gemini_settings.settings_path()
        _text, settings = gemini_settings.read(path)
        return path, hooks_settings.our_hooks(settings), path, _server(settings)
    hooks = copilot_config.hooks_path()
    _text, data = copilot_config.read_mcp(hooks)
    mcp = copilot_config.mcp_path()
    _text, config = copilot_config.read_mcp(mcp)
    return hooks, copilot_config.our_hooks(data), mcp, _server(config)


def _server(data: dict[str, Any]) -> object:
    servers = data.get("mcpServers")
    return servers.get(SERVER_NAME) if isinstance(servers, dict) else None


def set_up(agent: str) -> bool:
    """Whether ``agent`` (Gemini CLI, Copilot CLI) has any of ours (a file that cannot be
    read counts as not)."""
    try:
        _hooks, ours, _mcp, server = _json_agent_files(agent)
    except hooks_settings.InvalidSettings:
        return False
    return bool(ours) or our_server(server)


def check_json_agent(agent: str, home: Home) -> Check:
    """Gemini CLI's or GitHub Copilot CLI's check."""
    if not found(agent):
        return not_found(agent)
    try:
        hooks, ours, mcp, server = _json_agent_files(agent)
    except hooks_settings.InvalidSettings as exc:
        return Check(agent, FAIL, str(exc), f"{AGENTS[agent].label} cannot read it either: fix it")
    if not ours and not our_server(server):
        return not_set_up(agent)
    problem = hooks_problem(home, agent, hooks, ours) or server_problem(
        home, agent, str(mcp), server, ours=our_server(server),
        remove=f"remove it from {mcp}",
    )  # fmt: skip
    if problem is not None:
        return problem
    return Check(
        agent, OK, f"{len(ours)} hooks and the MCP server in {AGENTS[agent].config_home()}"
    )
