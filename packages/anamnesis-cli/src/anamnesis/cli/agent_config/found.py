"""Which coding agents this machine has, for `init --agent all` and `doctor`: an agent is
found when its configuration folder exists or its command is on PATH."""

from __future__ import annotations

import shutil

from anamnesis.hooks import AGENTS


def found(agent: str) -> bool:
    return where_found(agent) is not None


def where_found(agent: str) -> str | None:
    """Where this machine shows it has ``agent``: its configuration folder, else its
    command on PATH (None: neither)."""
    spec = AGENTS[agent]
    folder = spec.config_home()
    return str(folder) if folder.is_dir() else shutil.which(spec.command)
