"""Load: four writers per machine, each writing 100 notes and syncing after every 20, on
both machines at once; at the end both hold the same 800 notes and the index agrees
(scenario 8).

Per machine, one writer is the `anamnesis` command (a fresh process per write and per sync,
as scripts and hooks run it) and three are long-lived `anamnesis serve` processes driven
over MCP (as several Claude Code sessions on one machine run it). A CLI write costs ~0.4 s
of CPU, mostly start-up, so four CLI writers per machine would take minutes on 2 cores;
the servers put the same 100 writes per process through the same store in a fraction.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import pytest
from anamnesis_testsupport.repos import tip_files
from mcp.client import Client
from mcp.client.stdio import stdio_client

from e2e_support import (
    TIMEOUT_S,
    Machine,
    World,
    quiet_syncs,
    tool_data,
    tool_error,
)

WRITERS = 4  # per machine: writer 0 uses the command, the others a server each
ROUNDS = 5
PER_ROUND = 20
TOTAL = 2 * WRITERS * ROUNDS * PER_ROUND
# A sync that finds another one running on the same machine waits, then gives up with
# this: allowed mid-run (the next sync takes the changes along), never at the end.
BUSY = "sync already running"


class Outcomes:
    """Every mid-run sync's outcome, from all threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.synced = 0
        self.busy = 0

    def record(self, *, ok: bool, text: str) -> None:
        assert ok or BUSY in text, text
        with self._lock:
            if ok:
                self.synced += 1
            else:
                self.busy += 1


def title(machine: Machine, writer: int, round_: int, index: int) -> str:
    return f"{machine.name} writer {writer} round {round_} note {index}"


def body(machine: Machine, writer: int, round_: int, index: int) -> str:
    # "loadcheck" is in every note: one search must return all of them from the index.
    return f"loadcheck {machine.name}-{writer}-{round_}-{index}: written under load"


def cli_writer(machine: Machine, writer: int, outcomes: Outcomes) -> None:
    for round_ in range(ROUNDS):
        for index in range(PER_ROUND):
            machine.ok(
                "write", "--title", title(machine, writer, round_, index),
                body(machine, writer, round_, index),
            )  # fmt: skip
        done = machine.run("sync", "--json")
        assert "Traceback" not in done.err, done.describe()
        outcomes.record(ok=done.code == 0, text=done.err)


def mcp_writer(machine: Machine, writer: int, outcomes: Outcomes, log: Path) -> None:
    async def session() -> None:
        with log.open("w") as errlog:
            transport = stdio_client(machine.mcp_server(), errlog=errlog)
            async with Client(transport, mode="legacy", read_timeout_seconds=TIMEOUT_S) as mcp:
                for round_ in range(ROUNDS):
                    for index in range(PER_ROUND):
                        note = tool_data(await mcp.call_tool("memory_write", {
                            "type": "semantic",
                            "title": title(machine, writer, round_, index),
                            "body": body(machine, writer, round_, index),
                        }))  # fmt: skip
                        assert note["machine_id"] == machine.name
                    result = await mcp.call_tool("memory_sync", {})
                    outcomes.record(ok=not result.is_error, text=tool_error(result))

    anyio.run(session)


@pytest.mark.slow
def test_four_writers_per_machine_end_with_the_same_800_notes_everywhere(
    world: World, tmp_path: Path
) -> None:
    outcomes = Outcomes()
    with ThreadPoolExecutor(max_workers=2 * WRITERS) as pool:
        futures = []
        for machine in (world.laptop, world.desktop):
            futures.append(pool.submit(cli_writer, machine, 0, outcomes))
            for writer in range(1, WRITERS):
                log = tmp_path / f"{machine.name}-server-{writer}.log"
                futures.append(pool.submit(mcp_writer, machine, writer, outcomes, log))
        for future in futures:
            future.result()  # a failed write or an unexpected sync outcome fails here
    assert outcomes.synced + outcomes.busy == 2 * WRITERS * ROUNDS
    assert outcomes.synced > 0
    for log in tmp_path.glob("*-server-*.log"):
        assert "Traceback" not in log.read_text(), log

    quiet_syncs(world.laptop, world.desktop)

    expected = {
        title(machine, writer, round_, index): machine.name
        for machine in (world.laptop, world.desktop)
        for writer in range(WRITERS)
        for round_ in range(ROUNDS)
        for index in range(PER_ROUND)
    }
    assert len(expected) == TOTAL
    files = world.laptop.notes()
    assert len(files) == TOTAL
    assert world.desktop.notes() == files  # same paths, same bytes
    assert tip_files(world.remote) == files
    stems = {Path(path).stem for path in files}
    for machine in (world.laptop, world.desktop):
        listed = machine.listed()
        assert {note["id"] for note in listed} == stems
        assert {note["title"]: note["machine_id"] for note in listed} == expected
        hits = machine.search("loadcheck", "-k", "1000")
        assert {hit["id"] for hit in hits} == stems
        status = machine.ok("status", "--json").json()
        assert status["total"] == TOTAL
        assert status["problems"] == []
        assert status["sync"]["dirty"] is False
        assert status["sync"]["conflicts"] == []
        # Rebuilding the index from the files changes nothing the index already said.
        assert machine.ok("reindex", "--json").json()["indexed"] == TOTAL
        assert {note["id"] for note in machine.listed()} == stems
