"""Answers for the lines the SDK's parser refuses, so that every request gets one.

The SDK's stdio transport drops, without a reply, any line pydantic-core cannot parse into
a JSON-RPC message; the client then waits for its timeout. :func:`answer` reads such a line
leniently (:mod:`.salvage`) and says what is wrong to whoever can fix it:

- the client, as a JSON-RPC error, when the message itself is broken: not UTF-8 or not JSON
  (-32700); not one request object, or an id or method that cannot be read (-32600); params
  that cannot be read outside a tool's arguments (-32602);
- the model, as a tool error worded like the checks in :mod:`.arguments`, when a tools/call's
  arguments are the problem (a lone surrogate, nesting far too deep).

A notification or a response gets no reply (JSON-RPC allows none); the reason is logged to
stderr. Everything sent back is valid UTF-8: a lone surrogate is only ever shown escaped.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCResponse,
    TextContent,
)
from pydantic import ValidationError

from anamnesis.mcp.arguments import (
    TOOL_ARGUMENTS,
    InvalidArgument,
    _kind,
    _label,
    _shown,
    check_call,
)
from anamnesis.mcp.salvage import Flaw, Path, find_id, has_surrogate, loads_leniently, mend
from anamnesis.store import NoteLimits

log = logging.getLogger("anamnesis.mcp")

RequestId = int | str
Reply = JSONRPCError | JSONRPCResponse
ONE_PER_LINE = "send one JSON-RPC message per line"
_PATH_STEPS = 6  # of a path shown in a message


def answer(line: bytes, refusal: ValidationError) -> list[Reply]:
    """The replies owed for ``line``, which the SDK's parser refused with ``refusal``."""
    try:
        text = line.decode("utf-8")
        bad_byte: tuple[int, int] | None = None
    except UnicodeDecodeError as exc:
        text = line.decode("utf-8", "replace")  # enough to find the id and the method
        bad_byte = (exc.start, line[exc.start])
    try:
        value = loads_leniently(text)
    except ValueError as exc:
        return [
            _error(
                find_id(text),
                PARSE_ERROR,
                f"Parse error: the message is not valid JSON ({exc}); {ONE_PER_LINE}",
            )
        ]
    if isinstance(value, list):
        return _batch(value)
    if not isinstance(value, dict):
        return [
            _error(
                None,
                INVALID_REQUEST,
                f"Invalid request: a message must be one JSON object, got {_kind(value)}; "
                + ONE_PER_LINE,
            )
        ]
    return _message(value, bad_byte, refusal)


def answer_oversized(head: bytes, tail: bytes, size: int, limit: int) -> list[Reply]:
    """The reply to a line of ``size`` bytes, over ``limit``; only its ends were kept."""
    ends = head.decode("utf-8", "replace") + tail.decode("utf-8", "replace")
    return [
        _error(
            find_id(ends),
            INVALID_REQUEST,
            f"Invalid request: the message is {size:,} bytes, over the {limit // 2**20} MB "
            f"limit for one message; a memory_write body can be at most "
            f"{NoteLimits.BODY_BYTES // 1_000_000} MB: store a summary and where the full text "
            "lives",
        )
    ]


def _message(
    message: dict[str, Any], bad_byte: tuple[int, int] | None, refusal: ValidationError
) -> list[Reply]:
    request_id = message.get("id")
    if "id" in message and not _usable_id(request_id):
        return [
            _error(
                None,
                INVALID_REQUEST,
                "Invalid request: id must be a whole number or text (without lone surrogates)",
            )
        ]
    if "method" not in message:
        if "id" in message and ("result" in message or "error" in message):
            log.warning("ignored a response from the client that could not be read")
            return []
        return [_error(request_id, INVALID_REQUEST, "Invalid request: a request needs a method")]
    if "id" not in message:
        log.warning("ignored a notification that could not be read: %s", _reason(refusal))
        return []
    assert isinstance(request_id, int | str)  # _usable_id above
    if bad_byte is not None:
        offset, byte = bad_byte
        return [
            _error(
                request_id,
                PARSE_ERROR,
                f"Parse error: the message is not valid UTF-8 (byte 0x{byte:02x} at offset "
                f"{offset:,}); send the JSON text encoded as UTF-8",
            )
        ]
    return [_request(request_id, message, refusal)]


