"""`anamnesis init --agent gemini|copilot|all`, run as the CLI runs: the files written in an
empty home (read back by the real Gemini CLI and GitHub Copilot CLI where they are
installed), the person's own files given back to the byte by `--uninstall`, `--agent all`
setting up the agents found and saying which it skipped, and `doctor`'s check of each
agent from not found to set up to stale."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.agent_clis import agent_cli

from anamnesis.cli.agent_config.hooks_settings import hook_entries, our_hooks, read_command
from anamnesis.hooks import AGENTS
from cli_testing import Env

# Found before a test's machine narrows PATH to its own tools (`Env.make`).
FOUND = {name: shutil.which(name) for name in ("gemini", "copilot")}


def gemini_settings(env: Env) -> Path:
    return env.root / "user" / ".gemini" / "settings.json"


def copilot_dir(env: Env) -> Path:
    return env.root / "user" / ".copilot"


def init(env: Env, *args: str) -> Any:
    done = env.run("init", "--local-only", "--yes", "--no-sync", *args)
    assert done.code == 0, done.err
    return done


def real_cli(env: Env, name: str, *args: str) -> str:
    """``name`` (the real CLI; the test skips where it is not installed) run in the
    machine's home, in a folder it trusts."""
    program = FOUND[name] or agent_cli(name)
    environment = env.environment()
    environment["PATH"] = os.pathsep.join([str(Path(program).parent), environment["PATH"]])
    environment["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
    done = subprocess.run(
        [program, *args], capture_output=True, text=True, env=environment, cwd=env.root,
        timeout=120, check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_init_gemini_in_an_empty_home(bare: Env) -> None:
    """Gemini CLI's settings.json alone: Claude Code's folder is neither read nor written."""
    done = init(bare, "--agent", "gemini")
    assert "Gemini CLI hooks and MCP server" in done.out
    assert not bare.claude.exists()
    settings = json.loads(gemini_settings(bare).read_text())
    ours = our_hooks(settings)
    assert len(ours) == len(hook_entries("gemini")) == len(settings_entries(settings))
    for _event, command in ours:
        read = read_command(command)
        assert read is not None and read.args[1:3] == ("--agent", "gemini")
        assert read.env == {"ANAMNESIS_HOME": str(bare.home)}
    server = settings["mcpServers"]["anamnesis"]
    assert server["args"][-1] == "serve" and Path(server["command"]).exists()
    assert server["env"] == {"ANAMNESIS_HOME": str(bare.home)}


def settings_entries(settings: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for groups in settings["hooks"].values() for g in groups for e in g["hooks"]]


def test_the_real_gemini_cli_connects_to_the_server_init_wrote(bare: Env) -> None:
    init(bare, "--agent", "gemini")
    listed = real_cli(bare, "gemini", "mcp", "list")
    assert "anamnesis" in listed and "Connected" in listed, listed


def test_init_copilot_in_an_empty_home(bare: Env) -> None:
    init(bare, "--agent", "copilot")
    assert not bare.claude.exists()
    hooks = json.loads((copilot_dir(bare) / "hooks" / "anamnesis.json").read_text())
    assert hooks["version"] == 1
    written = [(event, e) for event, entries in hooks["hooks"].items() for e in entries]
    assert sorted((event, read_command(e["bash"]).args) for event, e in written) == sorted(  # type: ignore[union-attr]
        (spec.event, spec.args) for spec in hook_entries("copilot")
    )
    assert all(e["type"] == "command" and isinstance(e["timeoutSec"], int) for _, e in written)
    server = json.loads((copilot_dir(bare) / "mcp-config.json").read_text())["mcpServers"]
    assert server["anamnesis"]["type"] == "local" and server["anamnesis"]["args"] == ["serve"]


def test_the_real_copilot_cli_reads_the_server_init_wrote(bare: Env) -> None:
    init(bare, "--agent", "copilot")
    listed = json.loads(real_cli(bare, "copilot", "mcp", "list", "--json"))
    assert "anamnesis" in json.dumps(listed), listed
    shown = real_cli(bare, "copilot", "mcp", "get", "anamnesis")
    assert "Enabled" in shown and "anamnesis serve" in shown and "ANAMNESIS_HOME" in shown, shown


# A person's own files, each laid out its own way: four spaces and a final newline (as
# written by hand), two spaces and none (as JSON.stringify writes it).
OWN_GEMINI = json.dumps(
    {"ui": {"theme": "GitHub"}, "mcpServers": {"github": {"command": "gh-mcp", "args": []}},
     "hooks": {"BeforeTool": [{"matcher": "write_file", "hooks": [
         {"type": "command", "command": "./check.sh", "timeout": 5000}]}]}},
    indent=4, ensure_ascii=False,
) + "\n"  # fmt: skip
OWN_COPILOT_MCP = json.dumps(
    {"mcpServers": {"github": {"type": "local", "command": "gh-mcp", "args": [],
                               "tools": ["*"], "note": "cl\u00e9"}}}, indent=2,
    ensure_ascii=False,
)  # fmt: skip


@pytest.mark.parametrize(
    ("agent", "path", "own"),
    [
        ("gemini", lambda env: gemini_settings(env), OWN_GEMINI),
        ("copilot", lambda env: copilot_dir(env) / "mcp-config.json", OWN_COPILOT_MCP),
    ],
)
def test_uninstall_gives_back_the_persons_file_to_the_byte(
    bare: Env, agent: str, path: Any, own: str
) -> None:
    file: Path = path(bare)
    file.parent.mkdir(parents=True)
    file.write_text(own, encoding="utf-8")
    init(bare, "--agent", agent)
    installed = file.read_text(encoding="utf-8")
    assert installed != own and "anamnesis" in installed
    init(bare, "--agent", agent)  # again: nothing changes
    assert file.read_text(encoding="utf-8") == installed
    done = bare.run("init", "--uninstall", "--agent", agent, "--yes")
    assert done.code == 0, done.err
    assert file.read_text(encoding="utf-8") == own
    assert not (copilot_dir(bare) / "hooks" / "anamnesis.json").exists()
    assert not bare.claude.exists()


def test_uninstall_leaves_no_file_it_created(bare: Env) -> None:
    init(bare, "--agent", "copilot")
    init(bare, "--agent", "gemini")
    for agent in ("copilot", "gemini"):
        assert bare.run("init", "--uninstall", "--agent", agent, "--yes").code == 0
    left = [
        p.name for folder in (copilot_dir(bare), gemini_settings(bare).parent)
        for p in folder.rglob("*") if p.is_file() and "anamnesis-backup" not in p.name
    ]  # fmt: skip
    assert left == []


def test_print_shows_the_plan_and_writes_nothing(bare: Env) -> None:
    done = bare.run("init", "--agent", "copilot", "--print")
    assert done.code == 0, done.err
    assert "GitHub Copilot CLI" in done.out and "prompt --agent copilot" in done.out
    assert not copilot_dir(bare).exists() and not bare.home.exists()


def fake_command(env: Env, name: str) -> None:
    script = env.root / "bin" / name
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)


def test_agent_all_sets_up_the_agents_found(bare: Env) -> None:
    """Gemini CLI by its folder, Copilot CLI by its command; Codex neither: skipped."""
    bare.fake_claude()
    gemini_settings(bare).parent.mkdir(parents=True)
    fake_command(bare, "copilot")
    done = init(bare, "--agent", "all")
    assert "agents:  Claude Code, Gemini CLI, GitHub Copilot CLI" in done.out
    assert "skipped, not found here: Codex CLI" in done.out
    assert our_hooks(json.loads(bare.settings.read_text()))
    assert our_hooks(json.loads(gemini_settings(bare).read_text()))
    assert (copilot_dir(bare) / "hooks" / "anamnesis.json").exists()
    assert not bare.codex.exists()
    done = bare.run("init", "--uninstall", "--agent", "all", "--yes")
    assert done.code == 0, done.err
    assert not gemini_settings(bare).exists()  # it held only ours
    assert not (copilot_dir(bare) / "hooks" / "anamnesis.json").exists()


def test_agent_all_with_nothing_else_found_is_claude_code_alone(bare: Env) -> None:
    done = init(bare, "--agent", "all")
    assert "agents:  Claude Code\n" in done.out
    assert "skipped, not found here: Codex CLI, Gemini CLI, GitHub Copilot CLI" in done.out
    assert not bare.codex.exists() and not copilot_dir(bare).exists()


def doctor_check(env: Env, name: str) -> dict[str, str]:
    done = env.run("doctor", "--offline", "--json")
    checks: list[dict[str, str]] = done.json()["checks"]
    return next(check for check in checks if check["name"] == name)


def test_doctor_on_gemini_from_not_found_to_stale(bare: Env) -> None:
    check = doctor_check(bare, "gemini")
    assert check["status"] == "ok" and "not found" in check["detail"], check
    gemini_settings(bare).parent.mkdir(parents=True)
    check = doctor_check(bare, "gemini")
    assert check["status"] == "ok" and "not set up" in check["detail"], check
    assert "--agent gemini" in check["fix"]
    init(bare, "--agent", "gemini")
    check = doctor_check(bare, "gemini")
    assert check == {**check, "status": "ok"} and "4 hooks" in check["detail"], check
    # Claude Code not set up is no problem where another agent is.
    assert doctor_check(bare, "hooks")["status"] == "ok"
    # Another store's hooks (init run with another ANAMNESIS_HOME): a warning.
    path = gemini_settings(bare)
    path.write_text(path.read_text().replace(str(bare.home), str(bare.root / "elsewhere")))
    check = doctor_check(bare, "gemini")
    assert check["status"] == "warn" and "elsewhere" in check["detail"], check
    # A hook gone (an older version's file): a failure naming it.
    init(bare, "--agent", "gemini")
    settings = json.loads(path.read_text())
    del settings["hooks"]["BeforeAgent"]
    path.write_text(json.dumps(settings))
    check = doctor_check(bare, "gemini")
    assert check["status"] == "fail" and "BeforeAgent" in check["detail"], check
    init(bare, "--agent", "gemini")
    assert doctor_check(bare, "gemini")["status"] == "ok"


def test_doctor_on_copilot_from_not_found_to_stale(bare: Env) -> None:
    check = doctor_check(bare, "copilot")
    assert check["status"] == "ok" and "not found" in check["detail"], check
    fake_command(bare, "copilot")  # found by its command
    check = doctor_check(bare, "copilot")
    assert check["status"] == "ok" and "not set up" in check["detail"], check
    init(bare, "--agent", "copilot")
    check = doctor_check(bare, "copilot")
    assert check["status"] == "ok" and f"{len(AGENTS['copilot'].hooks)} hooks" in check["detail"]
    # The program the hooks run moved away (an uninstalled copy of anamnesis).
    hooks = copilot_dir(bare) / "hooks" / "anamnesis.json"
    program = read_command(json.loads(hooks.read_text())["hooks"]["Stop"][0]["bash"])
    assert program is not None
    hooks.write_text(hooks.read_text().replace(program.program, "/gone/bin/anamnesis"))
    check = doctor_check(bare, "copilot")
    assert check["status"] == "fail" and "/gone/bin/anamnesis" in check["detail"], check
    # Our MCP server entry gone.
    init(bare, "--agent", "copilot")
    (copilot_dir(bare) / "mcp-config.json").write_text('{"mcpServers": {}}')
    check = doctor_check(bare, "copilot")
    assert check["status"] == "warn" and "no MCP server" in check["detail"], check
