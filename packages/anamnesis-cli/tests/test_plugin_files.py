"""The Claude Code plugin's files, as committed, are what the tables give: the hooks of the
hooks package's table, init's MCP server, the CLI's version. A change to any of them without
`uv run python scripts/plugin_files.py` fails here."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from anamnesis.cli.agent_config import hooks_settings, mcp_registration, plugin_files

ROOT = Path(__file__).resolve().parents[3]


def cli_version() -> str:
    with (ROOT / "packages" / "anamnesis-cli" / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def committed(relative: str) -> dict[str, object]:
    data = json.loads((ROOT / relative).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_each_committed_file_is_what_the_tables_give() -> None:
    for relative, text in plugin_files.plugin_files(cli_version()).items():
        assert (ROOT / relative).read_text(encoding="utf-8") == text, (
            f"{relative} differs from the tables: run `uv run python scripts/plugin_files.py`"
        )


def test_the_script_checks_and_writes_the_same_files() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "plugin_files.py"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_hooks_are_the_tables_entries_run_through_the_launcher() -> None:
    hooks = committed(plugin_files.HOOKS_JSON)["hooks"]
    assert isinstance(hooks, dict)
    found = [
        (event, group.get("matcher"), entry)
        for event, groups in hooks.items()
        for group in groups
        for entry in group["hooks"]
    ]
    wanted = hooks_settings.hook_entries()
    assert len(found) == len(wanted)
    launcher = '"${CLAUDE_PLUGIN_ROOT}/plugin/anamnesis.sh"'
    for spec in wanted:
        command = " ".join(["sh", launcher, *spec.args])
        matching = [
            entry
            for event, matcher, entry in found
            if (event, matcher) == (spec.event, spec.matcher) and entry["command"].endswith(command)
        ]
        assert len(matching) == 1, (spec, found)
        entry = matching[0]
        assert entry["timeout"] == spec.timeout and entry.get("async", False) == spec.run_async
        assert entry["command"].startswith("nice -n ") == spec.background


def test_the_mcp_server_is_inits_server_run_through_the_launcher() -> None:
    manifest = committed(plugin_files.PLUGIN_JSON)
    assert manifest["mcpServers"] == {
        mcp_registration.SERVER_NAME: {
            "command": "sh",
            "args": ["${CLAUDE_PLUGIN_ROOT}/plugin/anamnesis.sh", *mcp_registration.SERVE_ARGS],
        }
    }
    # The same arguments as the user-scope registration `init` makes, after the command.
    added = mcp_registration.add_argv(["/bin/anamnesis"], {})
    assert added[added.index("--") + 2 :] == list(mcp_registration.SERVE_ARGS)
    assert manifest["version"] == cli_version()
    assert manifest["name"] == plugin_files.PLUGIN_NAME
    assert not (ROOT / ".mcp.json").exists()  # inline: no project MCP config in this repo


def test_the_marketplace_offers_the_repository_itself() -> None:
    market = committed(plugin_files.MARKETPLACE_JSON)
    assert market["name"] == plugin_files.MARKETPLACE_NAME
    assert market["plugins"] == [
        {
            "name": plugin_files.PLUGIN_NAME,
            "source": "./",
            "description": plugin_files.DESCRIPTION,
            "category": "productivity",
        }
    ]
    assert (ROOT / plugin_files.LAUNCHER).is_file()
    assert (ROOT / "scripts" / "install.py").is_file()  # what the launcher installs with


def test_a_hook_added_to_the_table_changes_the_files(monkeypatch: pytest.MonkeyPatch) -> None:
    before = plugin_files.plugin_files(cli_version())
    extra = hooks_settings.HookEntry("Stop", None, ("capture", "--source", "stop"), 7)
    entries = [*hooks_settings.hook_entries(), extra]
    monkeypatch.setattr(hooks_settings, "hook_entries", lambda agent="claude-code": entries)
    after = plugin_files.plugin_files(cli_version())
    assert after[plugin_files.HOOKS_JSON] != before[plugin_files.HOOKS_JSON]
    stop = json.loads(after[plugin_files.HOOKS_JSON])["hooks"]["Stop"]
    assert stop == [
        {
            "hooks": [
                {
                    "type": "command",
                    "command": 'sh "${CLAUDE_PLUGIN_ROOT}/plugin/anamnesis.sh" '
                    "capture --source stop",
                    "timeout": 7,
                }
            ]
        }
    ]
