"""What `anamnesis init --agent gemini|copilot` and `--uninstall` change, as a list of file
changes computed before anything is written (init's way: plan, describe, apply).

For the lead's `init --agent`: ``plan_install(agent, command, env, mcp=...)`` and
``plan_uninstall(agent)`` give the changes (``describe`` says them in a line each); applying
them is ``apply(changes, setup.write_settings)`` (a backup of each file changed, then an
atomic write; a hooks file that is ours alone is removed whole).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config import copilot_config, gemini_settings

# Agents whose files this room writes (the table of agents has more: Claude Code's settings
# are setup's, Codex's config its own room's).
AGENTS_WRITTEN = ("gemini", "copilot")

Write = Callable[[Path, "str | None", dict[str, Any]], "Path | None"]


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file to write (``after``) or, ``after`` None, to remove; ``before`` is its text
    now (None: there is no file)."""

    path: Path
    before: str | None
    after: dict[str, Any] | None

    @property
    def changed(self) -> bool:
        if self.after is None:
            return self.before is not None
        return self.before is None or _parsed(self.before) != self.after


def _parsed(text: str) -> object:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return None


def plan_install(
    agent: str, command: list[str], env: dict[str, str], *, mcp: bool = True
) -> list[FileChange]:
    """The files to write for ``agent``; InvalidSettings (nothing planned) when one of them
    cannot be edited safely."""
    if agent == "gemini":
        path = gemini_settings.settings_path()
        before, settings = gemini_settings.read(path)
        return [
            FileChange(path, before, gemini_settings.with_ours(settings, command, env, mcp=mcp))
        ]
    if agent == "copilot":
        hooks = copilot_config.hooks_path()
        hooks_before, _ = copilot_config.read_mcp(hooks)  # a JSON object, or refused
        changes = [FileChange(hooks, hooks_before, copilot_config.hooks_file(command, env))]
        if mcp:
            path = copilot_config.mcp_path()
            before, config = copilot_config.read_mcp(path)
            changes.append(
                FileChange(path, before, copilot_config.mcp_with_ours(config, command, env))
            )
        return changes
    raise ValueError(f"no configuration writer for agent {agent!r}")


def plan_uninstall(agent: str) -> list[FileChange]:
    """Exactly what :func:`plan_install` added, taken back; the rest of each file stays."""
    if agent == "gemini":
        path = gemini_settings.settings_path()
        before, settings = gemini_settings.read(path)
        return [FileChange(path, before, gemini_settings.without_ours(settings))]
    if agent == "copilot":
        hooks = copilot_config.hooks_path()
        hooks_before, data = copilot_config.read_mcp(hooks)
        changes = []
        if hooks_before is not None and copilot_config.is_ours(data):
            changes.append(FileChange(hooks, hooks_before, None))
        path = copilot_config.mcp_path()
        before, config = copilot_config.read_mcp(path)
        if before is not None:
            changes.append(FileChange(path, before, copilot_config.mcp_without_ours(config)))
        return changes
    raise ValueError(f"no configuration writer for agent {agent!r}")


def describe(changes: list[FileChange]) -> list[str]:
    """One line a changed file."""
    lines = []
    for change in changes:
        if not change.changed:
            continue
        verb = "remove" if change.after is None else "write" if change.before is None else "update"
        lines.append(f"{verb} {change.path}")
    return lines


def apply(changes: list[FileChange], write: Write) -> list[Path]:
    """Make the changes (``write``: setup.write_settings, a backup then an atomic write);
    the files changed."""
    done = []
    for change in changes:
        if not change.changed:
            continue
        if change.after is None:
            change.path.unlink(missing_ok=True)
        else:
            write(change.path, change.before, change.after)
        done.append(change.path)
    return done
