"""Each extension point is declared once: a search mode, a hook, an agent or an LLM provider
added to
its one table (here by a test, as a new one would be in the code) is in every surface that
lists, checks or runs them, with nothing else changed."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client

from anamnesis.cli.__main__ import is_hook_call
from anamnesis.cli.agent_config import hooks_settings
from anamnesis.cli.config_file import check_setting, config_keys
from anamnesis.hooks import (
    AGENTS,
    HOOKS,
    AgentHook,
    AgentSpec,
    HookSpec,
    background,
    main,
    queued_captures,
)
from anamnesis.hooks.agents.session_lines import ParsedSession
from anamnesis.hooks.capture_queue import read_entry
from anamnesis.mcp import agent_of_client, build_server
from anamnesis.reflect import PROVIDERS, ProviderSpec, load_settings, make_provider
from anamnesis.store import SEARCH_MODES, MemoryStore, QueryVector, SearchMode
from cli_testing import Env, write

# -- a search mode ----------------------------------------------------------------------


def _oldest_first(
    conn: sqlite3.Connection,
    ranker: Any,
    tokens: Sequence[str],
    filters: Any,
    k: int,
    query: QueryVector | None,
    why: dict[str, Any],
) -> list[tuple[str, float]]:
    """The keyword ranking's notes, worst first: a test can tell this ranking ran (it says
    nothing of why: ``why`` stays empty)."""
    ranked = ranker.ranked_ids(tokens, filters, k)
    return [(memory_id, float(place)) for place, (memory_id, _) in enumerate(reversed(ranked))]


@pytest.fixture
def dummy_mode(monkeypatch: pytest.MonkeyPatch) -> str:
    mode = SearchMode("dummy", "a test's: keywords, worst first", False, _oldest_first)
    monkeypatch.setitem(SEARCH_MODES, mode.name, mode)
    return mode.name


def test_a_search_mode_declared_once_is_in_every_surface(env: Env, dummy_mode: str) -> None:
    best = write(env, "deploy deploy deploy", "deploy the deploy key")
    worst = write(env, "deploy notes", "about the release")
    # The store runs its ranking.
    with MemoryStore(env.home) as store:
        found = store.search_scored("deploy", mode=dummy_mode)
        assert [hit.note.id for hit in found.hits] == [worst, best]
        assert (found.mode, found.asked) == (dummy_mode, dummy_mode)
        tools, by_mode, refused = anyio.run(_mcp_search, build_server(store), dummy_mode)
    # The MCP tool: its schema's allowed values, its description, its messages, its results.
    schema = tools["memory_search"].input_schema["properties"]["mode"]
    assert dummy_mode in [value for option in schema["anyOf"] for value in option.get("enum", [])]
    assert f"'{dummy_mode}' (a test's: keywords, worst first)" in tools["memory_search"].description
    assert [note["id"] for note in by_mode.structured_content["result"]] == [worst, best]
    assert by_mode.structured_content["mode"] == dummy_mode
    assert refused.is_error and f"'{dummy_mode}' (a test's" in refused.content[0].text
    # The CLI: help, the option's check, the setting's check, eval's modes.
    assert f"keyword | vector | hybrid | {dummy_mode}" in env.run("search", "--help").out
    assert f"| {dummy_mode} | all" in env.run("eval", "run", "--help").out
    cli = env.run("search", "deploy", "--mode", dummy_mode, "--json")
    assert cli.code == 0 and [hit["id"] for hit in cli.json()] == [worst, best]
    assert env.run("config", "set", "search_mode", dummy_mode).code == 0
    assert check_setting("search_mode", dummy_mode) == dummy_mode
    assert dummy_mode in config_keys()["search_mode"].help
    assert dummy_mode in env.run("config", "set", "search_mode", "bogus").err


async def _mcp_search(server: Any, mode: str) -> tuple[dict[str, Any], Any, Any]:
    async with Client(server) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        found = await client.call_tool("memory_search", {"query": "deploy", "mode": mode})
        refused = await client.call_tool("memory_search", {"query": "deploy", "mode": "bogus"})
    return tools, found, refused


# -- a hook -----------------------------------------------------------------------------


@pytest.fixture
def dummy_hook(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """A hook whose runner records what it was given, in a module of its own (the table
    names runners as text, imported on dispatch), which Claude Code runs."""
    calls: list[dict[str, Any]] = []
    module = types.ModuleType("anamnesis_test_dummy_hook")
    setattr(module, "run", calls.append)  # noqa: B010  # a module made here, at run time
    monkeypatch.setitem(sys.modules, module.__name__, module)
    spec = HookSpec(
        "dummy",
        f"{module.__name__}:run",
        values={"word": ("hi", "ho")},
        switches=("no-stdin",),
        help="Dummy hook: what a test registered.",
    )
    monkeypatch.setitem(HOOKS, spec.name, spec)
    # Where Claude Code runs it: one entry in its row of the table of agents.
    claude = AGENTS["claude-code"]
    entry = AgentHook("dummy", "Notification", "idle", ("--word", "hi"), 7)
    monkeypatch.setattr(claude, "hooks", (*claude.hooks, entry))
    return calls


def test_a_hook_declared_once_is_in_every_surface(
    env: Env, dummy_hook: list[dict[str, Any]]
) -> None:
    # The dispatcher runs it with its flags, and refuses flags it does not take.
    assert main(["dummy", "--word", "ho", "--no-stdin"]) == 0
    assert dummy_hook == [{"no-stdin": True, "word": "ho"}]
    assert main(["dummy", "--word", "nope"]) == 0 and len(dummy_hook) == 1
    # The CLI hands it to the hooks before its own parser loads, and its help says what it is.
    assert is_hook_call(["dummy", "--word", "hi"])
    assert env.run("dummy", "--word", "hi", "--no-stdin").code == 0
    assert dummy_hook[-1] == {"no-stdin": True, "word": "hi"}
    assert "Dummy hook: what a test registered." in env.run("dummy", "--help").out
    assert "dummy" in env.run("--help").out
    # init installs it into Claude Code's settings, and then finds nothing missing.
    env.fake_claude()
    assert env.run("init", "--yes", "--local-only").code == 0
    settings = json.loads(env.settings.read_text())
    [group] = settings["hooks"]["Notification"]
    [entry] = group["hooks"]
    assert group["matcher"] == "idle" and entry["timeout"] == 7
    assert entry["command"].endswith("dummy --word hi")
    read = hooks_settings.read_command(entry["command"])
    assert read is not None and read.args == ("dummy", "--word", "hi")
    assert hooks_settings.missing_hooks(settings) == []


# -- an agent ---------------------------------------------------------------------------


@pytest.fixture
def dummy_agent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """An agent of its own events and session files, in the table of agents, whose reader
    (in a module made here: the table names readers as text, imported when a capture runs)
    records the files it read. Its worker is not started: the test files the queue itself."""
    read: list[str] = []

    def reader(path: str | Path) -> ParsedSession:
        read.append(str(path))
        return ParsedSession(
            session_id="dummy-session-1", cwd=str(tmp_path), started_at="2026-01-02T03:04:05Z",
            first_prompt="rotate the dummy deploy key before Friday",
            files_touched=["deploy/keys.py"], user_turns=3, last_outcome="rotated",
        )  # fmt: skip

    module = types.ModuleType("anamnesis_test_dummy_agent")
    setattr(module, "read", reader)  # noqa: B010  # a module made here, at run time
    monkeypatch.setitem(sys.modules, module.__name__, module)
    spec = AgentSpec(
        "dummy", "Dummy Agent", command="dummy-agent",
        hooks=(
            AgentHook("inject", "DummyStart", None, ("--format", "json"), 15),
            AgentHook("prompt", "DummyPrompt", None, ("--format", "json"), 5),
            AgentHook("capture", "DummyEnd", None, ("--no-sync",), 10),
        ),
        reader=f"{module.__name__}:read",
        config_env="ANAMNESIS_TEST_DUMMY_HOME", config_dir=".dummy", hooks_file="hooks.json",
    )  # fmt: skip
    monkeypatch.setitem(AGENTS, spec.name, spec)
    monkeypatch.setattr(background, "start_worker", lambda home: 0)
    return read


def test_an_agent_declared_once_is_taken_by_the_hooks(
    env: Env, dummy_agent: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    write(env, "dummy deploy key", "rotate the dummy deploy key with deploy/keys.py")
    capsys.readouterr()
    # The dispatcher takes --agent dummy; the output names the dummy's events.
    assert main(["inject", "--agent", "dummy", "--no-stdin", "--format", "json",
                 "--cwd", str(tmp_path)]) == 0  # fmt: skip
    said = json.loads(capsys.readouterr().out)["hookSpecificOutput"]
    assert said["hookEventName"] == "DummyStart" and "dummy deploy key" in said["additionalContext"]
    prompt = json.dumps({"prompt": "how do I rotate the dummy deploy key?", "cwd": str(tmp_path)})
    with _stdin(prompt, tmp_path):
        assert main(["prompt", "--agent", "dummy", "--format", "json", "--project", "global"]) == 0
    said = json.loads(capsys.readouterr().out)["hookSpecificOutput"]
    assert (
        said["hookEventName"] == "DummyPrompt" and "dummy deploy key" in said["additionalContext"]
    )
    # An agent not in the table is refused (the hook still exits 0) and prints nothing.
    assert main(["inject", "--agent", "nope", "--no-stdin", "--format", "json"]) == 0
    assert capsys.readouterr().out == ""
    # Capture reads the session with the dummy's reader: its note is what that reader said.
    session = tmp_path / "dummy-session.log"
    session.write_text("the dummy agent's own format\n")
    assert main(["capture", "--agent", "dummy", "--no-stdin", "--no-sync",
                 "--transcript", str(session)]) == 0  # fmt: skip
    assert dummy_agent == [str(session)]
    [queued] = queued_captures(env.home)
    pending = read_entry(queued)
    assert pending.session_id == "dummy-session-1" and pending.transcript == str(session)
    assert "rotate the dummy deploy key before Friday" in pending.title + pending.body
    assert "deploy/keys.py" in pending.body
    # init's hook commands for it carry --agent dummy, and are read back as ours.
    entries = hooks_settings.hook_entries("dummy")
    assert [entry.event for entry in entries] == ["DummyStart", "DummyPrompt", "DummyEnd"]
    commands = [hooks_settings.hook_command(["anamnesis"], entry, {}) for entry in entries]
    assert all(" --agent dummy" in c and hooks_settings.is_our_command(c) for c in commands)


@contextlib.contextmanager
def _stdin(text: str, folder: Path) -> Iterator[None]:
    """The hook JSON an agent writes on a hook's stdin (a file: the hooks read a real
    file descriptor)."""
    given = folder / "stdin.json"
    given.write_text(text)
    saved = sys.stdin
    with given.open() as sys.stdin:
        try:
            yield
        finally:
            sys.stdin = saved


# -- an LLM provider ---------------------------------------------------------------------


class _Parrot:
    name = "dummy"

    def __init__(self, model: str) -> None:
        self.model = model

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        return "ok"


def _parrot(*, model: str, base_url: str, api_key: str | None, max_reply_bytes: int) -> _Parrot:
    return _Parrot(model)


@pytest.fixture
def dummy_provider(monkeypatch: pytest.MonkeyPatch) -> str:
    spec = ProviderSpec("dummy", "a test's provider", _parrot, needs_model=True)
    monkeypatch.setitem(PROVIDERS, spec.name, spec)
    return spec.name


def test_a_provider_declared_once_is_in_every_surface(
    env: Env, dummy_provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The settings accept it, and it is what they build (with what it declares it needs).
    assert env.run("config", "set", "llm.provider", dummy_provider).code == 0
    assert json.loads((env.home / "config.json").read_text())["llm.provider"] == dummy_provider
    assert "needs a model" in env.run("llm", "test").err
    assert env.run("config", "set", "llm.model", "m1").code == 0
    monkeypatch.setenv("ANAMNESIS_HOME", str(env.home))
    built = make_provider(load_settings(env.home))
    assert isinstance(built, _Parrot) and built.model == "m1"
    tested = env.run("llm", "test", "--json")
    assert tested.code == 0 and tested.json()["provider"] == dummy_provider
    # The setting's help, its allowed values and the message for a wrong one name it.
    declared = config_keys()["llm.provider"]
    assert dummy_provider in declared.help and dummy_provider in declared.choices
    assert dummy_provider in env.run("config", "set", "llm.provider", "bogus").err


# -- an agent's MCP client ------------------------------------------------------------------

# What each agent calls itself when it connects to an MCP server (clientInfo.name; the MCP
# package's client_agent.py says where each was read).
AGENT_CLIENTS = ("claude-code", "codex-mcp-client", "gemini-cli-mcp-client",
                 "gemini-cli-mcp-client-anamnesis")  # fmt: skip


def test_the_mcp_server_names_an_agents_client_as_the_table_of_agents_does() -> None:
    """memory_write records the agent a client is (``prov_agent``) by the table's name, so
    that a note an agent wrote through MCP and one its hooks captured say the same."""
    for client in AGENT_CLIENTS:
        assert agent_of_client(client) in AGENTS, client
