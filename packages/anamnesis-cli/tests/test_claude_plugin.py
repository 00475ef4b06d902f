"""The plugin as Claude Code's own `claude` CLI sees it, in a scratch HOME and
CLAUDE_CONFIG_DIR: it validates this checkout, adds it as a marketplace and installs the
plugin from it; `claude mcp list` starts the plugin's server and finds it connected; and
every hook of the installed copy's hooks.json, run by sh as Claude Code runs it, goes
through the launcher to this workspace's `anamnesis` and does its work (the block at
session start, recall at a prompt, a session captured into a note).

The checkout is added from a copy of its source files (what a clone holds): Claude Code
copies a directory marketplace's plugin whole, and a working tree's .venv is half a
gigabyte."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport import TRANSCRIPTS
from anamnesis_testsupport.agent_clis import agent_cli, scratch_agent_env
from anamnesis_testsupport.checkouts import checkout

from anamnesis.cli import __version__
from anamnesis.cli.agent_config import mcp_registration, plugin_files, plugin_install
from anamnesis.hooks import queued_captures
from cli_testing import BIN

ROOT = Path(__file__).resolve().parents[3]
PLUGIN = plugin_files.plugin_id()
# Not part of a clone: what a working tree gathers (see .gitignore), and git's own folder.
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".venv", ".venv-*", ".nox", "*_cache", "__pycache__", "*.pyc", "dist", "build",
    "*.egg-info", ".coverage", "node_modules",
)  # fmt: skip
TRANSCRIPT = TRANSCRIPTS / "DRMacIver__hello-world-script.jsonl"


@dataclass
class Installed:
    """The scratch machine the real `claude` installed the plugin on."""

    base: Path
    environment: dict[str, str]
    install_path: Path

    @property
    def store(self) -> Path:
        return Path(self.environment["ANAMNESIS_HOME"])

    @property
    def claude_dir(self) -> Path:
        return Path(self.environment["CLAUDE_CONFIG_DIR"])

    def run(
        self, argv: list[str], *, stdin: str = "", cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            text=True,
            env=self.environment,
            cwd=cwd or self.base,
            timeout=180,
            check=False,
        )

    def claude(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([agent_cli("claude"), *args])


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    base = tmp_path_factory.mktemp("claude-plugin")
    clone = base / "anamnesis"
    shutil.copytree(ROOT, clone, ignore=NOT_IN_A_CLONE, symlinks=True)
    agent_cli("claude")  # or every test here is skipped, saying how to get it
    # this workspace's `anamnesis` first on PATH: the one the launcher must find
    environment = scratch_agent_env(base / "home", path=[BIN])
    environment.update(
        ANAMNESIS_SEARCH_MODE="keyword",
        ANAMNESIS_EMBED_MODEL_PATH=str(base / "no-model-here"),
        ANAMNESIS_MACHINE_ID="laptop",
    )
    machine = Installed(base, environment, base)
    added = machine.claude("plugin", "marketplace", "add", str(clone))
    assert added.returncode == 0, added.stdout + added.stderr
    assert f"Successfully added marketplace: {plugin_files.MARKETPLACE_NAME}" in added.stdout
    done = machine.claude("plugin", "install", PLUGIN)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Successfully installed plugin: {PLUGIN} (scope: user)" in done.stdout
    record = json.loads((machine.claude_dir / "plugins" / "installed_plugins.json").read_text())
    machine.install_path = Path(record["plugins"][PLUGIN][0]["installPath"])
    return machine


def test_claude_validates_the_plugin_and_its_marketplace(tmp_path: Path) -> None:
    claude = agent_cli("claude")
    for target in (ROOT, ROOT / plugin_files.PLUGIN_JSON):
        done = subprocess.run(
            [claude, "plugin", "validate", "--strict", str(target)],
            env=scratch_agent_env(tmp_path / "home"),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Validation passed" in done.stdout and "warning" not in done.stdout


def test_claude_installs_it_enabled_with_its_hooks_and_server(
    installed: Installed, monkeypatch: pytest.MonkeyPatch
) -> None:
    listed = installed.claude("plugin", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (entry,) = json.loads(listed.stdout)
    assert (entry["id"], entry["scope"], entry["enabled"]) == (PLUGIN, "user", True)
    assert entry["version"] == __version__
    assert entry["mcpServers"] == mcp_registration.plugin_servers(plugin_files.launcher_command())
    copied = installed.install_path / plugin_files.HOOKS_JSON
    assert copied.read_text() == (ROOT / plugin_files.HOOKS_JSON).read_text()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(installed.claude_dir))
    found = plugin_install.user_plugin()
    assert found is not None
    assert (found.plugin_id, found.install_path) == (PLUGIN, installed.install_path)


def test_claude_lists_the_plugins_server_connected(installed: Installed) -> None:
    listed = installed.claude("mcp", "list")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    (line,) = [line for line in listed.stdout.splitlines() if line.startswith("plugin:")]
    name = f"plugin:{plugin_files.PLUGIN_NAME}:{mcp_registration.SERVER_NAME}"
    assert line.startswith(f"{name}: sh ") and line.endswith("✔ Connected"), listed.stdout


def installed_hooks(installed: Installed) -> list[tuple[str, str, str]]:
    """(event, hook name, command) of every hook in the installed copy's hooks.json."""
    data = json.loads((installed.install_path / plugin_files.HOOKS_JSON).read_text())
    found = []
    for event, groups in data["hooks"].items():
        for group in groups:
            for entry in group["hooks"]:
                words = entry["command"].split()
                name = words[
                    words.index(f'"{plugin_files.PLUGIN_ROOT}/{plugin_files.LAUNCHER}"') + 1
                ]
                found.append((event, name, entry["command"]))
    return found


