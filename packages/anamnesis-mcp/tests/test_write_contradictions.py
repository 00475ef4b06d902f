"""memory_write's reply names the live notes a new note may contradict, through the SDK's
client against the server (in memory, and the real server process over stdio); and the
tool's description tells the model to pass supersedes when a note replaces another."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from anamnesis.mcp import build_server, write_memory
from anamnesis.store import MemoryStore
from mcp_testing import call, data, server_command, text_of, tools_of

WEB = "github.com/acme/web"
OLD: dict[str, Any] = {"type": "semantic", "title": "Dev server port", "project": WEB,
       "body": "The dev server listens on port 3000."}  # fmt: skip
NEW: dict[str, Any] = {**OLD, "body": "The dev server listens on port 5173."}


def test_the_reply_names_the_notes_a_new_note_may_contradict(store: MemoryStore) -> None:
    old = store.write(**OLD)
    server = build_server(store, machine_id="m-test")
    written = data(anyio.run(call, server, "memory_write", NEW))
    (entry,) = written["possible_contradictions"]
    assert set(entry) == {"id", "title", "differs"}
    assert (entry["id"], entry["title"]) == (old.id, "Dev server port")
    assert any(d["old"] == "3000" and d["new"] == "5173" for d in entry["differs"])
    assert all(set(d) == {"kind", "subject", "old", "new"} for d in entry["differs"])
    # The plain function says the same (the tool is a thin wrapper over it).
    again = write_memory(store, **{**NEW, "body": "The dev server listens on port 8080."})
    assert {e["id"] for e in again["possible_contradictions"]} == {old.id, written["id"]}


def test_a_note_that_supersedes_the_old_one_contradicts_nothing(store: MemoryStore) -> None:
    old = store.write(**OLD)
    server = build_server(store, machine_id="m-test")
    written = data(anyio.run(call, server, "memory_write", {**NEW, "supersedes": [old.id]}))
    assert written["possible_contradictions"] == []
    unrelated = data(anyio.run(call, server, "memory_write", {
        "type": "procedural", "title": "Run the tests", "body": "uv run pytest -q",
    }))  # fmt: skip
    assert unrelated["possible_contradictions"] == []


def test_the_description_tells_the_model_to_pass_supersedes(store: MemoryStore) -> None:
    tool = anyio.run(tools_of, build_server(store))["memory_write"]
    description = " ".join((tool.description or "").split())
    assert "pass that note's id in supersedes" in description
    assert "possible_contradictions" in description
    field = tool.input_schema["properties"]["supersedes"]["description"]
    assert "whenever the new note corrects or updates an old one" in field
    assert len((tool.description or "").encode("utf-8")) < 2048  # Claude Code's cut


def test_the_real_server_process_replies_with_them(isolated_home: Path, tmp_path: Path) -> None:
    with MemoryStore(isolated_home) as store:
        old = store.write(**OLD)
    command = server_command()
    params = StdioServerParameters(
        command=command[0], args=command[1:], env=dict(os.environ), cwd=tmp_path
    )

    async def session() -> Any:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with Client(
                stdio_client(params, errlog=stderr), mode="legacy", read_timeout_seconds=60
            ) as mcp:
                return await mcp.call_tool("memory_write", NEW)

    result = anyio.run(session)
    assert not result.is_error, text_of(result)
    written = data(result)
    assert [e["id"] for e in written["possible_contradictions"]] == [old.id]
    assert written["machine_id"] == "env-machine"
