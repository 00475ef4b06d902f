"""The server's answers to the model's mistakes and to its own failures: actionable tool
errors, hostile values, crashes logged once without internals."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.server.mcpserver.exceptions import ToolError

from anamnesis.mcp import build_server
from anamnesis.mcp.arguments import TOOL_ARGUMENTS
from anamnesis.mcp.guard import ToolGuard
from anamnesis.mcp.server import AnamnesisServer
from anamnesis.store import (
    InvalidNote,
    MemoryStore,
)
from mcp_testing import (
    BASE,
    HOSTILE,
    INTERNALS,
    WRITE,
    call,
    error_text,
)


@pytest.mark.parametrize(
    ("tool", "arguments", "hint"),
    [
        ("memory_write", {**WRITE, "type": "fact"}, "procedural"),
        ("memory_write", {**WRITE, "scope": "team"}, "machine-local"),
        ("memory_write", {**WRITE, "title": ""}, "non-empty"),
        ("memory_write", {**WRITE, "body": "x" * 1_000_001}, "1 MB"),
        ("memory_write", {"type": "semantic", "title": "t"}, "body: is required"),
        ("memory_search", {"query": "x", "k": 0}, "from 1 to 50"),
        ("memory_search", {"query": "x", "k": 51}, "from 1 to 50"),
        ("memory_search", {"query": "x", "k": "lots"}, "whole number"),
        ("memory_search", {"query": "x", "project": ["a", "b"]}, "one project key"),
        ("memory_search", {"query": "x", "project": {"like": "a%"}}, "one project key"),
        ("memory_search", {"query": "x", "limit": 3}, "unknown argument limit"),
        ("memory_search", {}, "query: is required"),
        ("memory_list", {"type": 3}, "procedural"),
        ("memory_status", {"verbose": True}, "no arguments"),
        ("memory_sync", {"force": "yes"}, "true or false"),
        ("memory_search", {"query": "x", "k": "\u00b2"}, "whole number"),
        ("memory_search", {"query": "x", "k": "9" * 5000}, "whole number"),
        ("memory_search", {"query": "hello", "project": "p\ud800"}, "lone surrogate"),
        ("memory_list", {"project": "p\ud800"}, "lone surrogate"),
        ("memory_write", {**WRITE, "title": "\x00"}, "NUL"),
        ("memory_write", {**WRITE, "title": "\x01\x02"}, "non-empty"),
        ("memory_search", {"query": "x", "\ud800": 1}, "unknown argument"),
        ("memory_search", {"query": "x", "mode": "semantic"}, "'keyword' (exact words"),
        ("memory_search", {"query": "x", "mode": 1}, "leave it out for the default"),
        ("memory_write", {**WRITE, "project": "acme\u202e"}, "invisible formatting"),
    ],
)
def test_bad_arguments_get_an_actionable_tool_error(
    store: MemoryStore, tool: str, arguments: dict[str, Any], hint: str
) -> None:
    result = anyio.run(call, build_server(store), tool, arguments)
    assert result.is_error
    text = error_text(result)
    assert hint in text
    assert text.startswith(f"invalid argument for {tool}: ")
    for internals in INTERNALS:
        assert internals not in text
    assert list(store.root.rglob("*.md")) == []
    assert not (store.root / "logs" / "mcp.log").exists()  # nothing unexpected happened


def test_every_argument_of_every_tool_survives_hostile_values(store: MemoryStore) -> None:
    """The auditor's fuzz, through the SDK: accepted, or refused in our words; never a crash."""
    server = build_server(store, machine_id="m")
    outcomes: list[tuple[str, str, bool, str]] = []

    async def scenario() -> None:
        async with Client(server) as client:
            for tool, accepted in TOOL_ARGUMENTS.items():
                for name in accepted:
                    for value in HOSTILE:
                        result = await client.call_tool(tool, {**BASE.get(tool, {}), name: value})
                        outcomes.append((tool, name, bool(result.is_error), error_text(result)))

    anyio.run(scenario)
    refused = 0
    for tool, name, is_error, text in outcomes:
        if is_error:
            refused += 1
            assert text.startswith(f"invalid argument for {tool}: {name}: "), text
            assert len(text) < 700, text
            for internal in INTERNALS:
                assert internal not in text, text
    assert refused > len(outcomes) // 2  # most of these values are wrong, and said to be
    assert not (store.root / "logs" / "mcp.log").exists()


def test_an_unexpected_failure_is_logged_and_reported_without_internals(
    store: MemoryStore,
) -> None:
    class BrokenBackend:
        def state(self) -> Any:
            raise RuntimeError("secret internals")

    server = build_server(store, backend=BrokenBackend())  # type: ignore[arg-type]
    result = anyio.run(call, server, "memory_status", {})
    assert result.is_error
    text = error_text(result)
    assert "secret internals" not in text
    log = store.root / "logs" / "mcp.log"
    assert str(log) in text
    assert "secret internals" in log.read_text()


def _crashing_server(store: MemoryStore) -> AnamnesisServer:
    class BrokenBackend:  # stands in for a sync backend with a bug
        def state(self) -> Any:
            raise RuntimeError(f"bug seen by {store.root.name}")

    return build_server(store, backend=BrokenBackend())  # type: ignore[arg-type]


def test_each_crash_is_logged_once_in_its_own_stores_log(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "one") as one, MemoryStore(tmp_path / "two") as two:
        servers = [_crashing_server(one), _crashing_server(one), _crashing_server(two)]
        for server in (servers[2], servers[0], servers[1], servers[0]):
            assert anyio.run(call, server, "memory_status", {}).is_error
        one_log = (one.root / "logs" / "mcp.log").read_text()
        two_log = (two.root / "logs" / "mcp.log").read_text()
    # Three crashes on `one` through two servers: three records, not one per server built.
    assert one_log.count("memory_status raised") == 3
    assert one_log.count("bug seen by one") == 3
    assert "bug seen by two" not in one_log
    assert two_log.count("memory_status raised") == 1
    assert "bug seen by one" not in two_log


def test_a_store_rule_an_argument_breaks_is_reported_as_that_argument(store: MemoryStore) -> None:
    guard = ToolGuard(store)
    with pytest.raises(ToolError) as caught, guard("memory_write"):
        raise InvalidNote("project", "must be one line")
    assert str(caught.value) == "invalid argument for memory_write: project: must be one line"
    # A rule the model cannot act on (the bound machine id) is not blamed on its arguments.
    server = build_server(store, machine_id="lab/box")
    result = anyio.run(call, server, "memory_write", WRITE)
    assert result.is_error
    assert "machine_id: 'lab/box' must not contain /" in error_text(result)
    assert "invalid argument" not in error_text(result)
    assert list(store.root.rglob("*.md")) == []
    assert not (store.root / "logs" / "mcp.log").exists()  # expected, so not a crash
