"""The session hooks as each agent runs them: SessionStart inject and prompt recall as whole
processes, for every agent in the table of agents, against the same store.

    uv run python -m bench.suites.agents_bench [--quick]

Claude Code's commands carry no ``--agent`` (the table of agents is never read on its
hooks' path); every other agent's do, and get their output in their own shape and event
names. Runs alternate between the agents so machine noise hits all alike; the ratio is each
agent's median over Claude Code's. Target: another agent costs what Claude Code costs
(ratio <= 1.1), within the inject target (<= 60 ms).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from anamnesis.hooks import AGENTS, DEFAULT_AGENT
from bench.common import corpus
from bench.common.hook_runs import build_store, checkout, ours_command, timed_run


def _command(hook: str, agent: str) -> list[str]:
    base = ours_command()[:-1]  # the hook process, without inject_bench's hook name
    named = [] if agent == DEFAULT_AGENT else ["--agent", agent]
    return [*base, hook, *named, "--format", "json"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    count, runs = (500, 11) if args.quick else (2000, 31)
    with tempfile.TemporaryDirectory(prefix="anamnesis-agents-bench-") as tmp:
        root = Path(tmp)
        home = root / "home"
        build_store(sys.executable, home, corpus.write_jsonl(corpus.generate(count), root / "n"))
        work = checkout(root)
        stdin = {
            "inject": {"hook_event_name": "SessionStart", "source": "startup", "cwd": str(work)},
            "prompt": {"hook_event_name": "UserPromptSubmit", "cwd": str(work),
                       "prompt": "why does the payments webhook retry twice?"},
        }  # fmt: skip
        samples: dict[tuple[str, str], list[float]] = {}
        for hook, payload in stdin.items():
            data = json.dumps(payload).encode()
            for agent in AGENTS:  # warm caches and bytecode; each answers something
                for _ in range(2):
                    _t, _rss, out = timed_run(_command(hook, agent), home, data)
                if not out.strip():
                    print(f"warning: {hook} for {agent} printed nothing", file=sys.stderr)
            for _ in range(runs):
                for agent in AGENTS:
                    elapsed, _rss, _out = timed_run(_command(hook, agent), home, data)
                    samples.setdefault((hook, agent), []).append(elapsed)
    print(f"\n== the session hooks per agent, {count} notes, {runs} runs each (medians) ==")
    medians = {key: statistics.median(values) * 1000 for key, values in samples.items()}
    for (hook, agent), ms in medians.items():
        ratio = ms / medians[(hook, DEFAULT_AGENT)]
        print(f"{hook:>7} {agent:>12}: {ms:7.1f} ms | x{ratio:.2f} of Claude Code's")
    worst = max(ms / medians[(hook, DEFAULT_AGENT)] for (hook, _a), ms in medians.items())
    print(f"target: every agent <= x1.1 of Claude Code's: {'OK' if worst <= 1.1 else 'MISSED'}")
    by_name = {f"{hook}/{agent}": ms for (hook, agent), ms in medians.items()}
    print(json.dumps({"bench": "agents", "notes": count, "median_ms": by_name}))


if __name__ == "__main__":
    main()
