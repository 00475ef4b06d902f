"""Load (issue 38): many Claude Code sessions at once on one machine, and what each hook
costs the session that waits on it, beside one session alone.

    uv run python -m bench.scale.load [--sessions 20] [--prompts 5] [--notes 500] [--ramp 0]
                                      [--baseline CHECKOUT] [--root DIR]

Two machines share one bare remote (dulwich, a path). The laptop's store starts with
``--notes`` notes of the store bench's corpus (4 KB, four projects), pushed and pulled by
the desktop. Then, on the laptop, ``--sessions`` sessions start together (or one after
another over ``--ramp`` seconds), each as Claude Code runs one, in a process of its own
(:mod:`bench.common.load_session`): the SessionStart hooks (inject, waited for; the async
sync, not), its MCP server (`anamnesis serve`, as `init` registered it, through the MCP
SDK's stdio client), ``--prompts`` prompts (the UserPromptSubmit hook, then a
`memory_search` and a `memory_write`, the transcript growing as Claude Code writes it),
and the SessionEnd capture. Meanwhile the desktop writes a note and syncs, in a loop.
Every hook is the command `anamnesis init` wrote into settings.json, run through
``/bin/sh`` with the hook JSON on stdin, and killed past its ``timeout`` as Claude Code
kills it (capture's is what the SessionEnd budget is raised to). The prompts are
devmemory's queries (../shared, or ``BENCH_SHARED``; a few built-in ones without it).

Reported per hook, for one session alone and for the load: p50 / p95 / max of the time the
session waited, and how many runs a timeout killed (``sync`` is the async hook, which no
one waits for; ``mcp_*`` are tool calls' round trips); then, once the detached work the
hooks left (syncs, queued captures) is done: every session's note and every MCP write on
the laptop, the index listing exactly the files, and, after both machines sync, every
session note on the desktop; and the CPU the load used, beside what the whole machine did
meanwhile (on a shared machine, other work slows every figure). ``--baseline CHECKOUT``
runs the same load against another checkout (say a worktree of main) after this one's, so
before and after come from one run. Targets (issue 38): capture under 2 s, inject and
prompt p95 under 1 s, no hook killed, no note lost. Exit 1 when a note was lost.

Not in ``bench.suites``: `nox -s bench` does not run it (minutes, and the machine's every core).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.common import corpus
from bench.common.detached import wait_for_detached
from bench.common.load_world import HookRun, Machine, bare_remote, project_checkout
from bench.common.places import REPO
from bench.common.processes import BASE_ENV, driver
from bench.common.workspace import workspace

PROJECTS = 4
# The hooks the table shows, in the order a session meets them; "sync" is the async
# SessionStart hook (no session waits on it: shown for what it costs the machine).
HOOK_ORDER = ("inject", "prompt", "capture", "sync", "mcp_search", "mcp_write")
TARGETS = {"inject": ("p95", 1.0), "prompt": ("p95", 1.0), "capture": ("max", 2.0)}
# How long the detached work may take to finish after the last session ended.
DETACHED_DEADLINE_S = 300.0


@dataclass(slots=True)
class Observed:
    """Everything one phase saw, from every thread."""

    runs: list[HookRun] = field(default_factory=list)
    sessions: list[str] = field(default_factory=list)
    written: list[str] = field(default_factory=list)  # titles of the MCP writes
    failures: list[str] = field(default_factory=list)
    desktop_syncs: int = 0
    # CPU seconds: the session processes themselves (Claude Code's part), and their
    # children (the hooks Claude Code waits for, the async hook and the MCP servers).
    cpu: dict[str, float] = field(default_factory=lambda: {"session": 0.0, "children": 0.0})
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, run: HookRun) -> None:
        with self.lock:
            self.runs.append(run)
            if run.code != 0 and not run.killed:
                self.failures.append(f"{run.hook} exited {run.code}: {run.err.strip()[-300:]}")

    def times(self, hook: str) -> list[float]:
        return sorted(r.seconds for r in self.runs if r.hook == hook)

    def killed(self, hook: str) -> int:
        return sum(1 for r in self.runs if r.hook == hook and r.killed)


@dataclass(frozen=True, slots=True)
class Stage:
    """The fixed parts of a phase: the laptop and its project folders, the queries."""

    laptop: Machine
    checkouts: list[Path]
    queries: list[str]
    prompts: int
    ramp: float
    logs: Path


def session_processes(stage: Stage, sessions: int, seen: Observed) -> None:
    """``sessions`` session processes (:mod:`bench.common.load_session`), each in a session
    of its own, started together once all are ready (or one after another over
    ``stage.ramp`` seconds); what each saw is added to ``seen``."""
    processes = []
    for number in range(sessions):
        spec = {
            "machine": stage.laptop.spec(),
            "number": number,
            "cwd": str(stage.checkouts[number % len(stage.checkouts)]),
            "queries": [
                stage.queries[(number * 7 + turn) % len(stage.queries)]
                for turn in range(stage.prompts)
            ],
            "errlog": str(stage.logs / f"mcp-{number}.log"),
            "delay": stage.ramp * number / sessions,
        }
        process = subprocess.Popen(
            driver("load_session"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            env=BASE_ENV, cwd=REPO, start_new_session=True, text=True,
        )  # fmt: skip
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(spec) + "\n")
        process.stdin.flush()
        processes.append(process)
    for process in processes:
        assert process.stdout is not None
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError("a session process failed to start")
    for process in processes:  # go
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.close()
    for process in processes:
        assert process.stdout is not None
        out = process.stdout.read()
        if process.wait() != 0 or not out.strip():
            seen.failures.append(f"a session process exited {process.returncode}")
            continue
        report = json.loads(out)
        with seen.lock:
            seen.sessions.append(report["sid"])
            seen.written.extend(report["written"])
            for kind, seconds in report["cpu"].items():
                seen.cpu[kind] += seconds
        for hook, seconds, killed, code, err in report["runs"]:
            seen.add(HookRun(hook, seconds, killed, code, err))


def desktop_loop(desktop: Machine, stop: threading.Event, seen: Observed) -> None:
    """The second machine: write a note, sync, again, until the sessions are over."""
    round_ = 0
    while not stop.is_set():
        round_ += 1
        title = f"desktop round {round_}"
        wrote = desktop.cli("write", "--title", title, f"desktop note {round_}", check=False)
        done = desktop.cli("sync", "--json", check=False)
        with seen.lock:
            seen.desktop_syncs += 1
            for what, ran in (("write", wrote), ("sync", done)):
                if ran.returncode != 0 and "sync already running" not in ran.stderr:
                    seen.failures.append(f"desktop {what}: {ran.stderr.strip()[-300:]}")


def cpu_seconds() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine since boot, all cores (Linux; zeros
    elsewhere): other work on the machine shows here too."""
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields) - idle) / ticks, sum(fields) / ticks


