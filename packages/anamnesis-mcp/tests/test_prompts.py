"""The prompts, through the SDK's in-memory client: listed with their arguments, rendered
into one user message that sets the agent to work with the tools, and every bad argument
refused with an MCP error that says what to send instead."""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextContent

from anamnesis.mcp import build_server
from anamnesis.mcp.prompts import MAX_TOPIC_CHARS, PROMPTS
from anamnesis.mcp.server import TOOLS, AnamnesisServer
from anamnesis.store import MemoryStore
from mcp_testing import protocol_error

P = "github.com/acme/api"


def get(server: AnamnesisServer, name: str, arguments: dict[str, str] | None) -> str:
    async def scenario() -> Any:
        async with Client(server) as client:
            return await client.get_prompt(name, arguments)

    result = anyio.run(scenario)
    (message,) = result.messages
    assert message.role == "user"
    assert isinstance(message.content, TextContent)
    return message.content.text


def refused(server: AnamnesisServer, name: str, arguments: dict[str, Any] | None) -> MCPError:
    error = protocol_error(server, lambda client: client.get_prompt(name, arguments))
    assert error.code == INVALID_PARAMS
    return error


def test_the_prompts_are_listed_with_their_arguments(store: MemoryStore) -> None:
    async def scenario() -> Any:
        async with Client(build_server(store, project=P)) as client:
            return (await client.list_prompts()).prompts

    listed = {p.name: p for p in anyio.run(scenario)}
    assert list(listed) == ["recall", "save-session"]
    assert [(a.name, a.required) for a in listed["recall"].arguments or []] == [
        ("topic", True), ("project", False),
    ]  # fmt: skip
    assert [(a.name, a.required) for a in listed["save-session"].arguments or []] == [
        ("project", False), ("focus", False),
    ]  # fmt: skip
    for prompt in listed.values():
        assert prompt.title and prompt.description
        assert all(a.description for a in prompt.arguments or [])


def test_recall_searches_before_answering(store: MemoryStore) -> None:
    server = build_server(store, project=P)
    text = get(server, "recall", {"topic": "the deploy script"})
    assert text.startswith("Recall what the memory holds about: the deploy script")
    assert "memory_search" in text and "leave project out" in text
    assert "superseded_by" in text and "not instructions" in text
    scoped = get(server, "recall", {"topic": "deploy", "project": "github.com/acme/web"})
    assert 'project="github.com/acme/web"' in scoped


def test_save_session_searches_then_writes_with_supersedes(store: MemoryStore) -> None:
    text = get(build_server(store, project=P), "save-session", None)
    search, write = text.index("memory_search"), text.index("memory_write")
    assert search < write  # search first
    assert 'supersedes=["' in text and f'project="{P}"' in text  # the server's project
    assert '"procedural"' in text and '"semantic"' in text and 'never "episodic"' in text
    assert "secret" in text
    other = get(build_server(store, project=P), "save-session",
                {"project": "global", "focus": "the release steps"})  # fmt: skip
    assert 'project="global"' in other and "Focus on: the release steps." in other


def test_the_prompts_name_only_tools_the_server_has(store: MemoryStore) -> None:
    server = build_server(store, project=P)
    tools = {spec.function.__name__ for spec in TOOLS}
    for spec in PROMPTS:
        arguments = {a.name: "x" for a in spec.arguments if a.required}
        named = set(re.findall(r"\bmemory_\w+", get(server, spec.name, arguments)))
        assert named and named <= tools, named - tools


def test_what_a_user_typed_is_shown_display_safe(store: MemoryStore) -> None:
    text = get(build_server(store, project=P), "recall", {"topic": "evil \u202e\x1b[2J topic"})
    assert "\u202e" not in text and "\x1b" not in text
    assert "\\u202e" in text


def test_blank_optional_arguments_count_as_not_given(store: MemoryStore) -> None:
    server = build_server(store, project=P)
    text = get(server, "save-session", {"project": "  ", "focus": ""})
    assert f'project="{P}"' in text and "Focus on" not in text


@pytest.mark.parametrize(
    ("name", "arguments", "says"),
    [
        ("recall", None, "topic: is required by recall"),
        ("recall", {"topic": "   "}, "topic: is required by recall"),
        ("recall", {"topic": "x", "limit": "3"}, "limit: is not an argument of recall"),
        ("recall", {"topic": "x" * (MAX_TOPIC_CHARS + 1)}, "say it in a few words"),
        ("recall", {"topic": "nul\x00here"}, "NUL character"),
        ("recall", {"topic": "x", "project": "github.com/*"}, "patterns like"),
        ("recall", {"topic": "x", "project": "a\tb"}, "control characters"),
        ("save-session", {"topic": "x"}, "it takes project, focus"),
        ("remember", {}, "no prompt is named 'remember'; the prompts are recall, save-session"),
    ],
)
def test_a_bad_argument_is_refused_in_words(
    store: MemoryStore, name: str, arguments: dict[str, str] | None, says: str
) -> None:
    error = refused(build_server(store, project=P), name, arguments)
    assert says in error.message, error.message
