"""`anamnesis init --agent codex`: Codex's hooks.json and its [mcp_servers.anamnesis], read back
by the real Codex CLI (skipped, saying how to get it, where it is not installed), taken back
by `--uninstall` to the byte; `doctor`'s check of Codex."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.agent_clis import agent_cli

from anamnesis.cli.agent_config import toml_tables
from anamnesis.cli.agent_config.codex_trust import HooksListing, list_hooks
from anamnesis.cli.agent_config.hooks_settings import hook_entries, read_command
from anamnesis.hooks import AGENTS
from cli_testing import Env

# A person's own Codex configuration: comments, their own servers and hooks, a [features]
# table, a profile, Windows line endings nowhere, a trailing comment.
USER_CONFIG = """\
# my Codex settings
model = "gpt-5.5"  # the one I pay for
approval_policy = "on-request"

[features]
goals = true

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]  # keep this pinned

[profiles.fast]
model = "gpt-5.5-mini"
# the end
"""
USER_HOOKS = {
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
    }
}


# Found before a test's machine narrows PATH to its own tools (`Env.make`).
CODEX = shutil.which("codex")


@pytest.fixture
def codex(bare: Env) -> str:
    """The real `codex` (the test is skipped, saying how to get it, where there is none),
    on the machine's PATH."""
    found = CODEX or agent_cli("codex")
    bare.variables["PATH"] = os.pathsep.join([str(Path(found).parent), bare.variables["PATH"]])
    return found


def init(env: Env, *args: str) -> Any:
    done = env.run("init", "--agent", "codex", "--local-only", "--yes", "--no-sync", *args)
    assert done.code == 0, done.err
    return done


def codex_run(env: Env, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [CODEX or agent_cli("codex"), *args],
        capture_output=True,
        text=True,
        env=env.environment(),
        cwd=env.root,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def codex_listing(env: Env) -> HooksListing:
    """The hooks as the real Codex reads them (its app-server's hooks/list)."""
    return list_hooks(CODEX or agent_cli("codex"), env.root, env=env.environment())


def our_codex_hooks(env: Env) -> list[tuple[str, str | None, dict[str, Any]]]:
    data = json.loads((env.codex / "hooks.json").read_text())
    return [
        (event, group.get("matcher"), entry)
        for event, groups in data["hooks"].items()
        for group in groups
        for entry in group["hooks"]
        if read_command(entry["command"]) is not None
    ]


def test_init_in_an_empty_home_writes_what_codex_reads(bare: Env) -> None:
    """No Claude Code anywhere: its settings are neither read nor written."""
    done = init(bare)
    assert "start `codex` and type /hooks" in done.out
    assert not bare.claude.exists()
    config = tomllib.loads((bare.codex / "config.toml").read_text())  # a TOML parser takes it
    server = config["mcp_servers"]["anamnesis"]
    assert server["args"][-1] == "serve" and Path(server["command"]).exists()
    assert server["env"] == {"ANAMNESIS_HOME": str(bare.home)}
    written = our_codex_hooks(bare)
    wanted = hook_entries("codex")
    assert [(event, matcher) for event, matcher, _ in written] == [
        (spec.event, spec.matcher) for spec in sorted(wanted, key=_event_order(written))
    ]
    for event, _matcher, entry in written:
        read = read_command(entry["command"])
        assert read is not None and read.args[1:3] == ("--agent", "codex"), entry
        assert entry["type"] == "command" and isinstance(entry["timeout"], int)
        if event == "SessionEnd":
            assert entry["timeout"] <= 3  # Codex cuts a longer one, warning at every start


def _event_order(written: list[tuple[str, str | None, dict[str, Any]]]) -> Any:
    order = [(event, matcher) for event, matcher, _ in written]
    return lambda spec: order.index((spec.event, spec.matcher))


def test_the_real_codex_lists_the_server(bare: Env, codex: str) -> None:
    init(bare)
    listed = codex_run(bare, "mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert "anamnesis" in listed.stdout and "serve" in listed.stdout
    got = codex_run(bare, "mcp", "get", "anamnesis", "--json")
    assert got.returncode == 0, got.stderr
    transport = json.loads(got.stdout)["transport"]
    config = tomllib.loads((bare.codex / "config.toml").read_text())["mcp_servers"]["anamnesis"]
    assert transport["command"] == config["command"] and transport["args"] == ["serve"]
    assert transport["env"] == {"ANAMNESIS_HOME": str(bare.home)}
    assert json.loads(got.stdout)["enabled"] is True


def test_the_real_codex_reads_every_hook_as_written(bare: Env, codex: str) -> None:
    """Codex's own reading of hooks.json (a bad field is a warning, an unknown event is
    left out): every hook of ours there, none warned about, none trusted yet."""
    init(bare)
    listing = codex_listing(bare)
    assert listing.warnings == [] and listing.errors == []
    got = sorted((h.event, h.matcher, h.command, h.timeout, h.run_async) for h in listing.hooks)
    wanted = sorted(
        (event[0].lower() + event[1:], matcher, entry["command"], entry["timeout"],
         entry.get("async", False))
        for event, matcher, entry in our_codex_hooks(bare)
    )  # fmt: skip
    assert got == wanted and len(got) == len(AGENTS["codex"].hooks)
    assert {hook.trust for hook in listing.hooks} == {"untrusted"}


def test_a_bad_hooks_file_is_what_codex_warns_about(bare: Env, codex: str) -> None:
    """The check above can fail: Codex warns of a field of the wrong type."""
    bare.codex.mkdir(parents=True)
    bad = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "9"}]}]}}
    (bare.codex / "hooks.json").write_text(json.dumps(bad))
    assert "failed to parse hooks config" in " ".join(codex_listing(bare).warnings)