def run_phase(stage: Stage, desktop: Machine | None, sessions: int) -> Observed:
    """``sessions`` sessions at once (and the desktop's loop, if given)."""
    seen = Observed()
    busy, total = cpu_seconds()
    stop = threading.Event()
    loop = None
    if desktop is not None:
        loop = threading.Thread(target=desktop_loop, args=(desktop, stop, seen))
        loop.start()
    try:
        session_processes(stage, sessions, seen)
    finally:
        stop.set()
        if loop is not None:
            loop.join()
    now_busy, now_total = cpu_seconds()
    seen.cpu["machine_busy"], seen.cpu["machine_total"] = now_busy - busy, now_total - total
    return seen


def check_phase(stage: Stage, desktop: Machine, seen: Observed) -> dict[str, Any]:
    """Once the detached work is done: nothing lost, the index equal to the files, and
    every session note on the desktop after both sync."""
    laptop = stage.laptop
    drained = wait_for_detached(laptop.home, DETACHED_DEADLINE_S)
    listed = json.loads(laptop.cli("list", "--json", "--limit", "0").stdout)
    captured = {note.get("prov_session") for note in listed if "session" in note.get("tags", [])}
    titles = {note["title"] for note in listed}
    on_disk = {
        path.stem
        for tree in (laptop.home / "memory", laptop.home / "local")
        for path in tree.rglob("*.md")
        if ".git" not in path.parts
    }
    for machine in (laptop, desktop, laptop, desktop):
        machine.cli("sync", "--json")
    on_desktop = json.loads(desktop.cli("list", "--json", "--limit", "0").stdout)
    desktop_sessions = {note.get("prov_session") for note in on_desktop}
    failed_lines = [line for line in read_log(laptop) if " failed: " in line or "Traceback" in line]
    return {
        "detached_done_s": round(drained, 1),
        "sessions_captured": sum(1 for sid in seen.sessions if sid in captured),
        "sessions": len(seen.sessions),
        "mcp_writes_found": sum(1 for title in seen.written if title in titles),
        "mcp_writes": len(seen.written),
        "index_equals_files": {note["id"] for note in listed} == on_disk,
        "sessions_on_desktop": sum(1 for sid in seen.sessions if sid in desktop_sessions),
        "desktop_syncs": seen.desktop_syncs,
        "hook_failures": seen.failures + failed_lines,
    }


