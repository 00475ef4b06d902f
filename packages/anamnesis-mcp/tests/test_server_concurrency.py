"""The server under load and alongside sync: worker threads, long listings, two stores on
one remote, a sync already running, concurrent calls."""

from __future__ import annotations

import json
import time
from contextlib import ExitStack
from pathlib import Path

import anyio
from mcp.client import Client

from anamnesis.mcp import build_server, descriptions
from anamnesis.mcp.functions import list_memories
from anamnesis.mcp.server import (
    LIST_MAX_CHARS,
)
from anamnesis.store import (
    MemoryStore,
    write_config,
)
from anamnesis.sync import SYNC_LOCK_FILE, GitSyncBackend, sync_lock
from mcp_testing import (
    WRITE,
    bare_remote,
    call,
    data,
    error_text,
    index_hits,
    text_of,
)


def test_tool_calls_run_on_worker_threads(store: MemoryStore) -> None:
    """A sync stuck waiting for the git lock does not hold up searches meanwhile.

    Were the tools run on the event loop, the waiting sync would block it: no search could
    answer until the sync gave up (after lock_wait_s), and the sync would report "busy".
    """
    store.write(type="semantic", title="deploy", body="deploy with make release")
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="m", lock_wait_s=20)
    server = build_server(store, backend=backend)
    events: list[tuple[str, float, bool]] = []

    async def scenario() -> None:
        async with Client(server) as client:

            async def sync() -> None:
                result = await client.call_tool("memory_sync", {})
                events.append(("sync", time.monotonic(), bool(result.is_error)))

            with ExitStack() as held:
                held.enter_context(sync_lock(store.memory_dir / SYNC_LOCK_FILE, wait_s=1))
                async with anyio.create_task_group() as group:
                    group.start_soon(sync)
                    await anyio.sleep(0.5)  # the sync is now waiting for the lock
                    for _ in range(5):
                        found = await client.call_tool("memory_search", {"query": "deploy"})
                        events.append(("search", time.monotonic(), bool(found.is_error)))
                    released = time.monotonic()
                    held.close()  # let the sync have the lock
            events.append(("released", released, False))

    started = time.monotonic()
    anyio.run(scenario)
    kinds = [kind for kind, _, _ in events]
    assert kinds == ["search"] * 5 + ["sync", "released"], events
    assert not any(failed for _, _, failed in events)  # the sync waited, then succeeded
    searches_done = events[4][1]
    assert searches_done - started < 10  # answered while the sync was still waiting
    assert events[5][1] >= events[6][1]  # and the sync finished only after the release


def test_a_long_listing_is_cut_to_fit_and_says_so(store: MemoryStore) -> None:
    for index in range(60):
        store.write(type="semantic", title=f"{index:03} " + "t" * 400, body="b", project="p")
    server = build_server(store)
    result = anyio.run(call, server, "memory_list", {"project": "p"})
    assert not result.is_error
    shown = json.loads(text_of(result))
    assert 0 < len(shown) < 60
    assert len(text_of(result)) <= LIST_MAX_CHARS
    newest = list_memories(store, project="p")
    assert [n["id"] for n in shown] == [n["id"] for n in newest[: len(shown)]]
    assert result.structured_content == {"result": shown, "total": 60}
    assert f"{LIST_MAX_CHARS:,} characters" in descriptions.LIST  # the model is told up front
    notice = result.content[1]
    assert f"newest {len(shown)} of 60 notes" in getattr(notice, "text", "")
    assert "memory_search" in getattr(notice, "text", "")
    # A listing that fits is whole, in one block.
    small = anyio.run(call, server, "memory_list", {"project": "p", "type": "episodic"})
    assert data(small) == [] and len(small.content) == 1
    assert small.structured_content == {"result": [], "total": 0}


