"""Requests the SDK's JSON parser refuses still get an answer, over a real stdio session.

Each hostile line goes to a real server process as raw bytes. The request must be answered
(a JSON-RPC error, or a tool error in our words), and the same session must then serve an
ordinary memory_search: nothing is dropped, nothing crashes, stdout carries only protocol.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_types import INTERNAL_ERROR, JSONRPCError

from anamnesis.mcp.arguments import TOOL_ARGUMENTS
from anamnesis.mcp.stdio import screen
from mcp_testing import INTERNALS
from raw_stdio import RawSession, call_line

PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS = -32700, -32600, -32602
TS_ORDER_TAIL = b',"jsonrpc":"2.0","id":2}'  # the TypeScript SDK writes the id last


def deep(levels: int) -> bytes:
    """A list nested ``levels`` deep (json.dumps itself would hit the recursion limit)."""
    return b"[" * levels + b"]" * levels


def deep_call(levels: int, name: bytes = b"a") -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search",'
        b'"arguments":{"' + name + b'":' + deep(levels) + b"}}}"
    )


@pytest.fixture
def session(isolated_home: Path, tmp_path: Path) -> Iterator[RawSession]:
    with RawSession(isolated_home, tmp_path / "stderr.txt") as opened:
        yield opened
        opened.search_still_works()
    stderr = opened.stderr_text()
    assert "Traceback" not in stderr, stderr[-3000:]
    assert opened.process.returncode == 0, stderr[-3000:]
    assert not (isolated_home / "logs" / "mcp.log").exists()


def tool_error(reply: dict[str, Any], request_id: object = 1) -> str:
    """The text of a tool error answering ``request_id``; checks the shape on the way."""
    assert reply["id"] == request_id, reply
    result = reply["result"]
    assert result["isError"] is True, reply
    text: str = result["content"][0]["text"]
    text.encode("utf-8")  # valid text: a lone surrogate echoed back would break the reply
    for internal in INTERNALS:
        assert internal not in text, text
    return text


def rpc_error(reply: dict[str, Any], code: int, request_id: object = 1) -> str:
    """The message of a JSON-RPC error answering ``request_id``."""
    assert reply["id"] == request_id, reply
    assert reply["error"]["code"] == code, reply
    message: str = reply["error"]["message"]
    assert "Traceback" not in message and "pydantic" not in message, message
    return message


# A lone surrogate is valid JSON text but not Unicode: pydantic-core refuses the whole line.


def test_a_lone_surrogate_in_an_argument_is_our_argument_error(session: RawSession) -> None:
    text = tool_error(session.request(call_line(1, "memory_search", {"query": "ab\ud800cd"})))
    assert text.startswith("invalid argument for memory_search: query: has an invalid "
                           "character at position 2 (a lone surrogate, "), text  # fmt: skip
    assert "send the character it was meant to be" in text


def test_a_lone_surrogate_in_a_written_tag_is_our_argument_error(session: RawSession) -> None:
    arguments = {"type": "semantic", "title": "t", "body": "b", "tags": ["ok", "x\udfff"]}
    text = tool_error(session.request(call_line(1, "memory_write", arguments)))
    assert text.startswith("invalid argument for memory_write: tags: has an invalid"), text


def test_a_lone_surrogate_in_an_argument_name_is_an_unknown_argument(session: RawSession) -> None:
    text = tool_error(session.request(call_line(1, "memory_search", {"q\ud800": "x"})))
    assert text.startswith("invalid argument for memory_search: "), text
    assert "unknown argument 'q\\ud800'; memory_search takes query" in text


def test_a_lone_surrogate_in_the_tool_name_is_an_unknown_tool(session: RawSession) -> None:
    text = tool_error(session.request(call_line(1, "memory_se\ud800rch", {"query": "x"})))
    assert text.startswith("Unknown tool: 'memory_se\\ud800rch'"), text
    assert "memory_search" in text.split(";", 1)[1]


def test_a_lone_surrogate_in_params_outside_the_arguments(session: RawSession) -> None:
    line = json.dumps({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "memory_search", "arguments": {"query": "x"},
                   "_meta": {"progressToken": "p\ud800"}},
    }).encode()  # fmt: skip
    message = rpc_error(session.request(line), INVALID_PARAMS)
    assert "params._meta.progressToken" in message and "lone surrogate" in message, message


def test_a_lone_surrogate_in_the_method_or_the_id(session: RawSession) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/li\ud800st"}).encode()
    message = rpc_error(session.request(line), INVALID_REQUEST)
    assert "method" in message and "lone surrogate" in message, message
    # An id that cannot be sent back: JSON-RPC answers with a null id.
    line = json.dumps({"jsonrpc": "2.0", "id": "a\ud800", "method": "tools/list"}).encode()
    message = rpc_error(session.request(line), INVALID_REQUEST, request_id=None)
    assert "id" in message, message


# Nesting past pydantic-core's limit (about 200 levels) is refused before any validation.


@pytest.mark.parametrize("levels", [10_000, 100_000])
def test_arguments_nested_far_too_deep_are_our_argument_error(
    session: RawSession, levels: int
) -> None:
    text = tool_error(session.request(deep_call(levels)))
    assert text.startswith("invalid argument for memory_search: "), text
    assert "unknown argument a; memory_search takes query" in text, text
    text = tool_error(session.request(deep_call(levels, name=b"query")))
    assert text.startswith("invalid argument for memory_search: query: must be text"), text


def test_params_nested_far_too_deep_outside_the_arguments(session: RawSession) -> None:
    line = (
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"x":'
        + deep(10_000)
        + b"}}}"
    )
    message = rpc_error(session.request(line), INVALID_PARAMS)
    assert "params._meta.x" in message and "nested more than 100 levels" in message, message


# Bytes and values that are not one JSON-RPC message.


def test_invalid_utf8_is_a_parse_error_naming_the_byte(session: RawSession) -> None:
    line = call_line(1, "memory_search", {"query": "caf\u00e9"}).replace(b"\\u00e9", b"\xe9")
    message = rpc_error(session.request(line), PARSE_ERROR)
    assert "not valid UTF-8" in message and "0xe9" in message, message


def test_values_that_are_not_a_message_are_invalid_requests(session: RawSession) -> None:
    for line in (b"42", b'"tools/list"', b"null", b"[]"):
        rpc_error(session.request(line), INVALID_REQUEST, request_id=None)
    assert "JSON" in rpc_error(session.request(b"hello"), PARSE_ERROR, request_id=None)
    # A truncated request still has its id at the start: the answer carries it.
    rpc_error(session.request(call_line(5, "memory_search", {"query": "x"})[:-3]),
              PARSE_ERROR, request_id=5)  # fmt: skip


def test_a_batch_gets_one_error_per_request_in_it(session: RawSession) -> None:
    batch = b'[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","method":"x"},' \
            b'{"jsonrpc":"2.0","id":"eight","method":"tools/list"}]'  # fmt: skip
    session.send(batch)
    answered = [session.reply(), session.reply()]
    assert [reply["id"] for reply in answered] == [7, "eight"]
    for reply in answered:
        assert "one JSON-RPC message per line" in rpc_error(reply, INVALID_REQUEST, reply["id"])


def test_a_line_over_the_size_limit_is_refused_with_its_id(session: RawSession) -> None:
    # Several megabytes within the limit still reach the tool and get its own message.
    text = tool_error(session.request(call_line(1, "memory_search", {"query": "x" * 5_000_000})))
    assert "at most 4,000 characters" in text, text
    huge = "x" * 9_000_000
    message = rpc_error(session.request(call_line(1, "memory_search", {"query": huge})),
                        INVALID_REQUEST)  # fmt: skip
    assert "over the 8 MB limit" in message and "1 MB" in message, message
    ts_order = b'{"method":"tools/call","params":{"name":"memory_write","arguments":{"body":"'
    rpc_error(session.request(ts_order + huge.encode() + b'"}}' + TS_ORDER_TAIL),
              INVALID_REQUEST, request_id=2)  # fmt: skip


def test_a_byte_order_mark_before_a_request_is_ignored(session: RawSession) -> None:
    reply = session.request(b"\xef\xbb\xbf" + call_line(3, "memory_search", {"query": "x"}))
    assert reply["id"] == 3 and reply["result"]["isError"] is False, reply


def test_unreadable_notifications_get_no_answer_and_break_nothing(session: RawSession) -> None:
    session.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/x\ud800"}).encode())
    session.send(b'{"jsonrpc":"2.0","method":"notifications/y","params":{"a":' + deep(500) + b"}}")
    session.send(b"")  # a blank line is no message at all
    session.assert_silent()
    # The next answer is the next request's: nothing was sent for the lines above.
    text = tool_error(session.request(call_line(1, "memory_search", {"query": "\udc00"})))
    assert text.startswith("invalid argument for memory_search: query: "), text


# The screen itself, in-process: any message a client can encode gets its answer.

TEXT = st.text(st.characters(exclude_categories=()), max_size=12)  # lone surrogates too
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
ABSENT = object()
MESSAGES = st.fixed_dictionaries(
    {
        "jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"]),
        "id": st.sampled_from([ABSENT, None, 1.5]) | st.integers() | TEXT,
        "method": st.sampled_from(["tools/call", "tools/list", "ping"]) | TEXT,
        "params": st.fixed_dictionaries(
            {"name": st.sampled_from([*TOOL_ARGUMENTS, "nope"]) | TEXT,
             "arguments": st.dictionaries(st.sampled_from(["query", "k", "tags"]) | TEXT,
                                          VALUES, max_size=3)},
            optional={"_meta": VALUES},
        ) | VALUES,
    }
)  # fmt: skip


@given(message=MESSAGES, nesting=st.sampled_from([0, 0, 150, 250, 5_000]))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_request_the_screen_sees_is_forwarded_or_answered(
    message: dict[str, Any], nesting: int
) -> None:
    message = {key: value for key, value in message.items() if value is not ABSENT}
    arguments = message["params"].get("arguments") if isinstance(message["params"], dict) else 0
    if nesting and isinstance(arguments, dict):  # one argument nested that deep
        arguments["deep"] = "\x00deep"
    line = json.dumps(message).encode()  # escapes lone surrogates, as a client would
    line = line.replace(b'"\\u0000deep"', deep(nesting))
    screened = screen(line)
    for reply in screened.replies:
        reply.model_dump_json(by_alias=True).encode("utf-8")  # what the SDK's writer does
        assert not isinstance(reply, JSONRPCError) or reply.error.code != INTERNAL_ERROR
    request_id = message.get("id")
    usable = (type(request_id) is int) or (
        isinstance(request_id, str) and not any("\ud800" <= c <= "\udfff" for c in request_id)
    )
    if screened.message is not None:  # the SDK parsed it: it answers (or it is a notification)
        assert screened.replies == ()
    elif "id" not in message:  # a notification, or no message at all: never a reply with an id
        assert all(reply.id is None for reply in screened.replies)
    elif usable:
        assert [reply.id for reply in screened.replies] == [request_id]
    else:
        assert [reply.id for reply in screened.replies] == [None]
