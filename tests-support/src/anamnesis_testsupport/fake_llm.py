"""Test doubles for the LLM providers: a local HTTP server speaking the OpenAI and Anthropic
formats with scripted replies, a fake `claude` executable, and an in-process scripted
provider. Each records what it got."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from anamnesis_testsupport.loopback import LoopbackServer

GITHUB_TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
AWS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"


# What an endless reply repeats after its body, and how often: about 13 MB a second, fast
# enough that reading it all would show within seconds, slow enough that a client reading it
# all until its timeout (the bug this stands for) cannot exhaust a test machine's memory.
ENDLESS_CHUNK = b"a" * 65536
ENDLESS_PAUSE_S = 0.005


@dataclass
class Scripted:
    """One reply: a status, a JSON body (or raw bytes), headers, and how long to stall
    first (``delay_s``) or, with ``trickle``, how long to dribble the body out. With
    ``endless`` the body is followed by :data:`ENDLESS_CHUNK` for ever (no Content-Length),
    until the client stops reading or the server stops; ``streamed`` counts what it sent."""

    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    trickle: bool = False
    endless: bool = False
    streamed: int = 0


@dataclass
class Received:
    """One request as the server saw it (header names lowercased)."""

    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw)


def openai_reply(text: str | None) -> Scripted:
    return Scripted(
        body={"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
    )


def anthropic_reply(*texts: str) -> Scripted:
    blocks: list[dict[str, str]] = [{"type": "thinking", "thinking": "hmm"}]
    blocks += [{"type": "text", "text": text} for text in texts]
    return Scripted(body={"type": "message", "role": "assistant", "content": blocks})


def api_error(status: int, message: str, **headers: str) -> Scripted:
    return Scripted(status, {"error": {"type": "error", "message": message}}, dict(headers))


def nested_json(depth: int = 100_000) -> str:
    """A JSON array nested ``depth`` levels deep: valid, and too deep to parse recursively."""
    return "[" * depth + "]" * depth


def endless_openai_reply() -> Scripted:
    """An OpenAI reply whose content never ends."""
    start = b'{"choices": [{"index": 0, "message": {"role": "assistant", "content": "'
    return Scripted(body=start, endless=True)


class FakeLLMServer:
    """An HTTP server on 127.0.0.1 (ephemeral port) answering each POST with the next
    scripted reply (a 500 saying so when the script is used up)."""

    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.received: list[Received] = []
        self._stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = LoopbackServer(self._handler())

    @property
    def url(self) -> str:
        return self._server.address

    def queue(self, *replies: Scripted) -> FakeLLMServer:
        self.script.extend(replies)
        return self

    def start(self) -> None:
        self._server.start()

    def stop(self) -> None:
        self._stopping.set()  # stalled handlers give up at once
        self._server.stop()

    def _next(self, received: Received) -> Scripted:
        with self._lock:
            self.received.append(received)
            return self.script.pop(0) if self.script else api_error(500, "script used up")

    def _stream(self, out: Any, start: bytes, reply: Scripted) -> None:
        try:
            out.write(start)
            while not self._stopping.wait(ENDLESS_PAUSE_S):
                out.write(ENDLESS_CHUNK)
                reply.streamed += len(ENDLESS_CHUNK)
        except OSError:  # the client hung up: the end of an endless reply
            return

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                headers = {name.lower(): value for name, value in self.headers.items()}
                reply = server._next(Received(self.path, headers, raw))
                if reply.delay_s and not reply.trickle:
                    server._stopping.wait(reply.delay_s)
                body = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body)
                data = body.encode() if isinstance(body, str) else body
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                if not reply.endless:  # HTTP/1.0: without a length, the body ends at close
                    self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if reply.endless:
                    server._stream(self.wfile, data, reply)
                elif reply.trickle:  # a byte at a time, each well within a socket timeout
                    deadline = time.monotonic() + reply.delay_s
                    for byte in data:
                        if server._stopping.wait(0.05) or time.monotonic() > deadline:
                            return
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                else:
                    self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep pytest's output clean

        return Handler


# The fake `claude`: records its argv, stdin and environment, then acts out MODE.
_FAKE_CLAUDE = """\
#!{python}
import json, os, subprocess, sys, time
MODE = {mode!r}
RESULT = {result!r}
record = {{
    "argv": sys.argv[1:],
    "stdin": sys.stdin.read(),
    "guard": os.environ.get("ANAMNESIS_REFLECTING"),
    "claudecode": os.environ.get("CLAUDECODE"),
    "pid": os.getpid(),
}}
if MODE == "hang":  # and a grandchild, as claude starts node workers and MCP servers
    worker = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    record["worker_pid"] = worker.pid
with open({record!r}, "w") as f:
    json.dump(record, f)
if MODE == "ok":
    print(json.dumps({{"type": "result", "subtype": "success", "is_error": False,
                      "result": RESULT, "num_turns": 1}}))
elif MODE == "is_error":
    print(json.dumps({{"type": "result", "subtype": "error_during_execution",
                      "is_error": True, "result": "Credit balance is too low"}}))
    sys.exit(1)
elif MODE == "exit":
    print("Error: Invalid API key. Please run /login", file=sys.stderr)
    sys.exit(2)
elif MODE == "not_json":
    print("Hello from an old claude")
elif MODE == "hang":
    time.sleep(60)
elif MODE == "endless":  # about 13 MB a second until killed
    sys.stdout.buffer.write(b'{{"type": "result", "is_error": false, "result": "')
    while True:
        sys.stdout.buffer.write(b"a" * 65536)
        sys.stdout.buffer.flush()
        time.sleep(0.005)
elif MODE == "deep":
    print("[" * 100000 + "]" * 100000)
"""


# What the fake `claude` answers in mode ok, unless told otherwise: a reflection's "nothing".
OK_RESULT = '```json\n{"notes": []}\n```'


def write_fake_claude(folder: Path, mode: str, *, result: str = OK_RESULT) -> Path:
    """An executable ``claude`` in ``folder`` acting out ``mode`` (ok: answers ``result``,
    is_error, exit, not_json, hang, endless: output without end, deep: JSON nested 100,000
    deep); what it received goes to ``folder/record.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "claude"
    record = folder / "record.json"
    script.write_text(
        _FAKE_CLAUDE.format(python=sys.executable, mode=mode, result=result, record=str(record))
    )
    script.chmod(0o755)
    return record


Reply = str | Exception | Callable[[str], str]


class ScriptedProvider:
    """An in-process provider answering each call with the next scripted reply: a text,
    an exception to raise, or a function of the user text. It records every (system, user)
    it was sent; a call past the script fails the test."""

    def __init__(
        self, *replies: Reply, name: str = "scripted", model: str = "scripted-model"
    ) -> None:
        self.name = name
        self.model = model
        self.replies = list(replies)
        self.prompts: list[tuple[str, str]] = []

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        self.prompts.append((system, user))
        if not self.replies:
            raise AssertionError("the provider was called more often than scripted")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply(user) if callable(reply) else reply

    @property
    def received(self) -> list[tuple[str, str]]:
        return self.prompts

    @property
    def sent(self) -> str:
        """Everything sent so far, system and user texts, as one text."""
        return "\n".join(f"{system}\n{user}" for system, user in self.prompts)
