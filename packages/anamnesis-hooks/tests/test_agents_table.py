"""The table of agents: every entry names a real hook with flags that hook takes, every
agent's reader loads, and a hook run for an agent answers in that agent's terms."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.hooks import AGENTS, DEFAULT_AGENT, HOOKS
from anamnesis.hooks.flags import parse_flags
from anamnesis.ops import claude_home
from anamnesis.store import MemoryStore
from hooks_testing import run_hook


@pytest.mark.parametrize("agent", list(AGENTS))
def test_every_entry_runs_a_hook_with_flags_it_takes(agent: str) -> None:
    spec = AGENTS[agent]
    assert spec.hooks, f"{agent} runs no hook"
    for entry in spec.hooks:
        hook = HOOKS[entry.hook]  # a KeyError names an entry for a hook that is not there
        assert not hook.internal
        args = spec.command_args(entry)
        assert args[0] == entry.hook
        # The dispatcher takes the command line the agent will run, --agent included.
        parse_flags(list(args[1:]), values=hook.values, switches=hook.switches)
        assert entry.timeout > 0


@pytest.mark.parametrize("agent", list(AGENTS))
def test_every_agent_reader_loads(agent: str) -> None:
    assert callable(AGENTS[agent].read_session())


def test_only_other_agents_commands_name_the_agent() -> None:
    for name, spec in AGENTS.items():
        for entry in spec.hooks:
            named = "--agent" in spec.command_args(entry)
            assert named == (name != DEFAULT_AGENT), (name, entry)


def test_claude_code_folder_is_the_one_ops_reads(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    claude = AGENTS["claude-code"]
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    assert claude.config_home() == claude_home()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "elsewhere"))
    assert claude.config_home() == claude_home() == tmp_path / "elsewhere"
    assert claude.hooks_path() == tmp_path / "elsewhere" / "settings.json"


def test_a_hook_run_for_an_agent_answers_with_that_agents_event(isolated_home: Path) -> None:
    with MemoryStore(isolated_home) as store:
        store.write(type="semantic", title="Deploys go through the staging box", body="always")
    for name, spec in AGENTS.items():
        event = spec.event_for("inject")
        if event is None:
            continue
        done = run_hook("inject", "--agent", name, "--format", "json", "--cwd", "/nowhere",
                        stdin={})  # fmt: skip
        assert done.returncode == 0, done.stderr
        out = json.loads(done.stdout)
        if spec.output == "hook-specific-output":
            out = out["hookSpecificOutput"]
            assert out["hookEventName"] == event
        assert "Deploys go through the staging box" in out["additionalContext"]


def test_an_unknown_agent_is_a_bad_command_line(isolated_home: Path) -> None:
    done = run_hook("inject", "--agent", "nobody", "--format", "json")
    assert (done.returncode, done.stdout) == (0, "")
    assert "nobody" in done.stderr and "Traceback" not in done.stderr
    assert "nobody" in (isolated_home / "logs" / "hooks.log").read_text()
