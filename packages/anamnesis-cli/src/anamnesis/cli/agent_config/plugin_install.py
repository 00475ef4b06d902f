"""Whether Claude Code has the Anamnesis plugin installed, and enabled.

Read from Claude Code's own files, never by running `claude` (doctor and init work where it
is not on PATH), as Claude Code 2.1 writes them (observed in a scratch config folder):

- ``<plugins folder>/installed_plugins.json``: ``{"version": 2, "plugins": {"NAME@MARKET":
  [{"scope": "user"|"project"|"local", "installPath": ..., "version": ...,
  "projectPath": ... (project and local scope)}]}}`` (version 1 kept one record, not a
  list);
- ``enabledPlugins`` in settings: ``{"NAME@MARKET": true|false}``; project settings
  (``<project>/.claude/settings.json``, then ``settings.local.json``) override the user's.

A plugin is ours when it is named ``anamnesis`` and its copy holds the launcher (another
marketplace may offer a plugin of that name). One that is installed but not enabled runs no
hook: only enabled ones count.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config.claude_paths import plugins_dir, settings_path
from anamnesis.cli.agent_config.plugin_files import LAUNCHER, PLUGIN_NAME
from anamnesis.store import load_json, read_regular

INSTALLED_FILE = "installed_plugins.json"
# `anamnesis --version`, which the launcher runs once per executable, takes about a second.
WHICH_TIMEOUT_S = 30
# How much of a Claude Code file is read: they are small; a huge one is not Claude Code's.
MAX_FILE_BYTES = 4 << 20


@dataclass(frozen=True, slots=True)
class PluginInstall:
    """One install of the plugin Claude Code recorded: its id (``anamnesis@MARKET``), scope,
    copy, version, the project of a project or local install, and whether it is enabled
    there (user scope: in the user's settings)."""

    plugin_id: str
    scope: str
    install_path: Path | None
    version: str
    project: Path | None
    enabled: bool

    def describe(self) -> str:
        where = f" for {self.project}" if self.project else ""
        state = "enabled" if self.enabled else "disabled"
        return f"{self.plugin_id} {self.version} ({self.scope} scope{where}, {state})"


def plugin_installs() -> list[PluginInstall]:
    """Every install of our plugin that Claude Code recorded, in its file's order."""
    found = []
    for plugin_id, record in _records():
        name, _, _market = plugin_id.partition("@")
        if name != PLUGIN_NAME or not isinstance(record, dict):
            continue
        raw_path = record.get("installPath")
        install_path = Path(raw_path) if isinstance(raw_path, str) and raw_path else None
        if install_path is not None and not (install_path / LAUNCHER).is_file():
            continue  # another plugin that happens to share the name
        scope = str(record.get("scope") or "user")
        raw_project = record.get("projectPath")
        project = Path(raw_project) if isinstance(raw_project, str) and raw_project else None
        found.append(
            PluginInstall(
                plugin_id=plugin_id,
                scope=scope,
                install_path=install_path,
                version=str(record.get("version") or "?"),
                project=project,
                enabled=_enabled(plugin_id, scope, project),
            )
        )
    return found


def user_plugin() -> PluginInstall | None:
    """The install whose hooks run in every session: user scope, enabled in the user's
    settings. `init` installs no hooks of its own beside it."""
    for install in plugin_installs():
        if install.scope == "user" and install.enabled:
            return install
    return None


@dataclass(frozen=True, slots=True)
class LauncherAnswer:
    """What the plugin's launcher says it runs (``--which``): ``answer`` is the executable
    and its version when ``ok``; ``install_line`` installs the plugin's copy by hand."""

    ok: bool
    answer: str
    install_line: str


def launcher_finds(install: PluginInstall, home: Path) -> LauncherAnswer | None:
    """Ask the launcher in the plugin's copy which `anamnesis` its hooks run for the store
    at ``home`` (None: there is no copy to ask)."""
    if install.install_path is None or not (install.install_path / LAUNCHER).is_file():
        return None
    launcher = install.install_path / LAUNCHER
    line = shlex.join(["python3", str(install.install_path / "scripts" / "install.py")])
    try:
        done = subprocess.run(
            ["sh", str(launcher), "--which"],
            capture_output=True,
            text=True,
            timeout=WHICH_TIMEOUT_S,
            stdin=subprocess.DEVNULL,
            check=False,
            env={**os.environ, "ANAMNESIS_HOME": str(home)},
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return LauncherAnswer(False, str(exc), line)
    said = (done.stdout if done.returncode == 0 else done.stderr).strip().splitlines()
    return LauncherAnswer(done.returncode == 0 and bool(said), " ".join(said), line)


def _records() -> list[tuple[str, Any]]:
    data = _read_json(plugins_dir() / INSTALLED_FILE)
    plugins = data.get("plugins") if isinstance(data, dict) else None
    if not isinstance(plugins, dict):
        return []
    records: list[tuple[str, Any]] = []
    for plugin_id, value in plugins.items():
        for record in value if isinstance(value, list) else [value]:
            records.append((str(plugin_id), record))
    return records


def _enabled(plugin_id: str, scope: str, project: Path | None) -> bool:
    """Whether the plugin is on where its install applies: the user's settings, overridden
    by the project's and then its local settings for a project or local install."""
    layers = [settings_path()]
    if scope in ("project", "local") and project is not None:
        folder = project / ".claude"
        layers += [folder / "settings.json", folder / "settings.local.json"]
    enabled = False
    for path in layers:
        data = _read_json(path)
        plugins = data.get("enabledPlugins") if isinstance(data, dict) else None
        if isinstance(plugins, dict) and isinstance(plugins.get(plugin_id), bool):
            enabled = plugins[plugin_id]
    return enabled


def _read_json(path: Path) -> Any:
    """A Claude Code JSON file's content, or None when it is missing or unreadable (a link
    is followed: dotfile managers link settings.json)."""
    try:
        data, _stat = read_regular(path, MAX_FILE_BYTES, follow=True)
        return load_json(data.decode("utf-8"))
    except (OSError, ValueError):
        return None