def read_log(machine: Machine) -> list[str]:
    path = machine.home / "logs" / "hooks.log"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile of sorted ``values`` (0 for none)."""
    if not values:
        return 0.0
    return values[max(0, math.ceil(share * len(values)) - 1)]


def summary(seen: Observed) -> dict[str, dict[str, float]]:
    out = {}
    for hook in HOOK_ORDER:
        times = seen.times(hook)
        if times:
            out[hook] = {"n": len(times), "p50": percentile(times, 0.5),
                         "p95": percentile(times, 0.95), "max": times[-1],
                         "killed": seen.killed(hook)}  # fmt: skip
    return out


def contender(code: Path, root: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One checkout: a fresh world, one session alone, then the load."""
    root.mkdir()
    notes = corpus.write_jsonl(corpus.generate(args.notes, projects=PROJECTS), root / "notes.jsonl")
    remote = bare_remote(root / "remote.git")
    laptop, desktop = (
        Machine("laptop", root / "laptop", code),
        Machine("desktop", root / "desktop", code),
    )
    for machine in (laptop, desktop):
        machine.init(remote)
    laptop.seed(notes)
    laptop.cli("sync", "--json")
    desktop.cli("sync", "--json")
    checkouts = [
        project_checkout(
            laptop.user / "code" / name.rsplit("/", 1)[1],
            f"git@github.com:{name.split('/', 1)[1]}.git",
        )
        for name in corpus.project_names(PROJECTS)
    ]
    logs = root / "logs"
    logs.mkdir()
    stage = Stage(laptop, checkouts, corpus.queries(), args.prompts, args.ramp, logs)
    run_phase(stage, None, 1)  # warm-up: bytecode caches, the page cache
    wait_for_detached(laptop.home, DETACHED_DEADLINE_S)
    alone = run_phase(stage, None, 1)
    wait_for_detached(laptop.home, DETACHED_DEADLINE_S)
    began = time.monotonic()
    loaded = run_phase(stage, desktop, args.sessions)
    sessions_s = time.monotonic() - began
    checks = check_phase(stage, desktop, loaded)
    return {"alone": summary(alone), "load": summary(loaded), "checks": checks,
            "sessions_s": round(sessions_s, 1), "cpu": loaded.cpu}  # fmt: skip


