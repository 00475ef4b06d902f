"""Helpers for the MCP tests: hostile values, a bare remote, the raw index, tool results."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from dulwich.repo import Repo
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextContent

from anamnesis.mcp.arguments import MAX_QUERY_CHARS
from anamnesis.mcp.server import AnamnesisServer

# What a model or a broken client may send, beyond the plausible: the auditor's list and more.
HOSTILE: list[object] = [
    None, True, False, 0, -1, 1, 50, 51, 2**70, 10**5000, 1.5, 5.0, 1e308,
    float("nan"), float("inf"), -float("inf"),
    "", " ", "\u00b2", "\u0663", "\uff15", "1" * 5000, "9" * 5000, "5", " 7 ", "-3", "0x10",
    "\x00", "a\x00b", "\ud800", "p\ud800", "\udfff", "\x1b[31mred", "\u202e", "\u200b",
    "a" * 600, "x" * (MAX_QUERY_CHARS + 1), "x\ny", "*", "a%", "a_b", "[x]",
    [], [1], ["a"], [["a"]], [None], ["a"] * 60, [f"t{i}" for i in range(60)], ["\ud800"],
    ["\x00"], ["a\tb"], "a," * 60, {}, {"a": 1}, {"like": "%"}, {"$gt": ""},
    [[[[[[[[[[["deep"]]]]]]]]]]],
]  # fmt: skip

# Words that mean a raw Python, SQLite or pydantic message reached the model.
INTERNALS = (
    "Traceback", "sqlite", "pydantic", "validation error", "IntegrityError", "ValueError",
    "TypeError", "invalid literal", "Exceeds the limit", "codec", "surrogates not allowed",
    "Error executing", "failed unexpectedly",
)  # fmt: skip

BASE: dict[str, dict[str, object]] = {
    "memory_search": {"query": "deploy"},
    "memory_write": {"type": "semantic", "title": "t", "body": "b"},
}


def server_command() -> list[str]:
    """The server as installed next to this Python (the console script), else ``-m``."""
    script = Path(sys.executable).parent / "anamnesis-mcp"
    return [str(script)] if script.exists() else [sys.executable, "-m", "anamnesis.mcp"]


def process_client(folder: Path, stderr: Any) -> Client:
    """The SDK's client of the real server process, started in ``folder`` (its project)
    with this test's environment, its stderr to ``stderr``."""
    command = server_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=folder
    )
    return Client(stdio_client(params, errlog=stderr), mode="legacy", read_timeout_seconds=60)


def bare_remote(path: Path) -> Path:
    path.mkdir(parents=True)
    Repo.init_bare(str(path), default_branch=b"main").close()
    return path


def index_hits(db_path: Path, words: str) -> list[str]:
    """Ids of the notes whose indexed text matches ``words``, read from the index file itself.

    The store's own reads first catch up with files changed behind its back, which would
    hide whether a sync indexed what it pulled; this sees only what is already indexed.
    """
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute(
            "SELECT m.id FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid"
            " WHERE memories_fts MATCH ? ORDER BY m.id",
            (words,),
        ).fetchall()
    finally:
        conn.close()
    return [row[0] for row in rows]


def data(result: CallToolResult) -> Any:
    """What a successful tool call returned, read from the text the model sees.

    Also checks that the structured copy says the same thing.
    """
    assert not result.is_error, error_text(result)
    assert len(result.content) == 1
    shown = json.loads(text_of(result))
    structured = result.structured_content
    assert structured is not None
    assert structured.get("result", structured) == shown
    return shown


def error_text(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


def text_of(result: CallToolResult) -> str:
    """The one text block of a result."""
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


# The five tools, and a note to write: shared by the server tests.
FIVE = {"memory_search", "memory_list", "memory_status", "memory_write", "memory_sync"}
WRITE = {"type": "procedural", "title": "Pin esbuild", "body": "esbuild 0.19 breaks the build"}


async def call(server: AnamnesisServer, tool: str, arguments: dict[str, Any]) -> Any:
    async with Client(server) as client:
        return await client.call_tool(tool, arguments)


async def tools_of(server: AnamnesisServer) -> dict[str, Any]:
    async with Client(server) as client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}


def protocol_error(
    server: AnamnesisServer, request: Callable[[Client], Awaitable[Any]]
) -> MCPError:
    """The JSON-RPC error ``request`` (a call on a connected client) gets from ``server``;
    checks that no raw Python, SQLite or pydantic message reached the client."""

    async def scenario() -> MCPError:
        async with Client(server) as client:
            with pytest.raises(MCPError) as caught:
                await request(client)
        return caught.value

    error = anyio.run(scenario)
    for internal in (*INTERNALS, "Error rendering", "Missing required"):
        assert internal not in error.message, error.message
    return error
