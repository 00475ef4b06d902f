"""The stdio transport: every line bounded and screened before the SDK sees it.

The SDK's ``stdio_server`` parses each line with pydantic-core and drops, without a reply,
any line that fails: a lone surrogate escape, nesting past about 200 levels, a batch or a
bare JSON value, a byte order mark. (Bytes that are not UTF-8 it turns into U+FFFD and
serves, changing what was sent.) The client then waits for its timeout. Here each line is
read as bytes, at most :data:`MAX_LINE_BYTES` of it, and parsed once the SDK's way; a line
that fails is answered by :mod:`.unreadable` instead of vanishing.

Output still goes through the SDK's ``stdio_server``, given no input: it moves fd 1 aside
while serving, so a stray print cannot corrupt the protocol.
"""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO, NamedTuple

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp_types import INTERNAL_ERROR, ErrorData, JSONRPCError, JSONRPCMessage, JSONRPCResponse
from mcp_types import jsonrpc_message_adapter as messages
from pydantic import ValidationError

from anamnesis.mcp.salvage import find_id
from anamnesis.mcp.unreadable import answer, answer_oversized
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import WriteStream  # the type Server.run takes
from mcp.shared.message import SessionMessage

log = logging.getLogger("anamnesis.mcp")

# One message at most. A memory_write body may be 1 MB of UTF-8, which JSON escaping can
# grow up to six times (\u0001); 8 MB lets every body under the limit through to get its own
# message, and keeps a client that never sends a newline from filling the memory.
MAX_LINE_BYTES = 8 * 2**20
_KEEP = 4096  # of a line over the limit: its start and its end, where an id can be found
_CHUNK = 2**20  # the rest of such a line is read and dropped this much at a time
_BOM = b"\xef\xbb\xbf"


class Screened(NamedTuple):
    """One line read: a message for the SDK, and the replies owed to the client."""

    message: JSONRPCMessage | None
    replies: Sequence[JSONRPCError | JSONRPCResponse] = ()


async def serve_stdio(server: Server[Any], stdin: BinaryIO | None = None) -> None:
    """Run ``server`` over stdin (or ``stdin``) and stdout until the client closes stdin."""
    source = stdin if stdin is not None else _stdin()
    to_server, from_client = anyio.create_memory_object_stream[SessionMessage](0)
    no_input = anyio.wrap_file(io.StringIO())  # the SDK's reader ends at once: ours reads
    async with stdio_server(stdin=no_input) as (_, to_client), anyio.create_task_group() as tasks:
        tasks.start_soon(_read, source, to_server, to_client)
        await server.run(from_client, to_client, server.create_initialization_options())
        tasks.cancel_scope.cancel()  # the server is done: stop reading


async def _read(
    source: BinaryIO,
    to_server: MemoryObjectSendStream[SessionMessage],
    to_client: WriteStream[SessionMessage],
) -> None:
    # A thread of its own: reading must not wait behind tool calls busy on worker threads.
    reader = anyio.CapacityLimiter(1)
    async with to_server:
        while True:
            screened = await anyio.to_thread.run_sync(
                read_next, source, abandon_on_cancel=True, limiter=reader
            )
            if screened is None:
                return  # end of input: closing to_server ends the session
            try:
                for reply in screened.replies:
                    await to_client.send(SessionMessage(reply))
                if screened.message is not None:
                    await to_server.send(SessionMessage(screened.message))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the server has stopped


def read_next(source: BinaryIO) -> Screened | None:
    """The next line of ``source``, screened; None at the end of input."""
    line = source.readline(MAX_LINE_BYTES + 1)
    if not line:
        return None
    if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
        return _skip_oversized(source, line)
    return screen(line)


def screen(line: bytes) -> Screened:
    """One line: the message the SDK would parse from it, or the replies it is owed."""
    line = line.strip(b" \t\r\n")
    if line.startswith(_BOM):  # some Windows tools start their output with one
        line = line[len(_BOM) :].lstrip(b" \t")
    if not line:
        return Screened(None)
    try:
        return Screened(messages.validate_json(line, by_name=False))  # as the SDK parses it
    except ValidationError as refusal:
        return _answered(line, refusal)


def _answered(line: bytes, refusal: ValidationError) -> Screened:
    try:
        return Screened(None, answer(line, refusal))
    except Exception:  # a bug here must cost one reply, never the session
        log.exception("could not answer a message the SDK could not parse")
        try:
            request_id = find_id(line.decode("utf-8", "replace"))
        except Exception:
            request_id = None
        error = ErrorData(code=INTERNAL_ERROR, message="Internal error: could not read the message")
        return Screened(None, [JSONRPCError(jsonrpc="2.0", id=request_id, error=error)])


def _skip_oversized(source: BinaryIO, start: bytes) -> Screened:
    """Read past a line over the limit, keeping only its ends, and refuse it."""
    head, tail, size = start[:_KEEP], start[-_KEEP:], len(start)
    while not tail.endswith(b"\n"):
        chunk = source.readline(_CHUNK)
        if not chunk:
            break
        tail = (tail + chunk)[-_KEEP:]
        size += len(chunk)
    content = tail.rstrip(b"\r\n")
    size -= len(tail) - len(content)  # the line ending is not part of the message
    return Screened(None, answer_oversized(head, content, size, MAX_LINE_BYTES))


def _stdin() -> BinaryIO:
    """The process's stdin as bytes; an empty one when there is none (pythonw, a daemon)."""
    stream = sys.stdin
    return stream.buffer if stream is not None else io.BytesIO()
