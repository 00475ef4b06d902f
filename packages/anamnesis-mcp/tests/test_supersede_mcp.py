"""memory_search and supersede chains, through the SDK's in-memory client: replaced notes
hidden unless ``include_superseded``, and every result saying what replaces it."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.client import Client

from anamnesis.mcp import InvalidArgument, build_server, search_memories
from anamnesis.mcp.arguments import check_call
from anamnesis.store import MemoryStore
from mcp_testing import call, data, error_text, tools_of


def port_notes(store: MemoryStore) -> tuple[str, str, str]:
    """Three notes about the API port, each replacing the one before: oldest first."""
    first = store.write(type="semantic", title="API port", body="The API listens on 8080")
    second = store.write(type="semantic", title="API port", body="The API port is 9090 now",
                         supersedes=[first.id])  # fmt: skip
    third = store.write(type="semantic", title="API port", body="The API port is 9443 (TLS)",
                        supersedes=[second.id])  # fmt: skip
    return first.id, second.id, third.id


def test_replaced_notes_are_hidden_unless_asked_for(store: MemoryStore) -> None:
    first, second, third = port_notes(store)
    server = build_server(store, machine_id="m-test")

    async def scenario() -> tuple[Any, Any, Any]:
        async with Client(server) as client:
            default = await client.call_tool("memory_search", {"query": "API port", "k": 10})
            history = await client.call_tool(
                "memory_search", {"query": "API port", "k": 10, "include_superseded": True}
            )
            old_word = await client.call_tool(
                "memory_search", {"query": "8080", "include_superseded": True}
            )
            return default, history, old_word

    default, history, old_word = anyio.run(scenario)
    assert [(h["id"], h["superseded_by"]) for h in data(default)] == [(third, [])]
    found = {h["id"]: h["superseded_by"] for h in data(history)}
    assert found == {first: [second], second: [third], third: []}
    assert all(h["body"] and "score" in h for h in data(history))
    assert history.structured_content is not None
    assert history.structured_content["mode"] == "keyword"
    assert [(h["id"], h["superseded_by"]) for h in data(old_word)] == [(first, [second])]
    assert data(anyio.run(call, server, "memory_search", {"query": "8080"})) == []


def test_the_flag_is_false_by_default_and_takes_false_and_text(store: MemoryStore) -> None:
    first, _second, third = port_notes(store)
    server = build_server(store, machine_id="m-test")
    for value in (False, "false", " False ", None):  # null: not given
        arguments = {"query": "8080 9443", "include_superseded": value}
        shown = data(anyio.run(call, server, "memory_search", arguments))
        assert [h["id"] for h in shown] == [third], value
    for value in ("true", "TRUE"):
        arguments = {"query": "8080", "include_superseded": value}
        shown = data(anyio.run(call, server, "memory_search", arguments))
        assert [h["id"] for h in shown] == [first], value


@pytest.mark.parametrize("value", ["yes", 1, 0, [True], {"on": True}, "maybe"])
def test_a_wrong_flag_is_refused_in_words_a_model_can_use(
    store: MemoryStore, value: object
) -> None:
    port_notes(store)
    result = anyio.run(call, build_server(store), "memory_search",
                       {"query": "API port", "include_superseded": value})  # fmt: skip
    assert result.is_error
    text = error_text(result)
    assert text.startswith("invalid argument for memory_search: include_superseded: "), text
    assert "true or false" in text and "pydantic" not in text
    with pytest.raises(InvalidArgument) as caught:
        search_memories(
            store, **check_call("memory_search", {"query": "API port", "include_superseded": value})
        )
    assert caught.value.name == "include_superseded"


def test_the_schema_and_description_tell_the_model_about_the_history(store: MemoryStore) -> None:
    tool = anyio.run(tools_of, build_server(store))["memory_search"]
    flag = tool.input_schema["properties"]["include_superseded"]
    assert flag["type"] == "boolean" and flag["default"] is False
    assert "superseded_by" in flag["description"]
    assert "include_superseded" not in tool.input_schema.get("required", [])
    description = tool.description or ""
    assert "include_superseded=true" in description and "superseded_by" in description


def test_the_pure_function_matches_the_tool(store: MemoryStore) -> None:
    first, second, third = port_notes(store)
    hits = search_memories(store, query="API port", k=10, include_superseded=True)
    assert {h["id"]: h["superseded_by"] for h in hits} == {
        first: [second], second: [third], third: []
    }  # fmt: skip
    current = search_memories(store, query="API port", k=10)
    assert [(h["id"], h["superseded_by"]) for h in current] == [(third, [])]
    tool = data(anyio.run(call, build_server(store), "memory_search",
                          {"query": "API port", "k": 10, "include_superseded": True}))  # fmt: skip
    assert tool == list(hits)


def test_memory_write_supersedes_a_note_which_searches_then_hide(store: MemoryStore) -> None:
    old = store.write(type="semantic", title="Deploy port", body="deploys go to port 8080")
    server = build_server(store, machine_id="m-test")
    written = data(anyio.run(call, server, "memory_write", {
        "type": "semantic", "title": "Deploy port", "body": "deploys go to port 9443 now",
        "supersedes": [old.id.lower()],  # the intent is plain: ids are upper case
    }))  # fmt: skip
    assert written["supersedes"] == [old.id]
    assert store.get(old.id).body == "deploys go to port 8080"  # kept, not rewritten
    hits = data(anyio.run(call, server, "memory_search", {"query": "deploys port"}))
    assert [hit["id"] for hit in hits] == [written["id"]]
    history = data(anyio.run(call, server, "memory_search",
                             {"query": "deploys port", "include_superseded": True}))  # fmt: skip
    assert {hit["id"]: hit["superseded_by"] for hit in history} == {
        old.id: [written["id"]], written["id"]: []
    }  # fmt: skip


@pytest.mark.parametrize(
    ("supersedes", "says"),
    [
        (["01ARZ3NDEKTSV4RRFFQ69G5FAV"], "no note has the id 01ARZ3NDEKTSV4RRFFQ69G5FAV"),
        (["not-an-id"], "every item must be a note id"),
        ([["nested"]], "every item must be a note id"),
        ({"id": "x"}, "must be a list of note ids"),
        (7, "must be a list of note ids"),
    ],
)
def test_a_wrong_supersedes_is_refused_and_writes_nothing(
    store: MemoryStore, supersedes: object, says: str
) -> None:
    result = anyio.run(call, build_server(store), "memory_write", {
        "type": "semantic", "title": "t", "body": "b", "supersedes": supersedes,
    })  # fmt: skip
    assert result.is_error
    text = error_text(result)
    # An id that names no note is the store's to say, from inside the tool: the SDK puts
    # "Error executing tool memory_write: " before that one, as before every store rule.
    assert "invalid argument for memory_write: supersedes: " in text, text
    assert says in text
    assert store.count() == 0


def test_the_write_schema_offers_supersedes(store: MemoryStore) -> None:
    tool = anyio.run(tools_of, build_server(store))["memory_write"]
    field = tool.input_schema["properties"]["supersedes"]
    assert "memory_search" in field["description"]
    assert "supersedes" in (tool.description or "")
