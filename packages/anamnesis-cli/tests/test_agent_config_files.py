"""`init --agent gemini|copilot`'s files (agent_config), read back by the real Gemini CLI and
GitHub Copilot CLI in a scratch home (`gemini mcp list`, `copilot mcp list --json`), and
taken back by the uninstall exactly: what the person had in those files stays."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.agent_clis import agent_cli, scratch_agent_env

from anamnesis.cli.agent_config import changes, hooks_settings
from anamnesis.cli.agent_config.hooks_settings import InvalidSettings
from anamnesis.cli.locations import anamnesis_command
from anamnesis.hooks import AGENTS


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch home every agent's configuration lives under, for us and the real CLIs."""
    scratch = tmp_path / "home"
    for name, value in scratch_agent_env(scratch).items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GEMINI_CLI_HOME", raising=False)
    return scratch


def _install(agent: str, home: Path) -> list[changes.FileChange]:
    planned = changes.plan_install(
        agent, anamnesis_command(), {"ANAMNESIS_HOME": str(home / ".anamnesis")}
    )
    changes.apply(planned)
    return planned


def _run(argv: list[str], home: Path, cwd: Path) -> str:
    cwd.mkdir(parents=True, exist_ok=True)
    # Gemini CLI runs no MCP server in a folder the person has not trusted: this one is.
    env = {**scratch_agent_env(home), "GEMINI_CLI_TRUST_WORKSPACE": "true"}
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=cwd, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_gemini_settings_keep_the_persons_own_and_the_uninstall_takes_back_ours(
    home: Path,
) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    own: dict[str, Any] = {
        "ui": {"theme": "GitHub"},
        "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
            {"type": "command", "command": "./check.sh", "timeout": 5000}]}]},
        "mcpServers": {"github": {"command": "gh-mcp", "args": []}},
    }  # fmt: skip
    settings.write_text(json.dumps(own))
    _install("gemini", home)
    written = json.loads(settings.read_text())
    assert (
        written["ui"] == own["ui"] and written["hooks"]["BeforeTool"] == own["hooks"]["BeforeTool"]
    )
    ours = hooks_settings.our_hooks(written)
    assert sorted({event for event, _ in ours}) == ["BeforeAgent", "SessionEnd", "SessionStart"]
    assert all("--agent gemini" in command for _, command in ours)
    timeouts = {e["timeout"] for groups in written["hooks"].values() for g in groups
                for e in g["hooks"] if hooks_settings.is_our_command(e["command"])}  # fmt: skip
    assert timeouts == {entry.timeout * 1000 for entry in AGENTS["gemini"].hooks}
    assert written["mcpServers"]["anamnesis"]["args"][-1] == "serve"
    # Twice is the same as once.
    assert not any(c.changed for c in changes.plan_install(
        "gemini", anamnesis_command(), {"ANAMNESIS_HOME": str(home / ".anamnesis")}))  # fmt: skip
    changes.apply(changes.plan_uninstall("gemini"))
    assert json.loads(settings.read_text()) == own


def test_the_real_gemini_cli_reads_the_server_init_wrote(home: Path) -> None:
    gemini = agent_cli("gemini")
    _install("gemini", home)
    listed = _run([gemini, "mcp", "list"], home, home / "project")
    if "Disconnected" in listed:
        # Gemini gives a server a few seconds to answer; the server's first start on a
        # loaded 2-core machine (cold imports of the MCP SDK) can take longer. Once more,
        # warm: a server that cannot start at all is Disconnected again.
        listed = _run([gemini, "mcp", "list"], home, home / "project")
    assert "anamnesis" in listed and "Connected" in listed, listed
    changes.apply(changes.plan_uninstall("gemini"))
    assert "anamnesis" not in _run([gemini, "mcp", "list"], home, home / "project")


def test_copilot_files_and_the_uninstall(home: Path) -> None:
    mcp = home / ".copilot" / "mcp-config.json"
    mcp.parent.mkdir(parents=True)
    own = {"mcpServers": {"github": {"type": "local", "command": "gh-mcp", "args": [],
                                     "tools": ["*"]}}}  # fmt: skip
    mcp.write_text(json.dumps(own))
    _install("copilot", home)
    hooks = json.loads((home / ".copilot" / "hooks" / "anamnesis.json").read_text())
    assert hooks["version"] == 1
    assert set(hooks["hooks"]) == {"SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"}
    for entries in hooks["hooks"].values():
        for entry in entries:
            assert (
                hooks_settings.is_our_command(entry["bash"]) and "--agent copilot" in entry["bash"]
            )
            assert entry["timeoutSec"] in {e.timeout for e in AGENTS["copilot"].hooks}
    assert json.loads(mcp.read_text())["mcpServers"]["github"] == own["mcpServers"]["github"]
    changes.apply(changes.plan_uninstall("copilot"))
    assert not (home / ".copilot" / "hooks" / "anamnesis.json").exists()
    assert json.loads(mcp.read_text()) == own


def test_the_real_copilot_cli_reads_the_server_init_wrote(home: Path) -> None:
    copilot = agent_cli("copilot")
    _install("copilot", home)
    listed = json.loads(_run([copilot, "mcp", "list", "--json"], home, home / "project"))
    assert "anamnesis" in json.dumps(listed), listed
    shown = _run([copilot, "mcp", "get", "anamnesis"], home, home / "project")
    assert "serve" in shown and "Enabled" in shown, shown
    changes.apply(changes.plan_uninstall("copilot"))
    assert "anamnesis" not in _run([copilot, "mcp", "list"], home, home / "project")


def test_a_file_that_is_not_plain_json_is_refused_and_left_alone(home: Path) -> None:
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{\n  // my theme\n  "ui": {}\n}\n')
    with pytest.raises(InvalidSettings, match="not plain JSON"):
        changes.plan_install("gemini", anamnesis_command(), {})
    assert "// my theme" in settings.read_text()


def test_someone_elses_server_named_anamnesis_is_kept(home: Path) -> None:
    mcp = home / ".copilot" / "mcp-config.json"
    mcp.parent.mkdir(parents=True)
    theirs = {"mcpServers": {"anamnesis": {"type": "local", "command": "node",
                                           "args": ["their-anamnesis.js"]}}}  # fmt: skip
    mcp.write_text(json.dumps(theirs))
    _install("copilot", home)
    assert json.loads(mcp.read_text()) == theirs
    changes.apply(changes.plan_uninstall("copilot"))
    assert json.loads(mcp.read_text()) == theirs