def test_sync_then_search_across_two_stores_sharing_a_bare_remote(tmp_path: Path) -> None:
    remote = str(bare_remote(tmp_path / "remote.git"))
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        laptop_server = build_server(
            laptop,
            machine_id="laptop",
            backend=GitSyncBackend(laptop.memory_dir, remote=remote, machine_id="laptop"),
        )
        desktop_server = build_server(
            desktop,
            machine_id="desktop",
            backend=GitSyncBackend(desktop.memory_dir, remote=remote, machine_id="desktop"),
        )
        written = data(anyio.run(call, laptop_server, "memory_write", WRITE))
        assert data(anyio.run(call, laptop_server, "memory_sync", {}))["pushed"] is True
        synced = data(anyio.run(call, desktop_server, "memory_sync", {"force": True}))
        assert synced["pulled"] >= 1 and synced["indexed"] == 1
        # In the index as soon as the sync returns, not only once a read catches up.
        assert index_hits(desktop.db_path, "esbuild") == [written["id"]]
        found = data(anyio.run(call, desktop_server, "memory_search", {"query": "esbuild"}))
        assert [hit["id"] for hit in found] == [written["id"]]
        assert found[0]["machine_id"] == "laptop"


def test_a_sync_already_running_is_reported_as_busy(store: MemoryStore) -> None:
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="m", lock_wait_s=0.2)
    server = build_server(store, backend=backend)
    anyio.run(call, server, "memory_write", WRITE)
    with sync_lock(store.memory_dir / SYNC_LOCK_FILE, wait_s=1):
        result = anyio.run(call, server, "memory_sync", {})
    assert result.is_error
    assert "sync already running" in error_text(result)
    assert "try again" in error_text(result)
    assert data(anyio.run(call, server, "memory_sync", {}))["head"]  # fine once it is free


def test_no_remote_sync_commits_locally_and_says_remote(store: MemoryStore) -> None:
    server = build_server(store)
    anyio.run(call, server, "memory_write", WRITE)
    outcome = data(anyio.run(call, server, "memory_sync", {}))
    assert outcome["pushed"] is False and outcome["conflicted"] is False
    assert "remote" in outcome["detail"]
    status = data(anyio.run(call, server, "memory_status", {}))
    assert status["sync"]["initialized"] is True
    assert status["sync"]["dirty"] is False
    assert status["sync"]["remote"] is None


def test_a_remote_set_after_the_server_started_takes_effect(
    store: MemoryStore, tmp_path: Path
) -> None:
    server = build_server(store)  # the default git backend, from config
    anyio.run(call, server, "memory_write", WRITE)
    assert data(anyio.run(call, server, "memory_sync", {}))["pushed"] is False
    remote = bare_remote(tmp_path / "later.git")
    write_config({"remote": str(remote)}, store.root)  # what `anamnesis init --remote` does
    assert data(anyio.run(call, server, "memory_sync", {}))["pushed"] is True
    assert data(anyio.run(call, server, "memory_status", {}))["sync"]["remote"] == str(remote)


def test_many_concurrent_calls_against_one_store(store: MemoryStore) -> None:
    server = build_server(store, machine_id="m")
    for index in range(20):
        store.write(type="semantic", title=f"seed {index}", body=f"deploy step {index}")
    failures: list[str] = []

    async def scenario() -> None:
        async with Client(server) as client:

            async def search(index: int) -> None:
                result = await client.call_tool("memory_search", {"query": f"deploy {index}"})
                if result.is_error or not json.loads(text_of(result)):
                    failures.append(f"search {index}: {error_text(result)}")

            async def write(index: int) -> None:
                arguments = {**WRITE, "title": f"concurrent {index}"}
                result = await client.call_tool("memory_write", arguments)
                if result.is_error:
                    failures.append(f"write {index}: {error_text(result)}")

            async with anyio.create_task_group() as group:
                for index in range(50):
                    group.start_soon(search, index)
                    if index % 5 == 0:
                        group.start_soon(write, index)

    anyio.run(scenario)
    assert failures == []
    assert store.count() == 30
