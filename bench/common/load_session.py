"""One Claude Code session of ``bench.scale.load``, as a process of its own: what Claude Code does
from start to end, through the hooks and the MCP server of the machine it is given.

    python -m bench.common.load_session    (cwd: the checkout; the spec as one JSON line on stdin)

Prints ``ready`` once set up, waits for a line (``go``) on stdin so that every session
starts together, then runs: the SessionStart hooks (inject waited for, the async sync
started and left), the MCP server through the MCP SDK's stdio client, each prompt (the
UserPromptSubmit hook, a ``memory_search``, a ``memory_write``, the transcript growing
as Claude Code writes it), then the SessionEnd hook. Prints what it saw as one JSON line.
"""

from __future__ import annotations

import json
import re
import resource
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import anyio
from mcp.client import Client
from mcp.client.stdio import stdio_client
from mcp_types import CallToolResult

from bench.common.load_world import HookRun, Machine, run_hook, start_async_hook


class Session:
    """One session's state and what it saw."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.machine = Machine.from_spec(spec["machine"])
        self.number: int = spec["number"]
        self.cwd = Path(spec["cwd"])
        self.queries: list[str] = spec["queries"]
        self.errlog = Path(spec["errlog"])
        self.delay: float = spec["delay"]
        self.sid = str(uuid.uuid4())
        slug = re.sub(r"[^A-Za-z0-9]", "-", str(self.cwd))
        self.transcript = self.machine.claude / "projects" / slug / f"{self.sid}.jsonl"
        self.common = {"session_id": self.sid, "transcript_path": str(self.transcript),
                       "cwd": str(self.cwd)}  # fmt: skip
        self.runs: list[HookRun] = []
        self.written: list[str] = []

    def hook(self, hook: str, event: str, payload: dict[str, Any], wanted: str = "") -> None:
        for command, timeout, run_async in self.machine.hooks(event, wanted):
            if not run_async:
                self.runs.append(run_hook(self.machine, hook, command, timeout, payload))

    def append(self, kind: str, content: object) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        record = {"type": kind, "sessionId": self.sid, "cwd": str(self.cwd), "timestamp": stamp,
                  "uuid": str(uuid.uuid4()), "gitBranch": "main",
                  "message": {"content": content}}  # fmt: skip
        with self.transcript.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def run(self) -> list[threading.Thread]:
        """The session, start to end; returns the threads still waiting for its async hooks
        (each records how long its hook ran)."""
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        self.transcript.touch()
        started = {**self.common, "hook_event_name": "SessionStart", "source": "startup"}
        background = [
            threading.Thread(target=self.wait_for, args=(command, started))
            for command, _timeout, run_async in self.machine.hooks("SessionStart", "startup")
            if run_async
        ]
        for thread in background:
            thread.start()
        self.hook("inject", "SessionStart", started, "startup")
        anyio.run(self.conversation)
        ended = {**self.common, "hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}
        self.hook("capture", "SessionEnd", ended)
        return background

    def wait_for(self, command: str, payload: dict[str, Any]) -> None:
        """Run an async hook, which no one waits for, and time it (for the table)."""
        began = time.perf_counter()
        code = start_async_hook(self.machine, command, payload).wait()
        self.runs.append(HookRun("sync", time.perf_counter() - began, False, code, ""))

    async def conversation(self) -> None:
        with self.errlog.open("w") as errlog:
            transport = stdio_client(self.machine.mcp_server(), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=600) as mcp:
                for turn, query in enumerate(self.queries):
                    await self.turn(mcp, turn, query)

    async def turn(self, mcp: Client, turn: int, query: str) -> None:
        payload = {**self.common, "hook_event_name": "UserPromptSubmit", "prompt": query}
        await anyio.to_thread.run_sync(self.hook, "prompt", "UserPromptSubmit", payload)
        self.append("user", query)
        found = await self.tool(mcp, "mcp_search", "memory_search", {"query": query, "k": 5})
        del found
        title = f"load session {self.number} turn {turn} {self.sid[:8]}"
        arguments = {"type": "semantic", "title": title,
                     "body": f"What turn {turn} found about: {query}"}  # fmt: skip
        if not (await self.tool(mcp, "mcp_write", "memory_write", arguments)).is_error:
            self.written.append(title)
        edited = str(self.cwd / "src" / f"turn_{turn}.py")
        self.append("assistant", [
            {"type": "text", "text": f"Looked into {query}; updated {edited} accordingly."},
            {"type": "tool_use", "id": f"t{turn}", "name": "Edit", "input": {"file_path": edited}},
        ])  # fmt: skip

    async def tool(
        self, mcp: Client, label: str, name: str, arguments: dict[str, Any]
    ) -> CallToolResult:
        began = time.perf_counter()
        result = await mcp.call_tool(name, arguments)
        text = " ".join(getattr(block, "text", "") for block in result.content)
        seconds = time.perf_counter() - began
        self.runs.append(
            HookRun(label, seconds, False, int(result.is_error), text * result.is_error)
        )
        return result


def main() -> None:
    session = Session(json.loads(sys.stdin.readline()))
    ready = resource.getrusage(resource.RUSAGE_SELF)  # what came before is not the load
    print("ready", flush=True)
    if sys.stdin.readline().strip() != "go":  # the bench gave up on the others
        sys.exit(1)
    time.sleep(session.delay)  # a ramp: sessions started one after another
    for thread in session.run():
        thread.join()
    runs = [[r.hook, r.seconds, r.killed, r.code, r.err] for r in session.runs]
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)  # hooks and the MCP server
    cpu = {"session": own.ru_utime + own.ru_stime - ready.ru_utime - ready.ru_stime,
           "children": children.ru_utime + children.ru_stime}  # fmt: skip
    report = {"sid": session.sid, "written": session.written, "runs": runs, "cpu": cpu}
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
