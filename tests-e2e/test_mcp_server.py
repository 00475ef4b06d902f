"""`anamnesis serve` on desktop, driven over stdio by the MCP SDK's client (scenario 3)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import stdio_client

from e2e_support import TIMEOUT_S, World, tool_data


def test_memory_sync_pulls_a_laptop_note_that_memory_search_finds_at_once(
    world: World, tmp_path: Path
) -> None:
    laptop, desktop = world.laptop, world.desktop
    # The server as Claude Code starts it from init's registration: only ANAMNESIS_HOME is
    # passed, so it must take the machine id and the remote from the store's config.
    server = desktop.mcp_server()
    assert server.command == str(Path(laptop.env["PATH"]) / "anamnesis")
    assert server.args == ["serve"]
    assert "ANAMNESIS_MACHINE_ID" not in (server.env or {})
    stderr = tmp_path / "server-stderr.txt"

    def laptop_writes() -> Any:
        note = laptop.write("Flaky checkout test", "test_checkout flakes when redis is cold")
        assert laptop.sync()["pushed"] is True
        return note

    async def session() -> dict[str, Any]:
        with stderr.open("w") as errlog:
            transport = stdio_client(server, errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=TIMEOUT_S) as mcp:
                before = tool_data(await mcp.call_tool("memory_search", {"query": "redis"}))
                # The server stays up while laptop writes and pushes, as in a real session.
                note = await anyio.to_thread.run_sync(laptop_writes)
                synced = tool_data(await mcp.call_tool("memory_sync", {}))
                found = tool_data(await mcp.call_tool("memory_search", {"query": "redis cold"}))
                status = tool_data(await mcp.call_tool("memory_status", {}))
                written = tool_data(await mcp.call_tool("memory_write", {
                    "type": "semantic", "title": "Warm redis first",
                    "body": "run make warm-cache before the checkout tests",
                }))  # fmt: skip
                pushed = tool_data(await mcp.call_tool("memory_sync", {}))
        return {"before": before, "note": note, "synced": synced, "found": found,
                "status": status, "written": written, "pushed": pushed}  # fmt: skip

    out = anyio.run(session)
    assert out["before"] == []
    assert out["synced"]["pulled"] >= 1
    assert out["synced"]["indexed"] == 1
    assert out["synced"]["conflicted"] is False
    assert [hit["id"] for hit in out["found"]] == [out["note"]["id"]]
    assert out["found"][0]["machine_id"] == "laptop"
    assert out["found"][0]["title"] == "Flaky checkout test"
    assert out["status"]["total"] == 1
    assert out["status"]["sync"]["remote"] == str(world.remote)  # from config.json alone
    # A note written through the server is desktop's and travels back to laptop.
    assert out["written"]["machine_id"] == "desktop"
    assert out["pushed"]["pushed"] is True
    laptop.sync()
    hits = laptop.search("warm-cache")
    assert [hit["id"] for hit in hits] == [out["written"]["id"]]
    assert hits[0]["machine_id"] == "desktop"
    assert "Traceback" not in stderr.read_text()
