"""The registered server, driven through the SDK's in-memory client."""

from __future__ import annotations

import json
import re
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, get_args

import anyio
import pytest
from mcp.client import Client
from mcp.server.mcpserver.exceptions import ToolError

from anamnesis.mcp import build_server, descriptions
from anamnesis.mcp.arguments import TOOL_ARGUMENTS
from anamnesis.mcp.functions import list_memories
from anamnesis.mcp.server import (
    LIST_MAX_CHARS,
    AnamnesisServer,
    ModeName,
    ScopeName,
    TypeName,
    _ToolGuard,
)
from anamnesis.store import (
    NOTE_TYPES,
    SCOPES,
    SEARCH_MODES,
    InvalidNote,
    MemoryStore,
    write_config,
)
from anamnesis.sync import GitSyncBackend
from anamnesis.sync.lock import sync_lock
from anamnesis.sync.worktree import LOCK_FILE
from mcp_testing import BASE, HOSTILE, INTERNALS, bare_remote, data, error_text, index_hits, text_of

FIVE = {"memory_search", "memory_list", "memory_status", "memory_write", "memory_sync"}
WRITE = {"type": "procedural", "title": "Pin esbuild", "body": "esbuild 0.19 breaks the build"}


async def call(server: AnamnesisServer, tool: str, arguments: dict[str, Any]) -> Any:
    async with Client(server) as client:
        return await client.call_tool(tool, arguments)


async def tools_of(server: AnamnesisServer) -> dict[str, Any]:
    async with Client(server) as client:
        return {tool.name: tool for tool in (await client.list_tools()).tools}


def test_exactly_the_five_tools_are_registered(store: MemoryStore) -> None:
    assert set(anyio.run(tools_of, build_server(store))) == FIVE


def test_annotations_let_claude_code_auto_approve_only_the_readers(store: MemoryStore) -> None:
    tools = anyio.run(tools_of, build_server(store))
    for name in ("memory_search", "memory_list", "memory_status"):
        assert tools[name].annotations.read_only_hint is True
        assert tools[name].annotations.open_world_hint is False
    assert tools["memory_write"].annotations.read_only_hint is False
    assert tools["memory_write"].annotations.destructive_hint is False
    assert tools["memory_sync"].annotations.read_only_hint is False
    assert tools["memory_sync"].annotations.open_world_hint is True


def test_spec_parameters_and_defaults(store: MemoryStore) -> None:
    tools = anyio.run(tools_of, build_server(store))

    def params(name: str) -> dict[str, Any]:
        schema = tools[name].input_schema
        return {
            key: value.get("default", "required") for key, value in schema["properties"].items()
        }

    assert params("memory_search") == {
        "query": "required", "project": None, "type": None, "scope": None, "k": 8, "mode": None,
    }  # fmt: skip
    assert params("memory_list") == {"project": None, "type": None, "scope": None}
    assert params("memory_status") == {}
    assert params("memory_write") == {
        "type": "required", "title": "required", "body": "required",
        "project": "global", "tags": None, "scope": "portable",
    }  # fmt: skip
    assert params("memory_sync") == {"force": False}
    assert "machine_id" not in tools["memory_write"].input_schema["properties"]


def test_instructions_and_descriptions_fit_claude_codes_2kb_cut(store: MemoryStore) -> None:
    server = build_server(store)
    assert server.name == "anamnesis"
    assert server.instructions == descriptions.INSTRUCTIONS
    tools = anyio.run(tools_of, server)
    texts = [server.instructions or ""] + [tool.description or "" for tool in tools.values()]
    for text in texts:
        assert 200 < len(text.encode("utf-8")) < 2048
    assert set(re.findall(r"memory_\w+", server.instructions or "")) >= FIVE
    for name in FIVE:  # each says when to call it, and which other tool fits otherwise
        description = tools[name].description or ""
        assert "Call " in description or "call " in description
        others = set(re.findall(r"memory_\w+", description)) - {name}
        assert others and others <= FIVE, (name, others)


def test_input_schemas_show_the_allowed_values(store: MemoryStore) -> None:
    assert get_args(TypeName) == NOTE_TYPES
    assert get_args(ScopeName) == SCOPES
    assert get_args(ModeName) == SEARCH_MODES
    tools = anyio.run(tools_of, build_server(store))

    def prop(tool: str, name: str) -> dict[str, Any]:
        schema: dict[str, Any] = tools[tool].input_schema["properties"][name]
        for option in schema.get("anyOf", [schema]):  # optional ones: [values, null]
            if option.get("type") != "null":
                return {**schema, **option}
        raise AssertionError(schema)

    for tool in ("memory_search", "memory_list", "memory_write"):
        assert prop(tool, "type")["enum"] == list(NOTE_TYPES)
        assert prop(tool, "scope")["enum"] == list(SCOPES)
    assert (prop("memory_search", "k")["minimum"], prop("memory_search", "k")["maximum"]) == (1, 50)
    assert prop("memory_search", "mode")["enum"] == list(SEARCH_MODES)
    assert prop("memory_search", "mode")["default"] is None  # null: the store's default
    assert prop("memory_write", "tags")["maxItems"] == 50
    assert prop("memory_write", "scope")["default"] == "portable"
    assert prop("memory_sync", "force")["type"] == "boolean"