def _request(request_id: RequestId, message: dict[str, Any], refusal: ValidationError) -> Reply:
    method = message["method"]
    if message.get("jsonrpc") != "2.0":
        return _error(request_id, INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"')
    if not isinstance(method, str) or has_surrogate(method):
        problem = "has a lone surrogate" if isinstance(method, str) else "must be text"
        return _error(
            request_id,
            INVALID_REQUEST,
            f"Invalid request: method {_shown(method)} {problem}; send a method name such as "
            "tools/call",
        )
    params = message.get("params")
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return _error(
            request_id,
            INVALID_PARAMS,
            f"Invalid params: params must be an object, got {_kind(params)}",
        )
    if method == "tools/call":
        return _tool_call(request_id, params, refusal)
    _, flaw = mend(params, ("params",))
    if flaw is not None:
        return _flawed_params(request_id, flaw)
    return _error(request_id, INVALID_REQUEST, f"Invalid request: {_reason(refusal)}")


def _tool_call(request_id: RequestId, params: dict[str, Any], refusal: ValidationError) -> Reply:
    """A tools/call whose name can be read: its arguments' problem, in the tools' words."""
    name = params.get("name")
    if not isinstance(name, str):
        return _error(
            request_id,
            INVALID_PARAMS,
            f"Invalid params: params.name must be a tool's name as text, got {_kind(name)}",
        )
    rest = {key: value for key, value in params.items() if key not in ("name", "arguments")}
    _, flaw = mend(rest, ("params",))
    if flaw is not None:
        return _flawed_params(request_id, flaw)
    if name not in TOOL_ARGUMENTS:  # as the SDK says it, and which tools there are
        return _tool_error(
            request_id, f"Unknown tool: {_shown(name)}; the tools are {', '.join(TOOL_ARGUMENTS)}"
        )
    arguments = params.get("arguments")
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return _error(
            request_id,
            INVALID_PARAMS,
            f"Invalid params: params.arguments must be an object, got {_kind(arguments)}",
        )
    # The same checks the server runs on every call: cut nesting reads as an empty list or
    # object, which no argument accepts, so the message says what shape to send instead.
    mended, flaw = mend(arguments)
    try:
        check_call(name, mended)
    except InvalidArgument as exc:
        return _tool_error(request_id, f"invalid argument for {name}: {exc}")
    if flaw is not None:
        return _tool_error(
            request_id, f"invalid argument for {name}: {_where(flaw.path)}: {flaw.describe()}"
        )
    return _error(request_id, INVALID_PARAMS, f"Invalid params: {_reason(refusal)}")


def _batch(items: list[Any]) -> list[Reply]:
    """One error per request in a batch (MCP dropped batches): each request is answered."""
    message = f"Invalid request: batches are not supported; {ONE_PER_LINE}"
    ids = [
        item["id"]
        for item in items
        if isinstance(item, Mapping) and "method" in item and _usable_id(item.get("id"))
    ]
    return [_error(request_id, INVALID_REQUEST, message) for request_id in ids] or [
        _error(None, INVALID_REQUEST, message)
    ]


def _flawed_params(request_id: RequestId, flaw: Flaw) -> JSONRPCError:
    where = _where(flaw.path)
    return _error(request_id, INVALID_PARAMS, f"Invalid params: {where} {flaw.describe()}")


def _usable_id(value: object) -> bool:
    """An id that can be sent back: a whole number, or text that is valid Unicode."""
    if isinstance(value, str):
        return not has_surrogate(value)
    return isinstance(value, int) and not isinstance(value, bool)


def _where(path: Path) -> str:
    """``params._meta.progressToken``, ``tags[1]``: a path as a message shows it.

    Only its first steps: the path to a cut is a hundred levels long.
    """
    shown = ""
    for step in path[:_PATH_STEPS]:
        if isinstance(step, int):
            shown += f"[{step}]"
        elif step.isidentifier() and len(step) <= 40:
            shown += f".{step}" if shown else step
        else:
            shown += f"[{_label(step)}]" if shown else _label(step)
    return shown + ("..." if len(path) > _PATH_STEPS else "")


def _reason(refusal: ValidationError) -> str:
    """The SDK parser's first complaint, without the input it quotes."""
    errors = refusal.errors(include_url=False, include_input=False, include_context=False)
    if not errors:
        return "the message is not a JSON-RPC request"
    first = errors[0]
    where = ".".join(str(step) for step in first["loc"][1:])  # loc[0]: the union member
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _error(request_id: RequestId | None, code: int, message: str) -> JSONRPCError:
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=_sendable(message))
    )


def _tool_error(request_id: RequestId, text: str) -> JSONRPCResponse:
    result = CallToolResult(content=[TextContent(type="text", text=_sendable(text))], is_error=True)
    return JSONRPCResponse(
        jsonrpc="2.0",
        id=request_id,
        result=result.model_dump(by_alias=True, exclude_unset=True, mode="json"),
    )


def _sendable(text: str) -> str:
    """``text`` as valid Unicode: a stray lone surrogate would stop the SDK's writer."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
