"""The MCP server over stdio: ours against the published release (0.1.3), in the same run.

    uv run nox -s bench   # or: ANAMNESIS_PUBLISHED_PYTHON=... python -m bench.suites.mcp_bench

Both servers serve a store of the same 2,000 generated notes and are driven by the official
SDK client over stdio, as Claude Code drives them. Measured:
- start: process spawn until `initialize` and `tools/list` are answered (fresh process each
  time, bytecode caches warm as for an installed tool);
- search: `memory_search` round trips (k=8) with the corpus queries, alternating between the
  two servers so machine noise hits both alike.
Targets: search round trip <= 15 ms median; start no slower than the published release.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path

import anyio
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from bench.common import corpus
from bench.common.hook_runs import build_store

DEVNULL = Path(os.devnull).open("w")  # noqa: SIM115 - lives as long as the benchmark


def server_params(command: list[str], home: Path) -> StdioServerParameters:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # Keyword search, as the published release does: the comparison is like for like
    # (hybrid latency is recall_bench.py's), and no embedding model loads in the server.
    env.update(
        ANAMNESIS_HOME=str(home), ANAMNESIS_MACHINE_ID="bench", ANAMNESIS_SEARCH_MODE="keyword"
    )
    return StdioServerParameters(command=command[0], args=command[1:], env=env)


def client_for(params: StdioServerParameters) -> Client:
    # Claude Code opens with the initialize handshake: measure that path, not discovery.
    # The servers' stderr (the published one prints a banner) would only clutter the report.
    transport = stdio_client(params, errlog=DEVNULL)
    return Client(transport, mode="legacy", read_timeout_seconds=120)


async def time_start(params: StdioServerParameters) -> float:
    started = time.perf_counter()
    async with client_for(params) as client:
        tools = await client.list_tools()
        elapsed = time.perf_counter() - started
    names = sorted(tool.name for tool in tools.tools)
    assert "memory_search" in names, names
    return elapsed


async def time_searches(
    servers: dict[str, StdioServerParameters], queries: list[str], rounds: int
) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {name: [] for name in servers}
    async with AsyncExitStack() as stack:
        clients = {}
        for name, params in servers.items():
            clients[name] = await stack.enter_async_context(client_for(params))
        for client in clients.values():  # warm-up: first-use imports and caches
            for query in queries[:5]:
                await client.call_tool("memory_search", {"query": query, "k": 8})
        for _ in range(rounds):
            for query in queries:
                for name, client in clients.items():
                    started = time.perf_counter()
                    result = await client.call_tool("memory_search", {"query": query, "k": 8})
                    samples[name].append(time.perf_counter() - started)
                    assert not result.is_error, (name, result.content)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, starts, rounds = (300, 3, 1) if args.quick else (2000, 9, 3)
    published = os.environ.get("ANAMNESIS_PUBLISHED_PYTHON")
    commands = {"ours": [str(Path(sys.executable).parent / "anamnesis-mcp")]}
    pythons = {"ours": sys.executable}
    if published:
        commands["published"] = [str(Path(published).parent / "anamnesis"), "serve"]
        pythons["published"] = published
    queries = corpus.queries()[:40]
    with tempfile.TemporaryDirectory(prefix="anamnesis-mcp-bench-") as tmp:
        root = Path(tmp)
        notes = corpus.write_jsonl(corpus.generate(count), root / "notes.jsonl")
        servers = {}
        for name, command in commands.items():
            build_store(pythons[name], root / name, notes)
            servers[name] = server_params(command, root / name)
        start_samples: dict[str, list[float]] = {name: [] for name in servers}
        for run in range(starts + 1):
            for name, params in servers.items():
                seconds = anyio.run(time_start, params)
                if run:  # the first start writes bytecode caches
                    start_samples[name].append(seconds)
        search_samples = anyio.run(time_searches, servers, queries, rounds)

    start_ms = {n: statistics.median(v) * 1000 for n, v in start_samples.items()}
    search_ms = {n: statistics.median(v) * 1000 for n, v in search_samples.items()}
    search_p95 = {n: statistics.quantiles(v, n=20)[-1] * 1000 for n, v in search_samples.items()}
    print(f"\n== MCP over stdio, {count}-note store ==")
    print(f"start to tools/list, median of {starts}: " + _cells(start_ms))
    print(
        f"memory_search round trip, median of {len(search_samples['ours'])}: "
        + _cells(search_ms)
        + f" | p95 ours {search_p95['ours']:.1f} ms"
    )
    verdicts = [f"search <= 15 ms: {'OK' if search_ms['ours'] <= 15 else 'MISSED'}"]
    if "published" in start_ms:
        ratio = start_ms["published"] / start_ms["ours"]
        search_ratio = search_ms["published"] / search_ms["ours"]
        verdicts.append(f"start x{ratio:.2f} faster: {'OK' if ratio >= 1 else 'MISSED'}")
        verdicts.append(f"search x{search_ratio:.1f} faster")
    print(" | ".join(verdicts))
    print(json.dumps({"bench": "mcp", "notes": count, "start_ms": start_ms,
                      "search_ms": search_ms, "search_p95_ms": search_p95}))  # fmt: skip


def _cells(values: dict[str, float]) -> str:
    return " | ".join(f"{name} {ms:8.1f} ms" for name, ms in values.items())


if __name__ == "__main__":
    main()
