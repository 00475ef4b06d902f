"""A real server process driven with raw bytes: what no SDK client would let a test send.

The SDK client encodes its own JSON, so it cannot send a lone surrogate escape, invalid
UTF-8, a bare JSON number or a line of several megabytes. This writes lines to the server's
stdin as given and reads its stdout line by line, each read bounded by a timeout so a
request the server never answers fails the test instead of hanging it.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from mcp_testing import server_command

# Generous: a busy machine must not flake. A reply that never comes still fails the test.
REPLY_TIMEOUT = 30.0
# After a message that must get no reply, how long to wait before sending the next one.
QUIET_PERIOD = 1.0

INITIALIZE = {
    "jsonrpc": "2.0", "id": "init", "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw-test", "version": "1"}},
}  # fmt: skip
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class NoReply(AssertionError):
    """The server sent nothing within the timeout."""


class RawSession:
    """One server process over stdio, initialized, speaking raw JSON-RPC lines."""

    def __init__(self, home: Path, stderr: Path) -> None:
        env = {**os.environ, "ANAMNESIS_HOME": str(home), "ANAMNESIS_MACHINE_ID": "raw-box"}
        self._stderr_path = stderr
        self._stderr: IO[bytes] = stderr.open("wb")
        self.process = subprocess.Popen(
            server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, env=env,
        )  # fmt: skip
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()

    def __enter__(self) -> RawSession:
        self.send_json(INITIALIZE)
        reply = self.reply()
        assert reply["id"] == "init" and "result" in reply, reply
        self.send_json(INITIALIZED)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def _read_stdout(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def send(self, line: bytes) -> None:
        """Write one line (a newline is added) to the server's stdin."""
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def send_json(self, message: object) -> None:
        self.send(json.dumps(message).encode())

    def reply(self, timeout: float = REPLY_TIMEOUT) -> dict[str, Any]:
        """The next line the server writes: always one JSON-RPC message, nothing else."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise NoReply(f"no reply within {timeout} s") from None
        if line is None:
            raise AssertionError(f"the server closed stdout: {self.stderr_text()[-2000:]}")
        message = json.loads(line)  # stdout is the protocol channel: never anything else
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0", line[:300]
        return message

    def assert_silent(self, timeout: float = QUIET_PERIOD) -> None:
        """Nothing is written for a while (the answer to a notification)."""
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            return
        raise AssertionError(f"unexpected output: {line!r:.300}")

    def request(self, line: bytes) -> dict[str, Any]:
        self.send(line)
        return self.reply()

    def search_still_works(self) -> None:
        """The same session answers an ordinary memory_search afterwards."""
        reply = self.request(call_line("after", "memory_search", {"query": "anything"}))
        assert reply["id"] == "after", reply
        assert reply["result"]["isError"] is False, reply
        assert json.loads(reply["result"]["content"][0]["text"]) == []

    def close(self) -> None:
        assert self.process.stdin is not None
        try:
            self.process.stdin.close()
        except OSError:
            pass  # the server is already gone; its exit code says why
        try:
            self.process.wait(timeout=REPLY_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._stderr.close()

    def stderr_text(self) -> str:
        if not self._stderr.closed:
            self._stderr.flush()
        return self._stderr_path.read_text(errors="replace")


def call_line(request_id: object, tool: str, arguments: object) -> bytes:
    """A tools/call request as one line of JSON (ASCII: non-ASCII text is escaped)."""
    return json.dumps({
        "jsonrpc": "2.0", "id": request_id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }).encode()  # fmt: skip
