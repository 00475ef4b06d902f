"""Which coding agents this machine has, for `init --agent all` and `doctor`: an agent is
found when its configuration folder exists or its command is on PATH."""

from __future__ import annotations

import shutil

from anamnesis.hooks import AGENTS

# The command each agent of the table of agents is started with.
COMMANDS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini", "copilot": "copilot"}


def found(agent: str) -> bool:
    return AGENTS[agent].config_home().is_dir() or shutil.which(COMMANDS[agent]) is not None