def print_report(name: str, code: Path, result: dict[str, Any], args: argparse.Namespace) -> None:
    when = f"started over {args.ramp:g} s" if args.ramp else "at once"
    print(f"\n== {name} ({code}): {args.sessions} sessions {when} vs one alone ==")
    print(f"{'hook':<12} {'alone p50 / p95 / max (s)':>27} {'load p50 / p95 / max (s)':>27}"
          f" {'killed':>7}  target")  # fmt: skip
    for hook in HOOK_ORDER:
        load = result["load"].get(hook)
        if load is None:
            continue
        alone = result["alone"].get(hook, {"p50": 0.0, "p95": 0.0, "max": 0.0})
        target = TARGETS.get(hook)
        verdict = ""
        if target is not None:
            which, limit = target
            met = load[which] < limit and not load["killed"]
            verdict = f"{which} < {limit:.0f} s: {'OK' if met else 'MISSED'}"
        cells = [f"{alone[k]:7.2f}" for k in ("p50", "p95", "max")]
        loaded = [f"{load[k]:7.2f}" for k in ("p50", "p95", "max")]
        print(f"{hook:<12} {' /'.join(cells):>27} {' /'.join(loaded):>27}"
              f" {int(load['killed']):>7}  {verdict}")  # fmt: skip
    checks = result["checks"]
    print(
        f"sessions ran in {result['sessions_s']} s; detached work done"
        f" {checks['detached_done_s']} s later; session notes"
        f" {checks['sessions_captured']}/{checks['sessions']} on the laptop,"
        f" {checks['sessions_on_desktop']}/{checks['sessions']} on the desktop; MCP writes"
        f" {checks['mcp_writes_found']}/{checks['mcp_writes']}; index = files:"
        f" {checks['index_equals_files']}; desktop syncs {checks['desktop_syncs']};"
        f" hook failures {len(checks['hook_failures'])}"
    )
    cpu = result["cpu"]
    print(
        f"CPU during the load: sessions (Claude Code's part) {cpu['session']:.1f} s, their hooks"
        f" and MCP servers {cpu['children']:.1f} s; the machine was busy"
        f" {cpu['machine_busy']:.0f} of {cpu['machine_total']:.0f} core-seconds (other work"
        " included)"
    )
    for line in checks["hook_failures"][:10]:
        print(f"  failure: {line}")


def lost_anything(result: dict[str, Any]) -> bool:
    checks = result["checks"]
    return (
        checks["sessions_captured"] != checks["sessions"]
        or checks["sessions_on_desktop"] != checks["sessions"]
        or checks["mcp_writes_found"] != checks["mcp_writes"]
        or not checks["index_equals_files"]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=20, help="sessions at once (20)")
    parser.add_argument("--prompts", type=int, default=5, help="prompts per session (5)")
    parser.add_argument("--notes", type=int, default=500, help="notes the store starts with")
    parser.add_argument("--ramp", type=float, default=0.0,
                        help="start the sessions one after another over this many seconds"
                        " (default 0: all at the same moment)")  # fmt: skip
    parser.add_argument("--baseline", type=Path, help="another checkout, run after this one")
    parser.add_argument("--root", type=Path, help="keep the machines here (a new folder)")
    args = parser.parse_args()
    if args.sessions < 1 or args.prompts < 0 or args.notes < 0 or args.ramp < 0:
        parser.error("--sessions must be 1 or more, --prompts, --notes and --ramp 0 or more")
    codes = {"this": REPO}
    if args.baseline is not None:
        base = args.baseline.resolve()
        if not (base / "packages" / "anamnesis-hooks" / "src").is_dir():
            parser.error(f"--baseline {base}: not a checkout of this project (no packages/)")
        codes["baseline"] = base
    results = {}
    with workspace(args.root) as root:
        for name, code in codes.items():
            results[name] = contender(code, root / name, args)
            print_report(name, code, results[name], args)
    if "baseline" in results:
        print(f"\n== this vs baseline, {args.sessions} sessions at once (seconds) ==")
        for hook in ("inject", "prompt", "capture"):
            ours, base = results["this"]["load"][hook], results["baseline"]["load"][hook]
            print(f"{hook:<8} p95 {ours['p95']:6.2f} vs {base['p95']:6.2f} | max"
                  f" {ours['max']:6.2f} vs {base['max']:6.2f} | killed {int(ours['killed'])}"
                  f" vs {int(base['killed'])}")  # fmt: skip
    print(json.dumps({"bench": "load", "sessions": args.sessions, "prompts": args.prompts,
                      "notes": args.notes, "ramp": args.ramp, "results": results}))  # fmt: skip
    return 1 if lost_anything(results["this"]) else 0


if __name__ == "__main__":
    sys.exit(main())
