"""A stand-in for the OpenAI Responses API on 127.0.0.1, so that the real Codex CLI runs a
whole session in a test: no account, no network. Codex is pointed at it by a model provider
in its config.toml (:func:`codex_provider`); each request it sends is recorded and answered
with the next scripted turn, streamed as the server-sent events Codex reads
(``response.created``, one ``response.output_item.done`` per item, ``response.completed``).

A turn is a list of output items in the Responses API's shapes: :func:`say` (an assistant
message), :func:`shell` (an ``exec_command`` call), :func:`patch` (an ``apply_patch`` call).
Codex runs the tools itself and sends their output back in its next request, which takes
the next turn. Once the script is used up every request gets a short "done" message.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from anamnesis_testsupport.loopback import LoopbackServer

# A model Codex has metadata for (its `apply_patch` tool is the freeform one).
MODEL = "gpt-5.5"
PROVIDER = "stand_in"
KEY_VARIABLE = "STAND_IN_API_KEY"


def say(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def shell(call_id: str, command: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "name": "exec_command",
        "call_id": call_id,
        "arguments": json.dumps({"cmd": command}),
    }


def patch(call_id: str, text: str) -> dict[str, Any]:
    """An apply_patch call: ``text`` from ``*** Begin Patch`` to ``*** End Patch``."""
    return {"type": "custom_tool_call", "name": "apply_patch", "call_id": call_id, "input": text}


class ResponsesStandIn:
    """The server: ``turns`` answered in order, every request kept in ``received``."""

    def __init__(self, *turns: list[dict[str, Any]]) -> None:
        self.turns = list(turns)
        self.received: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = LoopbackServer(self._handler())

    @property
    def url(self) -> str:
        return f"{self._server.address}/v1"

    def __enter__(self) -> ResponsesStandIn:
        self._server.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.stop()

    def _next(self, request: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
        with self._lock:
            self.received.append(request)
            index = len(self.received) - 1
            turn = self.turns.pop(0) if self.turns else [say("done")]
        return index, turn

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:  # the model list: none beyond Codex's own
                body = b'{"object": "list", "data": [], "models": []}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    request = json.loads(raw)
                except ValueError:
                    request = {"undecodable": len(raw)}
                index, items = server._next(request)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                reply = f"resp_{index}"
                self.wfile.write(_event("response.created", response={"id": reply}))
                for number, item in enumerate(items):
                    item = {"id": f"item_{index}_{number}", **item}
                    self.wfile.write(_event("response.output_item.done", item=item))
                usage = {"input_tokens": 10, "input_tokens_details": None, "output_tokens": 5,
                         "output_tokens_details": None, "total_tokens": 15}  # fmt: skip
                self.wfile.write(
                    _event("response.completed", response={"id": reply, "usage": usage})
                )
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def _event(kind: str, **data: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n".encode()


def codex_provider(url: str) -> str:
    """The config.toml lines that make Codex use the stand-in (its key from
    :data:`KEY_VARIABLE`, any value)."""
    return (
        f'model = "{MODEL}"\nmodel_provider = "{PROVIDER}"\n\n'
        f"[model_providers.{PROVIDER}]\n"
        'name = "a stand-in for the Responses API"\n'
        f'base_url = "{url}"\nwire_api = "responses"\nenv_key = "{KEY_VARIABLE}"\n'
    )


def developer_texts(request: dict[str, Any]) -> list[str]:
    """The developer messages of a request Codex sent: where a hook's context goes."""
    return [
        part.get("text", "")
        for item in request.get("input", [])
        if isinstance(item, dict) and item.get("role") == "developer"
        for part in item.get("content", [])
        if isinstance(part, dict)
    ]
