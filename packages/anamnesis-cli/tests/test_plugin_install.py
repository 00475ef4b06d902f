"""`init` and `doctor` beside the Claude Code plugin, on Claude Code's records as its 2.1
CLI writes them (installed_plugins.json version 2, enabledPlugins in settings): init writes
no hooks and registers no server beside an enabled plugin (and removes the ones an earlier
init wrote), doctor says which way the hooks are installed and reports both at once. The
records are written here as `claude plugin install` writes them; test_claude_plugin.py has
the real CLI write them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from anamnesis.cli import __version__
from anamnesis.cli.agent_config import claude_paths, hooks_settings, plugin_install
from anamnesis.cli.agent_config.plugin_files import LAUNCHER, plugin_id
from cli_testing import BIN, Env

PLUGIN = plugin_id()
ROOT = Path(__file__).resolve().parents[3]


def install_plugin(
    env: Env,
    *,
    enabled: bool | None = True,
    scope: str = "user",
    project: Path | None = None,
    launcher: bool = True,
) -> Path:
    """Claude Code's record of the plugin (and its copy, holding the launcher), enabled or
    not in the settings of its scope (None: no enabledPlugins entry)."""
    copy = env.claude / "plugins" / "cache" / "anamnesis" / "anamnesis" / "0.5.0"
    (copy / "plugin").mkdir(parents=True, exist_ok=True)
    if launcher:
        shutil.copy(ROOT / LAUNCHER, copy / LAUNCHER)
    record: dict[str, Any] = {"scope": scope, "installPath": str(copy), "version": "0.5.0"}
    if project is not None:
        record["projectPath"] = str(project)
    installed = env.claude / "plugins" / "installed_plugins.json"
    installed.write_text(json.dumps({"version": 2, "plugins": {PLUGIN: [record]}}))
    if enabled is not None:
        settings = env.settings if project is None else project / ".claude" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        current = json.loads(settings.read_text()) if settings.exists() else {}
        current.setdefault("enabledPlugins", {})[PLUGIN] = enabled
        settings.write_text(json.dumps(current))
    return copy


def settings(env: Env) -> dict[str, Any]:
    return json.loads(env.settings.read_text()) if env.settings.exists() else {}


def checks(env: Env) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in env.run("doctor", "--offline", "--json").json()["checks"]}


def test_init_leaves_the_hooks_and_the_server_to_an_enabled_plugin(env: Env) -> None:
    install_plugin(env)
    log = env.fake_claude()
    shown = env.run("init", "--print", "--local-only")
    assert f"hooks:   from the Claude Code plugin {PLUGIN} 0.5.0 (user scope, enabled)" in (
        shown.out
    )
    assert f"none written to {env.settings}" in shown.out
    assert "the plugin's own server; none registered at user scope" in shown.out
    done = env.run("init", "--yes", "--local-only", "--no-sync")
    assert done.code == 0, done.err
    assert f"the Claude Code plugin {PLUGIN} runs the hooks" in done.out
    assert "MCP server: the plugin's own" in done.out
    assert "hooks" not in settings(env)
    assert settings(env)["enabledPlugins"] == {PLUGIN: True}
    assert not log.exists()  # `claude` was never asked to register anything


def test_init_removes_what_an_earlier_init_installed_beside_the_plugin(env: Env) -> None:
    command = ["/opt/anamnesis/bin/anamnesis"]
    env.claude.mkdir(parents=True)
    theirs = {"type": "command", "command": "echo hello"}
    before = hooks_settings.with_ours(
        {"hooks": {"SessionStart": [{"hooks": [theirs]}]}}, command, {}
    )
    env.settings.write_text(json.dumps(before))
    log = env.fake_claude()
    assert env.run("init", "--yes", "--local-only", "--no-sync").code == 0  # no plugin yet
    assert len(hooks_settings.our_hooks(settings(env))) == len(hooks_settings.hook_entries())
    install_plugin(env)
    done = env.run("init", "--yes", "--local-only", "--no-sync")
    assert done.code == 0, done.err
    count = len(hooks_settings.hook_entries())
    assert f"removed the {count} Anamnesis hooks {env.settings} also held" in done.out
    assert "removed the user-scope MCP server (the plugin has its own)" in done.out
    after = settings(env)
    assert hooks_settings.our_hooks(after) == []
    assert after["hooks"] == {"SessionStart": [{"hooks": [theirs]}]}  # theirs untouched
    calls = [json.loads(line) for line in log.read_text().splitlines()]
    assert calls[-1] == ["mcp", "remove", "--scope", "user", "anamnesis"]
    again = env.run("init", "--yes", "--local-only", "--no-sync")
    assert "removed" not in again.out and again.code == 0  # nothing left to remove


@pytest.mark.parametrize(
    ("enabled", "launcher"), [(False, True), (None, True), (True, False)], ids=[
        "disabled", "never-enabled", "another-plugin-of-that-name"
    ]
)  # fmt: skip
def test_a_plugin_that_runs_no_hook_of_ours_is_not_counted(
    env: Env, enabled: bool | None, launcher: bool
) -> None:
    install_plugin(env, enabled=enabled, launcher=launcher)
    env.fake_claude()
    assert env.run("init", "--yes", "--local-only", "--no-sync").code == 0
    assert len(hooks_settings.our_hooks(settings(env))) == len(hooks_settings.hook_entries())
    assert plugin_install.user_plugin() is None


def test_a_project_install_is_enabled_by_the_projects_settings(env: Env, tmp_path: Path) -> None:
    project = tmp_path / "project"
    install_plugin(env, scope="project", project=project)
    (install,) = plugin_install.plugin_installs()
    assert (install.scope, install.project, install.enabled) == ("project", project, True)
    assert install.describe() == f"{PLUGIN} 0.5.0 (project scope for {project}, enabled)"
    local = project / ".claude" / "settings.local.json"  # overrides the project's
    local.write_text(json.dumps({"enabledPlugins": {PLUGIN: False}}))
    assert not plugin_install.plugin_installs()[0].enabled
    assert plugin_install.user_plugin() is None  # it runs in that project alone


def test_doctor_says_which_way_the_hooks_are_installed(env: Env) -> None:
    env.fake_claude()
    env.claude.mkdir(parents=True)
    env.settings.write_text("{}")
    none = checks(env)["hooks"]
    assert none["status"] == "fail" and none["detail"].startswith("none: ")
    assert "claude plugin install anamnesis@anamnesis" in none["fix"]
    assert env.run("init", "--yes", "--local-only", "--no-sync").code == 0
    in_settings = checks(env)
    assert in_settings["hooks"]["status"] == "ok"
    assert in_settings["hooks"]["detail"] == f"5 hooks in {env.settings}"
    install_plugin(env)
    both = checks(env)
    assert both["hooks"]["status"] == "warn"
    assert both["hooks"]["detail"] == (
        f"installed twice, so each runs twice: by the Claude Code plugin {PLUGIN} and in "
        f"{env.settings} (5 hooks)"
    )
    assert "`anamnesis init`" in both["hooks"]["fix"]
    assert f"`claude plugin disable {PLUGIN}`" in both["hooks"]["fix"]
    assert both["mcp"]["status"] == "warn" and "registered twice" in both["mcp"]["detail"]
    assert "`claude mcp remove --scope user anamnesis`" in both["mcp"]["fix"]
    assert env.run("init", "--yes", "--local-only", "--no-sync").code == 0
    plugin = checks(env)
    assert plugin["mcp"] == {
        "name": "mcp", "status": "ok", "detail": f"the plugin's own server ({PLUGIN})",
        "fix": "",
    }  # fmt: skip
    # No `anamnesis` on this machine's PATH: the plugin's hooks would install one.
    assert plugin["hooks"]["status"] == "fail"
    assert plugin["hooks"]["detail"].startswith(f"plugin: {PLUGIN} 0.5.0 (user scope, enabled)")
    assert "scripts/install.py" in plugin["hooks"]["fix"]
    (env.root / "bin" / "anamnesis").symlink_to(BIN / "anamnesis")  # this workspace's
    found = checks(env)["hooks"]
    assert found["status"] == "ok"
    assert found["detail"].endswith(f"; they run {env.root / 'bin' / 'anamnesis'} {__version__}")


def test_claude_code_files_follow_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    monkeypatch.delenv("CLAUDE_CODE_PLUGIN_CACHE_DIR", raising=False)
    assert claude_paths.settings_path() == tmp_path / "me" / ".claude" / "settings.json"
    assert claude_paths.claude_json_path() == tmp_path / "me" / ".claude.json"
    assert claude_paths.plugins_dir() == tmp_path / "me" / ".claude" / "plugins"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert claude_paths.settings_path() == tmp_path / "cc" / "settings.json"
    assert claude_paths.claude_json_path() == tmp_path / "cc" / ".claude.json"  # inside it
    assert claude_paths.plugins_dir() == tmp_path / "cc" / "plugins"
    monkeypatch.setenv("CLAUDE_CODE_PLUGIN_CACHE_DIR", "~/elsewhere")
    assert claude_paths.plugins_dir() == tmp_path / "me" / "elsewhere"


def test_uninstall_says_the_plugin_stays_and_how_to_remove_it(env: Env) -> None:
    env.fake_claude()
    assert env.run("init", "--yes", "--local-only", "--no-sync").code == 0
    install_plugin(env)
    line = f"`claude plugin uninstall {PLUGIN}` removes it"
    planned = env.run("init", "--uninstall", "--print")
    assert f"plugin:  the Claude Code plugin still runs its hooks and server: {line}" in (
        planned.out
    )
    done = env.run("init", "--uninstall", "--yes")
    assert done.code == 0 and line in done.out
    assert hooks_settings.our_hooks(settings(env)) == []
    assert settings(env)["enabledPlugins"] == {PLUGIN: True}  # Claude Code's to change
