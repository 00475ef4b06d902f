"""What the server records as used (``anamnesis stats``): the notes each memory_search
returned, each note read by id through its resource, and whether a search of the same
session returned it before. The real server process over stdio, the SDK's client."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import anyio
import pytest
from anamnesis_testsupport.checkouts import checkout
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from anamnesis.mcp import agent_of_client
from anamnesis.mcp.server import build_server
from anamnesis.store import MemoryStore
from mcp_testing import data, server_command

P = "github.com/acme/api"


@pytest.fixture
def notes(isolated_home: Path) -> dict[str, str]:
    with MemoryStore(isolated_home) as store:
        port = store.write(type="semantic", title="API port", body="port 9443 (TLS)", project=P)
        pool = store.write(type="semantic", title="Pool size", body="20 per worker", project=P)
    return {"port": port.id, "pool": pool.id}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return checkout(tmp_path / "src" / "api", "git@github.com:acme/api.git")


def client(folder: Path, stderr: Any, name: str = "codex-mcp-client") -> Client:
    command = server_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=folder
    )
    return Client(
        stdio_client(params, errlog=stderr),
        mode="legacy",
        read_timeout_seconds=60,
        client_info=Implementation(name=name, version="1.0"),
    )


def runs(home: Path) -> list[tuple[str, str, str, str, str, int]]:
    """Each note of each run, oldest first: event, project, agent, session, note, and
    whether a search of its session returned the note before (fetches only)."""
    with sqlite3.connect(MemoryStore(home).layout.usage_path) as conn:
        return conn.execute(
            "SELECT event, project, agent, session, coalesce(note, ''),"
            " coalesce(after_search, 0) FROM runs LEFT JOIN uses ON uses.run = runs.id"
            " ORDER BY runs.id, note"
        ).fetchall()


def test_searches_and_fetches_by_id_are_recorded_per_session(
    isolated_home: Path, notes: dict[str, str], folder: Path, tmp_path: Path
) -> None:
    port, pool = notes["port"], notes["pool"]

    async def sessions() -> None:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(folder, stderr) as first:
                found = data(await first.call_tool("memory_search", {"query": "port TLS"}))
                assert [note["id"] for note in found] == [port]
                nothing = data(await first.call_tool("memory_search", {"query": "kubernetes"}))
                assert nothing == []
                await first.read_resource(f"anamnesis://note/{port}")  # found, then read
                await first.read_resource(f"anamnesis://note/{pool}")  # never found
                with pytest.raises(MCPError):  # no such note: nothing recorded
                    await first.read_resource("anamnesis://note/01ARZ3NDEKTSV4RRFFQ69G5FAV")
            async with client(folder, stderr, name="claude-code") as second:
                await second.read_resource(f"anamnesis://note/{port}")  # another session

    anyio.run(sessions)
    recorded = runs(isolated_home)
    codex, claude = agent_of_client("codex-mcp-client"), agent_of_client("claude-code")
    first_session = recorded[0][3]
    second_session = recorded[-1][3]
    assert first_session.startswith("mcp-") and second_session != first_session
    assert recorded == [
        ("searched", P, codex, first_session, port, 0),
        ("searched", P, codex, first_session, "", 0),  # a search that found nothing
        ("fetched", P, codex, first_session, port, 1),  # returned by its search before
        ("fetched", P, codex, first_session, pool, 0),
        ("fetched", P, claude, second_session, port, 0),  # not this session's search
    ]
    with MemoryStore(isolated_home) as store:
        counts = store.usage.counts(1)
    assert counts.fetched_after_search == 1
    assert counts.runs["searched"].to_dict() == {"runs": 2, "found": 1, "notes": 1, "rate": 0.5}
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


def test_a_usage_file_that_cannot_be_used_never_fails_a_search(
    store: MemoryStore, notes: dict[str, str]
) -> None:
    store.layout.usage_path.mkdir()  # no SQLite file can be opened here
    server = build_server(store, project=P)

    async def scenario() -> tuple[list[dict[str, Any]], str]:
        async with Client(server) as mcp:
            found = data(await mcp.call_tool("memory_search", {"query": "pool size"}))
            (content,) = (await mcp.read_resource(f"anamnesis://note/{notes['pool']}")).contents
        return found, getattr(content, "text", "")

    try:
        found, text = anyio.run(scenario)
    finally:
        server.embedding.stop()
    assert [note["id"] for note in found] == [notes["pool"]]
    assert "20 per worker" in text
    logged = (store.layout.logs_dir / "usage.log").read_text()
    assert "record searched" in logged and "record fetched" in logged
    assert not (store.layout.logs_dir / "mcp.log").exists()