def test_write_then_search_through_the_client(store: MemoryStore) -> None:
    server = build_server(store, machine_id="m-test")

    async def scenario() -> tuple[Any, Any]:
        async with Client(server) as client:
            written = data(await client.call_tool("memory_write", {**WRITE, "tags": ["js"]}))
            found = data(await client.call_tool("memory_search", {"query": "esbuild"}))
            return written, found

    written, found = anyio.run(scenario)
    assert written["machine_id"] == "m-test"
    assert [hit["id"] for hit in found] == [written["id"]]
    assert found[0]["body"] == WRITE["body"]
    assert store.get(written["id"]).tags == ["js"]


def test_the_bound_machine_id_wins(store: MemoryStore) -> None:
    server = build_server(store, machine_id="m-test")
    spoofed = anyio.run(call, server, "memory_write", {**WRITE, "machine_id": "evil"})
    assert spoofed.is_error
    assert "machine_id" in error_text(spoofed)
    assert store.list() == []
    written = data(anyio.run(call, server, "memory_write", WRITE))
    assert written["machine_id"] == "m-test"
    # Without an explicit id the environment's is bound once, at build time.
    assert data(anyio.run(call, build_server(store), "memory_write", WRITE))["machine_id"] == (
        "env-machine"
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
                held.enter_context(sync_lock(store.memory_dir / LOCK_FILE, wait_s=1))
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
    with sync_lock(store.memory_dir / LOCK_FILE, wait_s=1):
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


def test_text_and_structured_results_agree_and_empty_results_say_so(store: MemoryStore) -> None:
    result = anyio.run(call, build_server(store), "memory_search", {"query": "nothing"})
    assert data(result) == []
    assert text_of(result) == "[]"  # the model sees an explicit empty list


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


def test_a_search_says_which_mode_ran_and_when_vectors_could_not(store: MemoryStore) -> None:
    """No model here: a hybrid search returns the keyword results, and a second text block
    tells the model it searched by keywords only and why. The result is still the list."""
    server = build_server(store)
    anyio.run(call, server, "memory_write", WRITE)

    async def scenario() -> tuple[Any, Any, Any]:
        async with Client(server) as client:
            default = await client.call_tool("memory_search", {"query": "esbuild"})
            keyword = await client.call_tool(
                "memory_search", {"query": "esbuild", "mode": "keyword"}
            )
            hybrid = await client.call_tool("memory_search", {"query": "esbuild", "mode": "hybrid"})
            return default, keyword, hybrid

    with pytest.warns(UserWarning, match="searching by keywords only"):  # the store's, once
        default, keyword, hybrid = anyio.run(scenario)
    assert data(default) == data(keyword)  # the default here is keyword (pinned in conftest)
    assert keyword.structured_content["mode"] == "keyword"
    assert not hybrid.is_error
    assert len(hybrid.content) == 2
    assert json.loads(text_of(hybrid)) == data(keyword)
    notice = getattr(hybrid.content[1], "text", "")
    assert notice.startswith("searched by keywords only: ")
    assert hybrid.structured_content == {"result": data(keyword), "mode": "keyword"}
    assert "mode='keyword'" in descriptions.SEARCH  # the model is told when to pass it


def test_status_reports_the_bound_machine_id_and_vector_search(store: MemoryStore) -> None:
    status = data(anyio.run(call, build_server(store, machine_id="m-test"), "memory_status", {}))
    assert status["machine_id"] == "m-test"
    assert status["vectors"]["available"] is False  # no model in these tests
    assert status["vectors"]["default_mode"] == "keyword"
    assert status["vectors"]["reason"]


def test_no_embedding_thread_when_keyword_search_is_configured(store: MemoryStore) -> None:
    server = build_server(store)
    assert server.embedding.state == "off"
    assert not any(t.name == "anamnesis-embedding" for t in threading.enumerate())
    anyio.run(call, server, "memory_write", WRITE)  # waking it is harmless
    assert server.embedding.state == "off"
    server.embedding.stop()  # and so is stopping it


def test_vectors_asked_for_but_unavailable_are_logged_once_and_searches_still_work(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "hybrid")  # configured, but no model here
    server = build_server(store)
    server.embedding.stop(wait_s=30)  # the thread checks, logs and ends on its own
    assert server.embedding.state == "off"
    log = (store.root / "logs" / "mcp.log").read_text()
    assert log.count("searches use keywords only") == 1
    assert store.embedding_status()["reason"] in log
    with pytest.warns(UserWarning, match="searching by keywords only"):
        result = anyio.run(call, server, "memory_search", {"query": "anything"})
    assert data_and_notice(result)[1].startswith("searched by keywords only: ")


def test_a_store_rule_an_argument_breaks_is_reported_as_that_argument(store: MemoryStore) -> None:
    guard = _ToolGuard(store)
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


def data_and_notice(result: Any) -> tuple[Any, str]:
    assert not result.is_error and len(result.content) == 2
    return json.loads(text_of(result)), getattr(result.content[1], "text", "")
