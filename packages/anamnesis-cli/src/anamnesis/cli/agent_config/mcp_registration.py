"""Registering the MCP server with Claude Code through its own `claude mcp` command.

Claude Code rewrites ``~/.claude.json`` itself, so we never edit it: we read it to see
whether the current registration is already there, and otherwise call `claude mcp`.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from anamnesis.cli.agent_config.claude_paths import claude_json_path
from anamnesis.cli.importable import importable

SERVER_NAME = "anamnesis"
# What follows the command that runs `anamnesis`, in every registration of the server.
SERVE_ARGS = ("serve",)
CLAUDE_TIMEOUT_S = 60


@dataclass(frozen=True, slots=True)
class ClaudeRun:
    ok: bool
    output: str


def mcp_extra_installed() -> bool:
    """True when the `mcp` extra (anamnesis-mcp and the MCP SDK) is importable."""
    return importable("anamnesis.mcp", "mcp")


def add_argv(command: Sequence[str], env: dict[str, str]) -> list[str]:
    argv = ["claude", "mcp", "add", "--scope", "user", "--transport", "stdio", SERVER_NAME]
    for name, value in sorted(env.items()):
        argv += ["-e", f"{name}={value}"]  # -e is variadic: it must follow the name
    return [*argv, "--", *command, *SERVE_ARGS]


def plugin_servers(command: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The ``mcpServers`` the Claude Code plugin declares: this server, run by ``command``
    (the plugin's launcher). No ``env``: a plugin's server gets Claude Code's environment,
    ``ANAMNESIS_HOME`` included when it is set, and the store's default home otherwise."""
    return {SERVER_NAME: {"command": command[0], "args": [*command[1:], *SERVE_ARGS]}}


def remove_argv() -> list[str]:
    return ["claude", "mcp", "remove", "--scope", "user", SERVER_NAME]


def shell_line(argv: Sequence[str]) -> str:
    return shlex.join(argv)


def find_claude() -> str | None:
    return shutil.which("claude")


def registered_entry() -> dict[str, Any] | None:
    """Our user-scope entry as Claude Code stored it, if it can be read."""
    try:
        data = json.loads(claude_json_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    entry = servers.get(SERVER_NAME) if isinstance(servers, dict) else None
    return entry if isinstance(entry, dict) else None


def is_current(entry: dict[str, Any] | None, command: Sequence[str], env: dict[str, str]) -> bool:
    if entry is None:
        return False
    return (
        entry.get("command") == command[0]
        and list(entry.get("args") or []) == [*command[1:], *SERVE_ARGS]
        and dict(entry.get("env") or {}) == env
    )


def run_claude(claude: str, argv: Sequence[str]) -> ClaudeRun:
    """Run `claude` with ``argv[1:]``; never raises."""
    try:
        done = subprocess.run(
            [claude, *argv[1:]],
            capture_output=True,
            text=True,
            timeout=CLAUDE_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return ClaudeRun(False, str(exc))
    output = " ".join((done.stdout + " " + done.stderr).split())
    return ClaudeRun(done.returncode == 0, output)
