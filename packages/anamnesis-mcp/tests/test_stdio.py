"""The server as Claude Code runs it: a real process over stdio, driven by the SDK client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from anamnesis_testsupport.unpushed import RESOLVED_SECRET, TYPED_SECRET, leave_resolve_unpushed
from dulwich.objects import Blob
from dulwich.repo import Repo
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import Implementation

from anamnesis.store import MemoryStore
from mcp_testing import INTERNALS, bare_remote, data, error_text, server_command, text_of


def params(home: Path, command: list[str] | None = None) -> StdioServerParameters:
    command = command or server_command()
    env = {**os.environ, "ANAMNESIS_HOME": str(home), "ANAMNESIS_MACHINE_ID": "stdio-box"}
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


# What Claude Code says it is when it connects (its clientInfo).
CLAUDE_CODE = Implementation(name="claude-code", title="Claude Code", version="2.1.197")


def client(
    home: Path,
    stderr: Any,
    mode: str = "legacy",
    command: list[str] | None = None,
    client_info: Implementation | None = None,
) -> Client:
    return Client(stdio_client(params(home, command), errlog=stderr), mode=mode,
                  read_timeout_seconds=60, client_info=client_info)  # fmt: skip


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_session_over_stdio(isolated_home: Path, tmp_path: Path, mode: str) -> None:
    """Initialize (the handshake Claude Code uses, and discovery), list, write, search, status."""

    async def session() -> dict[str, Any]:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(isolated_home, stderr, mode, client_info=CLAUDE_CODE) as mcp:
                tools = sorted(tool.name for tool in (await mcp.list_tools()).tools)
                written = data(await mcp.call_tool("memory_write", {
                    "type": "semantic", "title": "Staging DB host",
                    "body": "staging uses db-stg-2; password=hunter2hunter2", "project": "acme",
                }))  # fmt: skip
                found = data(await mcp.call_tool("memory_search", {"query": "staging db"}))
                status = data(await mcp.call_tool("memory_status", {}))
                bad = await mcp.call_tool("memory_search", {"query": "db", "k": 99})
        return {"tools": tools, "written": written, "found": found, "status": status, "bad": bad}

    out = anyio.run(session)
    assert out["tools"] == [
        "memory_list", "memory_search", "memory_status", "memory_sync", "memory_write",
    ]  # fmt: skip
    assert out["written"]["machine_id"] == "stdio-box"
    assert out["written"]["prov_agent"] == "claude-code"  # the client's name, mapped
    assert "hunter2hunter2" not in json.dumps(out["written"])
    assert [hit["id"] for hit in out["found"]] == [out["written"]["id"]]
    assert out["status"]["total"] == 1
    assert out["bad"].is_error and "from 1 to 50" in error_text(out["bad"])
    stderr = (tmp_path / "stderr.txt").read_text()
    assert "Traceback" not in stderr
    with MemoryStore(isolated_home) as store:  # the note is a real file in the real store
        assert store.get(out["written"]["id"]).project == "acme"


WRITE = {"type": "semantic", "title": "t", "body": "b"}
HOSTILE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("memory_search", {"query": "x", "k": "\u00b2"}),
    ("memory_search", {"query": "x", "k": "9" * 5000}),
    ("memory_search", {"query": "x", "k": 10**30}),
    ("memory_search", {"query": "x", "k": 1e300}),
    ("memory_search", {"query": "x" * 5000}),
    ("memory_search", {"query": "x", "project": {"like": "%"}}),
    ("memory_list", {"project": "a\x00b"}),
    ("memory_list", {"type": [[["semantic"]]]}),
    ("memory_write", {**WRITE, "title": "\x00"}),
    ("memory_write", {**WRITE, "body": "nul \x00 here"}),
    ("memory_write", {**WRITE, "project": "a\tb"}),
    ("memory_write", {**WRITE, "tags": [["a"]]}),
    ("memory_write", {**WRITE, "\u00e9": 1}),
    ("memory_sync", {"force": "true"}),
]


def test_hostile_arguments_over_stdio_get_our_messages(isolated_home: Path, tmp_path: Path) -> None:
    """What reaches a real server as JSON: each refused in words, nothing crashes or is written."""

    async def session() -> list[Any]:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(isolated_home, stderr) as mcp:
                return [await mcp.call_tool(tool, args) for tool, args in HOSTILE_CALLS]

    for (tool, _), result in zip(HOSTILE_CALLS, anyio.run(session), strict=True):
        text = error_text(result)
        assert result.is_error, (tool, text)
        assert text.startswith(f"invalid argument for {tool}: "), text
        for internal in INTERNALS:
            assert internal not in text
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    assert not (isolated_home / "logs" / "mcp.log").exists()
    assert list(isolated_home.rglob("*.md")) == []


def test_fifty_concurrent_searches_while_writes_happen(isolated_home: Path, tmp_path: Path) -> None:
    with MemoryStore(isolated_home) as store:
        for index in range(200):
            store.write(type="procedural", title=f"runbook {index}",
                        body=f"restart the worker pool {index}; check queue depth")  # fmt: skip
    errors: list[str] = []
    counts = {"search": 0, "write": 0}

    async def session() -> None:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(isolated_home, stderr) as mcp:

                async def search(index: int) -> None:
                    result = await mcp.call_tool(
                        "memory_search", {"query": f"worker pool {index}", "k": 5}
                    )
                    if result.is_error or len(json.loads(text_of(result))) != 5:
                        errors.append(error_text(result))
                    counts["search"] += 1

                async def write(index: int) -> None:
                    result = await mcp.call_tool("memory_write", {
                        "type": "episodic", "title": f"restart {index}", "body": "pool restarted",
                    })  # fmt: skip
                    if result.is_error:
                        errors.append(error_text(result))
                    counts["write"] += 1

                async with anyio.create_task_group() as group:
                    for index in range(50):
                        group.start_soon(search, index)
                        if index % 5 == 0:
                            group.start_soon(write, index)

    anyio.run(session)
    assert errors == []
    assert counts == {"search": 50, "write": 10}
    with MemoryStore(isolated_home) as store:
        assert store.count() == 210


def test_python_dash_m_serves_too(isolated_home: Path, tmp_path: Path) -> None:
    async def session() -> list[str]:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            command = [sys.executable, "-m", "anamnesis.mcp"]
            async with client(isolated_home, stderr, command=command) as mcp:
                return [tool.name for tool in (await mcp.list_tools()).tools]

    assert len(anyio.run(session)) == 5


def test_a_store_that_cannot_be_opened_is_one_line_on_stderr(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    env = {**os.environ, "ANAMNESIS_HOME": str(not_a_folder)}
    done = subprocess.run(
        server_command(), input=b"", capture_output=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 1
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1, lines
    assert "cannot open the memory store" in lines[0] and "ANAMNESIS_HOME" in lines[0]
    assert done.stdout == b""  # nothing that a client would misread as protocol


def test_the_server_exits_when_its_client_goes_away(isolated_home: Path) -> None:
    env = {**os.environ, "ANAMNESIS_HOME": str(isolated_home)}
    done = subprocess.run(
        server_command(), input=b"", capture_output=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0
    assert b"Traceback" not in done.stderr


def test_the_sync_tool_pushes_nothing_unmasked(isolated_home: Path, tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    # A resolve committed here but not pushed (the remote was busy), a secret typed into
    # the conflicting note before it; then a second secret typed into another note.
    leave_resolve_unpushed(isolated_home, tmp_path / "desktop", remote)
    with MemoryStore(isolated_home) as store:
        typed = store.path_of(store.write(type="semantic", title="Staging", body="notes"))
    typed.write_text(typed.read_text() + f"\nstaging token {TYPED_SECRET}\n")

    async def session() -> Any:
        with (tmp_path / "stderr.txt").open("w") as stderr:
            async with client(isolated_home, stderr) as mcp:
                return data(await mcp.call_tool("memory_sync", {}))

    outcome = anyio.run(session)
    assert outcome["pushed"] is True, outcome
    assert outcome["masked"] == [str(typed)]
    with Repo(str(remote)) as repo:  # every blob, history included
        objects = repo.object_store
        blobs = [blob.data for sha in objects if isinstance(blob := objects[sha], Blob)]
    for secret in (RESOLVED_SECRET, TYPED_SECRET):
        assert [b[:60] for b in blobs if secret.encode() in b] == []
