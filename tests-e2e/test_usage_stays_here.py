"""What a machine's sessions used stays on that machine: laptop's SessionStart and prompt
hooks (as `init` installed them) and its MCP server record usage; after laptop syncs to the
bare remote and desktop syncs from it, no object of the remote holds any of it, and
desktop's `anamnesis stats` knows nothing of laptop's sessions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
from anamnesis_testsupport.repos import every_object, paths_ever_committed
from mcp.client import Client
from mcp.client.stdio import stdio_client

from e2e_support import (
    TIMEOUT_S,
    World,
    project_checkout,
    tool_data,
)

SESSION = "usage-e2e-session-5c1d"  # a name only the usage log ever holds


def test_usage_is_recorded_here_and_never_reaches_the_remote(world: World, tmp_path: Path) -> None:
    laptop, desktop = world.laptop, world.desktop
    api = project_checkout(laptop.user / "code" / "api", "git@github.com:acme/api.git")
    pool = laptop.write("Postgres pool size", "each worker keeps 20 postgres connections",
                        "--project", "github.com/acme/api")  # fmt: skip
    laptop.write("Redis eviction", "allkeys-lru on the cache cluster", "--project", "global")
    assert "Postgres pool size" in laptop.inject(api)
    prompt = {"session_id": SESSION, "cwd": str(api), "hook_event_name": "UserPromptSubmit",
              "prompt": "how many postgres connections does each worker keep?"}  # fmt: skip
    laptop.hook("UserPromptSubmit", prompt)
    laptop.hook("UserPromptSubmit", {**prompt, "prompt": "what colour is the spring banner?"})

    async def searched() -> list[Any]:
        with (tmp_path / "server-stderr.txt").open("w") as errlog:
            transport = stdio_client(laptop.mcp_server(), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=TIMEOUT_S) as mcp:
                hits = tool_data(await mcp.call_tool("memory_search", {"query": "redis"}))
                await mcp.read_resource(f"anamnesis://note/{hits[0]['id']}")
        return list(hits)

    assert [hit["title"] for hit in anyio.run(searched)] == ["Redis eviction"]
    stats = laptop.ok("stats", "--json").json()
    runs = {event: count["runs"] for event, count in stats["events"].items()}
    assert runs == {"injected": 1, "recalled": 2, "searched": 1, "fetched": 1}, stats
    assert stats["fetched_after_search"] == 1
    usage_db = laptop.home / "usage.db"
    assert usage_db.is_file() and SESSION.encode() in usage_db.read_bytes()

    assert laptop.sync()["pushed"] is True
    desktop.sync()
    objects = every_object(world.remote)
    assert any(pool["id"].encode() in raw for _kind, raw in objects)  # the walk sees notes
    for kind, raw in objects:
        assert SESSION.encode() not in raw, kind
        assert b"SQLite format 3" not in raw, kind  # no database of any kind
    paths = paths_ever_committed(world.remote)
    assert paths and not [path for path in paths if "usage" in path or path.endswith(".db")]

    desktop_stats = desktop.ok("stats", "--json").json()
    assert all(count["runs"] == 0 for count in desktop_stats["events"].values())
    assert desktop_stats["most_used"] == []
    assert not (desktop.home / "usage.db").exists()
    assert json.dumps(desktop_stats).count(pool["id"]) == 0
