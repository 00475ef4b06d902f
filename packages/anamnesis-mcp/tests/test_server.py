"""The registered server, driven through the SDK's in-memory client: the tools, their
schemas and descriptions, results, search modes and the status."""

from __future__ import annotations

import inspect
import json
import re
import threading
from typing import Any, get_args

import anyio
import pytest
from mcp.client import Client
from mcp_types import ToolAnnotations

from anamnesis.mcp import build_server, descriptions
from anamnesis.mcp.server import (
    TOOLS,
    ScopeName,
    TypeName,
)
from anamnesis.store import (
    NOTE_TYPES,
    SCOPES,
    SEARCH_MODES,
    MemoryStore,
)
from mcp_testing import (
    FIVE,
    WRITE,
    call,
    data,
    error_text,
    text_of,
    tools_of,
)


def test_exactly_the_five_tools_are_registered(store: MemoryStore) -> None:
    assert set(anyio.run(tools_of, build_server(store))) == FIVE


def test_the_tools_a_client_sees_are_the_module_level_functions(store: MemoryStore) -> None:
    """Each entry of TOOLS is what a client lists, in order: its name, description and hints,
    and a schema of the function's parameters without the ``state`` build_server binds and
    the ``context`` the SDK passes (memory_write's: the client's name)."""
    seen = list(anyio.run(tools_of, build_server(store)).values())
    assert [tool.name for tool in seen] == [spec.function.__name__ for spec in TOOLS]
    for tool, spec in zip(seen, TOOLS, strict=True):
        assert tool.description == spec.text()
        assert tool.annotations == spec.annotations
        first, *params = inspect.signature(spec.function).parameters.values()
        assert first.name == "state"
        params = [param for param in params if param.annotation != "Context | None"]
        assert list(tool.input_schema["properties"]) == [param.name for param in params]
        required = [param.name for param in params if param.default is inspect.Parameter.empty]
        assert tool.input_schema.get("required", []) == required


def test_each_server_keeps_its_own_state(store: MemoryStore) -> None:
    """The tool functions are shared by every server in the process; what they work on is not."""
    first = build_server(store, machine_id="m-first")
    second = build_server(store, machine_id="m-second")
    assert data(anyio.run(call, first, "memory_write", WRITE))["machine_id"] == "m-first"
    assert data(anyio.run(call, second, "memory_write", WRITE))["machine_id"] == "m-second"
    assert data(anyio.run(call, first, "memory_status", {}))["machine_id"] == "m-first"


# Every hint of every tool, as a client reads it: (readOnly, destructive, idempotent,
# openWorld). None may be left out: the spec's defaults for a missing hint are the cautious
# ones (destructive, open world), which is how Codex reads a missing hint.
HINTS = {
    "memory_search": (True, False, True, False),
    "memory_list": (True, False, True, False),
    "memory_status": (True, False, True, False),
    "memory_write": (False, False, False, False),  # adds a note; supersedes hides, not deletes
    "memory_sync": (False, True, True, True),  # the remote; applies other machines' deletions
}


def codex_asks_first(hints: Any) -> bool:
    """Whether Codex asks the user before a call (its ``requires_mcp_tool_approval``, in
    codex-rs/core/src/mcp_tool_call.rs): a destructive tool always, a read-only one never,
    any other unless it says it is neither destructive nor open world (missing: true)."""
    if hints.destructive_hint is True:
        return True
    if hints.read_only_hint is True:
        return False
    return hints.destructive_hint is not False or hints.open_world_hint is not False


def test_every_tool_states_every_hint(store: MemoryStore) -> None:
    tools = anyio.run(tools_of, build_server(store))
    for name, (read_only, destructive, idempotent, open_world) in HINTS.items():
        hints = tools[name].annotations
        assert (
            hints.read_only_hint,
            hints.destructive_hint,
            hints.idempotent_hint,
            hints.open_world_hint,
        ) == (read_only, destructive, idempotent, open_world), name
        assert hints.title, name  # what a client shows for the tool


def test_codex_asks_before_sync_only(store: MemoryStore) -> None:
    """Searching and writing a note run without a prompt in Codex; a sync (the network, other
    machines' deletions) asks. Claude Code auto-approves by readOnlyHint: the readers."""
    tools = anyio.run(tools_of, build_server(store))
    asks = {name for name, tool in tools.items() if codex_asks_first(tool.annotations)}
    assert asks == {"memory_sync"}
    read_only = {name for name, tool in tools.items() if tool.annotations.read_only_hint}
    assert read_only == {"memory_search", "memory_list", "memory_status"}


def test_the_codex_rule_can_say_yes_to_a_missing_hint() -> None:
    """The rule above fails on a tool that leaves a hint out (the defaults are cautious)."""
    assert codex_asks_first(ToolAnnotations(read_only_hint=False, destructive_hint=False))
    assert codex_asks_first(ToolAnnotations(read_only_hint=False, open_world_hint=False))
    assert not codex_asks_first(ToolAnnotations(read_only_hint=True))


def test_spec_parameters_and_defaults(store: MemoryStore) -> None:
    tools = anyio.run(tools_of, build_server(store))

    def params(name: str) -> dict[str, Any]:
        schema = tools[name].input_schema
        return {
            key: value.get("default", "required") for key, value in schema["properties"].items()
        }

    assert params("memory_search") == {
        "query": "required", "project": None, "type": None, "scope": None, "k": 8, "mode": None,
        "include_superseded": False, "agent": None, "include_expired": False, "as_of": None,
    }  # fmt: skip
    assert params("memory_list") == {"project": None, "type": None, "scope": None, "agent": None}
    assert params("memory_status") == {}
    assert params("memory_write") == {
        "type": "required", "title": "required", "body": "required",
        "project": "global", "tags": None, "scope": "portable", "supersedes": None,
        "valid_until": None, "review_after": None,
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
    assert prop("memory_search", "include_superseded")["type"] == "boolean"
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


def test_text_and_structured_results_agree_and_empty_results_say_so(store: MemoryStore) -> None:
    result = anyio.run(call, build_server(store), "memory_search", {"query": "nothing"})
    assert data(result) == []
    assert text_of(result) == "[]"  # the model sees an explicit empty list


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
    assert "mode='keyword'" in descriptions.search()  # the model is told when to pass it


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


def data_and_notice(result: Any) -> tuple[Any, str]:
    assert not result.is_error and len(result.content) == 2
    return json.loads(text_of(result)), getattr(result.content[1], "text", "")