def run_hook(
    installed: Installed, command: str, payload: dict[str, Any], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """One hook as Claude Code runs it: sh, the plugin's root in the environment, the hook
    JSON on stdin, the session's folder as the working directory."""
    environment = {**installed.environment, "CLAUDE_PLUGIN_ROOT": str(installed.install_path)}
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env=environment,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def wait_until_filed(store: Path) -> None:
    deadline = time.monotonic() + 120
    while queued_captures(store):
        log = store / "logs" / "hooks.log"
        assert time.monotonic() < deadline, log.read_text() if log.exists() else "no log"
        time.sleep(0.1)


def notes(installed: Installed, project: Path) -> list[dict[str, Any]]:
    listed = installed.run([str(BIN / "anamnesis"), "list", "--here", "--json"], cwd=project)
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)
    return found


@pytest.mark.skipif(not TRANSCRIPT.is_file(), reason=f"no transcript fixture at {TRANSCRIPT}")
def test_every_installed_hook_runs_this_checkouts_anamnesis(installed: Installed) -> None:
    launcher = installed.install_path / plugin_files.LAUNCHER
    which = installed.run(["sh", str(launcher), "--which"])
    assert which.stdout.split() == [str(BIN / "anamnesis"), __version__], which.stderr
    project = checkout(installed.base / "work" / "deploy-tool", "git@example.com:me/deploy.git")
    anamnesis = str(BIN / "anamnesis")
    assert installed.run([anamnesis, "init", "--yes", "--local-only", "--no-sync"]).returncode == 0
    wrote = installed.run(
        [anamnesis, "write", "--here", "--title", "Deploys need DEPLOY_ENV=staging",
         "The deploy script reads DEPLOY_ENV; run it with DEPLOY_ENV=staging first."],
        cwd=project,
    )  # fmt: skip
    assert wrote.returncode == 0, wrote.stderr
    common = {"cwd": str(project), "transcript_path": str(TRANSCRIPT)}
    ran = set()
    for event, name, command in installed_hooks(installed):
        payload = {**common, "hook_event_name": event, "session_id": f"session-{name}"}
        if name == "inject":
            payload["source"] = "startup"
        if name == "prompt":
            payload["prompt"] = "How do I run the deploy script, which environment?"
        done = run_hook(installed, command, payload, project)
        assert (done.returncode, done.stderr) == (0, ""), (event, command, done)
        if name in ("inject", "prompt"):
            output = json.loads(done.stdout)["hookSpecificOutput"]
            assert output["hookEventName"] == event
            assert "Deploys need DEPLOY_ENV=staging" in output["additionalContext"]
        elif name == "capture":
            wait_until_filed(installed.store)
        ran.add((event, name))
    assert ran == {
        ("SessionStart", "inject"), ("SessionStart", "sync"), ("UserPromptSubmit", "prompt"),
        ("SessionEnd", "capture"), ("PreCompact", "capture"),
    }  # fmt: skip
    sessions = [note for note in notes(installed, project) if note["type"] == "episodic"]
    assert len(sessions) == 1  # one session, captured at its end and before a compaction
    assert sessions[0]["tags"] == ["session", "precompact"]  # the last capture, hooks.json's


def test_init_and_doctor_see_the_plugin_claude_installed(installed: Installed) -> None:
    anamnesis = str(BIN / "anamnesis")
    done = installed.run([anamnesis, "init", "--yes", "--local-only", "--no-sync"])
    assert done.returncode == 0, done.stderr
    assert f"the Claude Code plugin {PLUGIN} runs the hooks" in done.stdout
    settings = json.loads((installed.claude_dir / "settings.json").read_text())
    assert "hooks" not in settings and settings["enabledPlugins"] == {PLUGIN: True}
    doctor = installed.run([anamnesis, "doctor", "--offline", "--json"])
    checks = {check["name"]: check for check in json.loads(doctor.stdout)["checks"]}
    assert checks["hooks"]["status"] == "ok", checks["hooks"]
    assert checks["hooks"]["detail"] == (
        f"plugin: {PLUGIN} {__version__} (user scope, enabled); "
        f"they run {BIN / 'anamnesis'} {__version__}"
    )
    assert checks["mcp"]["status"] == "ok" and "the plugin's own server" in checks["mcp"]["detail"]