def test_uninstall_gives_back_the_users_files_to_the_byte(bare: Env) -> None:
    bare.codex.mkdir(parents=True)
    (bare.codex / "config.toml").write_text(USER_CONFIG)
    user_hooks = json.dumps(USER_HOOKS, indent=4) + "\n"
    (bare.codex / "hooks.json").write_text(user_hooks)
    init(bare)
    config = (bare.codex / "config.toml").read_text()
    assert config.startswith(USER_CONFIG)  # every comment where it was
    assert tomllib.loads(config)["mcp_servers"]["docs"] == {
        "command": "npx",
        "args": ["-y", "docs-mcp"],
    }
    init(bare)  # again: nothing changes
    assert (bare.codex / "config.toml").read_text() == config
    done = bare.run("init", "--uninstall", "--agent", "codex", "--yes")
    assert done.code == 0, done.err
    assert (bare.codex / "config.toml").read_text() == USER_CONFIG
    assert json.loads((bare.codex / "hooks.json").read_text()) == USER_HOOKS
    assert not bare.claude.exists()


def test_uninstall_leaves_no_file_it_created(bare: Env) -> None:
    init(bare)
    assert bare.run("init", "--uninstall", "--agent", "codex", "--yes").code == 0
    left = sorted(p.name for p in bare.codex.iterdir() if "anamnesis-backup" not in p.name)
    assert left == []


def test_uninstall_after_codex_added_a_server_of_its_own(bare: Env, codex: str) -> None:
    """Codex rewrites its servers' tables (dropping comments among them): ours still goes,
    theirs stays."""
    init(bare)
    added = codex_run(bare, "mcp", "add", "other", "--", "/bin/true")
    assert added.returncode == 0, added.stderr
    assert bare.run("init", "--uninstall", "--agent", "codex", "--yes").code == 0
    config = tomllib.loads((bare.codex / "config.toml").read_text())
    assert config == {"mcp_servers": {"other": {"command": "/bin/true"}}}
    listed = codex_run(bare, "mcp", "list")
    assert "other" in listed.stdout and "anamnesis" not in listed.stdout


def test_a_server_of_our_name_that_is_not_ours_is_left_alone(bare: Env) -> None:
    bare.codex.mkdir(parents=True)
    theirs = '[mcp_servers.anamnesis]\ncommand = "/opt/greek/anamnesis-server"\n'
    (bare.codex / "config.toml").write_text(theirs)
    done = bare.run("init", "--agent", "codex", "--local-only", "--yes", "--no-sync")
    assert done.code == 1 and "codex mcp remove anamnesis" in done.err
    assert (bare.codex / "config.toml").read_text() == theirs
    assert our_codex_hooks(bare)  # the hooks are in all the same
    assert bare.run("init", "--uninstall", "--agent", "codex", "--yes").code == 0
    assert (bare.codex / "config.toml").read_text() == theirs


