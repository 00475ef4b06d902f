"""`anamnesis init --agent NAME` (and `--uninstall`) for the agents other than Claude Code,
whose part setup keeps: one plan per agent, said and applied the same way whichever agent
it is. Codex's files are :mod:`.codex_config`'s (TOML edited line by line); Gemini CLI's and
GitHub Copilot CLI's are JSON files changed whole (:mod:`.changes`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config import changes, codex_config, copilot_config, gemini_settings
from anamnesis.cli.agent_config.changes import FileChange
from anamnesis.cli.agent_config.hooks_settings import InvalidSettings, describe_hooks
from anamnesis.cli.agent_config.json_files import our_server
from anamnesis.cli.agent_config.mcp_registration import SERVER_NAME
from anamnesis.hooks import AGENTS, DEFAULT_AGENT

# The agents `init --agent` sets up, in the table of agents' order: Claude Code (setup's),
# then every one with a writer here.
OTHER_AGENTS = (codex_config.AGENT, *changes.AGENTS_WRITTEN)
INIT_AGENTS = tuple(name for name in AGENTS if name in (DEFAULT_AGENT, *OTHER_AGENTS))
# What planning raises on a file it cannot edit safely (nothing has been written).
CONFIG_ERRORS = (codex_config.CodexConfigError, InvalidSettings)


@dataclass(slots=True)
class AgentPlan:
    """What init changes for one agent: Codex's plan, or the other agents' file changes."""

    agent: str
    command: list[str]
    env: dict[str, str]
    mcp: bool  # the `mcp` extra is installed: the server is registered
    codex: codex_config.CodexPlan | None = None
    files: list[FileChange] = field(default_factory=list)


@dataclass(slots=True)
class AgentUninstall:
    agent: str
    codex: codex_config.CodexUninstallPlan | None = None
    files: list[FileChange] = field(default_factory=list)


def label(agent: str) -> str:
    """The start of the plan's lines of ``agent`` (as wide as init's other labels)."""
    return f"{agent}:".ljust(9)


def plan(agent: str, command: list[str], env: dict[str, str], *, mcp: bool) -> AgentPlan:
    """Raises one of :data:`CONFIG_ERRORS`, before anything is written."""
    if agent == codex_config.AGENT:
        codex = codex_config.plan_codex(command, env, mcp_extra=mcp)
        return AgentPlan(agent, command, env, mcp, codex=codex)
    files = changes.plan_install(agent, command, env, mcp=mcp)
    return AgentPlan(agent, command, env, mcp, files=files)


def plan_uninstall(agent: str) -> AgentUninstall:
    if agent == codex_config.AGENT:
        return AgentUninstall(agent, codex=codex_config.plan_codex_uninstall())
    return AgentUninstall(agent, files=changes.plan_uninstall(agent))


def _holds(agent: str, path: Path) -> str:
    """What of ours ``path`` holds for ``agent``."""
    if agent == gemini_settings.AGENT:
        return "hooks and MCP server"
    return "hooks" if path == copilot_config.hooks_path() else "MCP server"


def describe(plan: AgentPlan) -> list[str]:
    """The plan in words, for `--print` and the confirmation prompt."""
    if plan.codex is not None:
        return codex_config.describe_codex(plan.codex)
    lines = [f"{label(plan.agent)}{AGENTS[plan.agent].label}:"]
    for index, change in enumerate(plan.files):
        state = "already there" if not change.changed else "will be written"
        lines.append(f"         {_holds(plan.agent, change.path)} ({state}) in")
        lines.append(f"           {change.path}")
        if index == 0:
            lines += describe_hooks(plan.agent, plan.command, plan.env)
    if not plan.mcp:
        lines.append("         MCP server: skipped (not installed)")
    if foreign := _foreign_server(plan):
        lines.append(f"         MCP server {SERVER_NAME} in {foreign} runs another command:")
        lines.append("           left as it is")
    return lines


def _foreign_server(plan: AgentPlan) -> Path | None:
    """The file whose MCP server of our name is someone else's, if one is."""
    for change in plan.files:
        servers: Any = (change.after or {}).get("mcpServers")
        entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
        if entry is not None and not our_server(entry):
            return change.path
    return None


def apply(plan: AgentPlan) -> tuple[list[str], list[str]]:
    """Write the plan; the lines to say and the problems (which make init's status 1)."""
    if plan.codex is not None:
        return codex_config.apply_codex(plan.codex)
    name = AGENTS[plan.agent].label
    lines = [
        f"{name} {_holds(plan.agent, change.path)} already in {change.path}"
        for change in plan.files
        if not change.changed
    ]
    for change, backup in changes.apply(plan.files):
        saved = f" (previous version: {backup})" if backup else ""
        what = _holds(plan.agent, change.path)
        lines.append(f"installed the {name} {what} in {change.path}{saved}")
    problems = []
    if foreign := _foreign_server(plan):
        problems.append(
            f"{foreign} has an MCP server named {SERVER_NAME} that runs another command; "
            "remove it, then run this again"
        )
    return lines, problems


def describe_uninstall(plan: AgentUninstall) -> list[str]:
    if plan.codex is not None:
        return codex_config.describe_codex_uninstall(plan.codex)
    lines = [f"{label(plan.agent)}{AGENTS[plan.agent].label}:"]
    for change in plan.files:
        what = _holds(plan.agent, change.path)
        if not change.changed:
            lines.append(f"         none of our {what} in {change.path}")
        elif change.after is None:
            lines.append(f"         remove {change.path} (it holds only ours)")
        else:
            lines.append(f"         take our {what} out of {change.path}")
    if not plan.files:
        lines.append(f"         nothing of ours in {AGENTS[plan.agent].config_home()}")
    return lines


def apply_uninstall(plan: AgentUninstall) -> list[str]:
    if plan.codex is not None:
        return codex_config.apply_codex_uninstall(plan.codex)
    name = AGENTS[plan.agent].label
    lines = [
        f"removed the {name} {_holds(plan.agent, change.path)} from {change.path} "
        f"(previous version: {backup})"
        for change, backup in changes.apply(plan.files)
    ]
    return lines or [f"no {name} hooks or MCP server of ours"]