def test_hooks_turned_off_are_reported_not_overruled(bare: Env) -> None:
    bare.codex.mkdir(parents=True)
    (bare.codex / "config.toml").write_text("[features]\ncodex_hooks = false\n")
    done = bare.run("init", "--agent", "codex", "--local-only", "--yes", "--no-sync")
    assert done.code == 1 and "codex_hooks = false" in done.err
    assert "codex_hooks = false" in (bare.codex / "config.toml").read_text()


def test_a_config_that_is_not_toml_stops_init_before_anything(bare: Env) -> None:
    bare.codex.mkdir(parents=True)
    (bare.codex / "config.toml").write_text("model = \n")
    done = bare.run("init", "--agent", "codex", "--local-only", "--yes")
    assert done.code == 1 and "is not valid TOML" in done.err
    assert not (bare.codex / "hooks.json").exists() and not bare.home.exists()


def test_print_shows_the_plan_and_writes_nothing(bare: Env) -> None:
    done = bare.run("init", "--agent", "codex", "--print")
    assert done.code == 0, done.err
    assert "hooks.json will hold these hooks" in done.out
    assert "capture --agent codex" in done.out and "/hooks" in done.out
    assert not bare.codex.exists()


def test_agent_all_sets_up_both(bare: Env) -> None:
    bare.fake_claude()
    done = bare.run("init", "--agent", "all", "--local-only", "--yes", "--no-sync")
    assert done.code == 0, done.err
    claude_hooks = json.loads(bare.settings.read_text())["hooks"]
    assert read_command(claude_hooks["SessionEnd"][0]["hooks"][0]["command"]) is not None
    assert our_codex_hooks(bare)
    assert bare.run("init", "--uninstall", "--agent", "all", "--yes").code == 0
    assert not (bare.codex / "hooks.json").exists()  # it held only ours
    assert "hooks" not in json.loads(bare.settings.read_text())


def test_an_unknown_agent_is_a_usage_error(bare: Env) -> None:
    done = bare.run("init", "--agent", "cursor")
    assert done.code == 2 and "claude-code, codex, all" in done.err


def test_doctor_on_codex(bare: Env, codex: str) -> None:
    """Not found, then set up but untrusted (a warning saying how to trust), then trusted
    the way Codex records it (its hash under [hooks.state] in config.toml)."""

    def codex_check() -> dict[str, str]:
        done = bare.run("doctor", "--offline", "--json")
        checks: list[dict[str, str]] = done.json()["checks"]
        return next(check for check in checks if check["name"] == "codex")

    assert codex_check()["detail"].startswith("Codex CLI found")  # on PATH, not set up
    init(bare)
    check = codex_check()
    assert check["status"] == "warn" and "until you trust them" in check["detail"]
    assert "/hooks" in check["fix"]
    config = bare.codex / "config.toml"
    text = config.read_text()
    for hook in codex_listing(bare).hooks:
        text = toml_tables.with_table(
            text, ("hooks", "state", hook.key), {"trusted_hash": hook.current_hash}, "config"
        )
    config.write_text(text)
    assert {hook.trust for hook in codex_listing(bare).hooks} == {"trusted"}
    check = codex_check()
    assert check["status"] == "ok" and "trusted" in check["detail"], check
    hooks = bare.codex / "hooks.json"
    data = json.loads(hooks.read_text())
    del data["hooks"]["Stop"]
    hooks.write_text(json.dumps(data))
    check = codex_check()
    assert check["status"] == "fail" and "Stop" in check["detail"]


def test_doctor_without_codex_has_nothing_to_check(bare: Env) -> None:
    bare.variables["PATH"] = str(bare.root / "bin")
    done = bare.run("doctor", "--offline", "--json")
    (check,) = [c for c in done.json()["checks"] if c["name"] == "codex"]
    assert check["status"] == "ok" and "not found" in check["detail"]


def test_the_hook_commands_run_as_written(bare: Env, tmp_path: Path) -> None:
    """Each command init wrote runs (its shell words, its --agent codex) and exits 0."""
    init(bare)
    for _event, _matcher, entry in our_codex_hooks(bare):
        done = subprocess.run(
            ["sh", "-c", entry["command"]],
            input="{}",
            capture_output=True,
            text=True,
            env=bare.environment(),
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, (entry["command"], done.stderr)
        assert "bad command line" not in done.stderr, shlex.split(entry["command"])
