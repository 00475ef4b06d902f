"""Fleet (issue 29): a team's machines sharing one bare remote, as people run them.

    uv run python -m bench.scale.fleet [--machines 10] [--base-notes 10000] [--per-round 50]
                                       [--rounds 3] [--concurrency 1] [--quick] [--root DIR]
                                       [--code CHECKOUT]

A bare remote (dulwich, a path on this file system) starts with ``--base-notes`` notes of
the store bench's corpus (1-4 KB, ``corpus.generate``), pushed by a seeding machine. Then
``--machines`` machines, each its own ``ANAMNESIS_HOME``, ``HOME``, Claude Code folder and
machine id (``ANAMNESIS_MACHINE_ID``), with the remote as ``ANAMNESIS_GIT_REMOTE``:

* first sync: each runs `anamnesis sync --json` (pulls the whole store, builds its index);
* ``--rounds`` rounds: each writes ``--per-round`` notes through the store (one process,
  as an MCP server writes them), then runs `anamnesis sync --json`;
* final: each syncs once more, so every machine has every other's last round.

Every sync is a real process of the `anamnesis` command: its wall time and peak RSS are
measured (``wait4``). ``--concurrency 1`` (the default) runs the machines one after
another, so each time is one sync's alone; 2 runs two machines at once in the rounds, so
pushes race for the remote and the sync's retry on a moved remote is exercised (times then
include the other sync's share of this 2-core machine).

Checks (any failure: exit 1). Each machine's are run right after its final sync, while
its files are still in the page cache, so no step reads 50 stores back from disk: its
notes folder, each file read once, byte-identical to the remote's tip (each file's git
blob id against the tip tree's entry; machine-local notes live outside it, in ``local/``,
by design) and with no conflict note; its index lists exactly the notes on disk
(`anamnesis list --limit 0 --json`); a keyword search finds the last note another machine
wrote. Once all are done: every machine was checked against the same tip, the remote's
last, so all are byte-identical to each other; that tip holds exactly the notes written
(the seeded ones and every machine's); no conflict reported by any sync; no failed sync
(exit code); the remote sound by dulwich's checks and, where git is installed, by
`git fsck --full --strict`. A check that cannot run (an error) is a failure too.

``--code DIR`` runs every machine on the checkout at DIR (its ``packages/*/src`` first on
the path), to compare a change with the commit before it: one run each, one after the other.

Output: one JSON line per sync, per machine's checks and per phase (``"bench": "fleet"``),
then a summary. Not in ``bench.suites``: `nox -s bench` does not run it (minutes at 10
machines and 10,000 notes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dulwich.repo import Repo

from bench.common import fleet_checks as checks
from bench.common.fleet_machine import FleetMachine
from bench.common.fleet_phases import (
    phase_summary,
    summary_cells,
    sync_record,
    sync_then_check,
    writes_note,
)
from bench.common.machine_checks import run_machine_checks
from bench.common.places import REPO
from bench.common.processes import Ran, driver, run_measured
from bench.common.sync_runs import sync_process, write_notes
from bench.common.workspace import workspace


@dataclass(frozen=True, slots=True)
class Machine(FleetMachine):
    """One computer of the team, with the remote in its environment."""

    remote: Path

    def env(self) -> dict[str, str]:
        return {**FleetMachine.env(self), "ANAMNESIS_GIT_REMOTE": str(self.remote)}


@dataclass(slots=True)
class Fleet:
    """What the run has seen so far: every sync, every note written, every failure."""

    machines: list[Machine]
    remote: Path
    seeded: set[str]  # the ids of the notes the remote started with
    syncs: list[dict[str, Any]] = field(default_factory=list)
    written: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # by machine
    phases: list[dict[str, Any]] = field(default_factory=list)
    checked: list[dict[str, Any]] = field(default_factory=list)  # each machine's checks
    tip: checks.Tip | None = None  # the remote's tip as last read (read again if it moved)

    def expected(self) -> set[str]:
        """Every note that should be on every machine: seeded, then each one written."""
        return self.seeded | {i for notes in self.written.values() for i, _ in notes}

    def current_tip(self) -> checks.Tip:
        self.tip = checks.remote_tip(self.remote, self.tip)
        return self.tip


def emit(record: dict[str, Any]) -> None:
    print(json.dumps({"bench": "fleet", **record}), flush=True)


def remote_notes(remote: Path) -> int:
    return len(checks.note_ids(checks.remote_tip(remote).files))


def sync(machine: Machine, phase: str, **extra: Any) -> dict[str, Any]:
    """`anamnesis sync --json` on ``machine``: its outcome, time and peak RSS (``extra``
    is reported along, e.g. how long the round's writes took)."""
    record, report = sync_record(machine.name, phase, machine.cli("sync", "--json"))
    record.update(
        pushed=report.get("pushed"),
        pulled=report.get("pulled"),
        indexed=report.get("indexed"),
        conflicts=report.get("conflicts", []),
        conflicted=report.get("conflicted"),
        detail=report.get("detail"),
        **extra,
    )
    emit(record)
    return record


def write(machine: Machine, round_: int, count: int) -> tuple[list[tuple[str, str]], Ran]:
    """``count`` new notes on ``machine``, each ending in a word no other note has."""
    seed = 1_000 + round_ * 1_000 + int(machine.name[1:])
    tag = f"fleet{machine.name}r{round_}"
    args = [*driver("fleet_writer"), str(machine.home), machine.name, tag, str(count), str(seed)]
    ran = run_measured(args, machine.env(), cwd=REPO)
    if ran.code != 0:
        raise RuntimeError(f"{machine.name} could not write its notes: {ran.err}")
    return [(str(i), str(w)) for i, w in json.loads(ran.out)], ran


def run_phase(
    fleet: Fleet, phase: str, step: Callable[[Machine], dict[str, Any]], concurrency: int
) -> None:
    """``step`` on every machine, ``concurrency`` at a time, in machine order."""
    before = remote_notes(fleet.remote)
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        records = list(pool.map(step, fleet.machines))
    fleet.syncs.extend(records)
    failed = sum(1 for r in records if r["exit"] != 0)
    summary = phase_summary(phase, records, failed, remote_notes_before=before,
                            syncs=len(records))  # fmt: skip
    summary.update(checks.remote_packs(fleet.remote))
    fleet.phases.append(summary)
    emit(summary)


def round_step(fleet: Fleet, round_: int, per_round: int) -> Callable[[Machine], dict[str, Any]]:
    def step(machine: Machine) -> dict[str, Any]:
        written, ran = write(machine, round_, per_round)
        fleet.written.setdefault(machine.name, []).extend(written)
        return sync(machine, f"round {round_}", write_s=round(ran.seconds, 3))

    return step


def seed_remote(root: Path, notes: int) -> tuple[Path, set[str]]:
    """A bare remote holding ``notes`` notes, pushed by a seeding machine; their ids."""
    remote = root / "remote.git"
    remote.mkdir(parents=True)
    Repo.init_bare(str(remote), default_branch=b"main").close()
    seeder = root / "seed" / "memory"
    write_notes(seeder, notes)
    seeded = {path.stem for path in seeder.rglob("*.md")}
    pushed = sync_process(REPO, seeder, remote, "seed")  # the same seed for any --code
    if pushed["error"]:
        raise RuntimeError(f"the seeding machine could not push: {pushed['error']}")
    emit({"phase": "seed", "notes": notes, "seconds": pushed["seconds"],
          "rss_mb": pushed["rss_mb"], **checks.remote_packs(remote)})  # fmt: skip
    return remote, seeded


def check_machine(fleet: Fleet, machine: Machine) -> dict[str, Any]:
    """One machine's checks: its folder against the remote's tip, its index, its search."""

    def check(findings: dict[str, list[str]], record: dict[str, Any]) -> None:
        tip = fleet.current_tip()
        record["tip"] = tip.commit
        folder = checks.scan_folder(machine.memory)
        findings["tree"] = checks.tree_differences(folder.files, tip)
        findings["conflict_notes"] = folder.conflicts
        findings["index"] = index_findings(machine, checks.note_ids(folder.files))
        findings["search"] = search_findings(fleet, machine)

    kinds = ("tree", "conflict_notes", "index", "search")
    return run_machine_checks(machine.name, kinds, check, emit, tip=None)


def index_findings(machine: Machine, on_disk: set[str]) -> list[str]:
    """The index lists exactly the notes on disk."""
    listed = {note["id"] for note in machine.cli_json("list", "--limit", "0", "--json")}
    return checks.id_differences(listed, on_disk, "listed")


def search_findings(fleet: Fleet, machine: Machine) -> list[str]:
    """A keyword search finds, first, the last note the next machine wrote."""
    number = fleet.machines.index(machine)
    other = fleet.machines[(number + 1) % len(fleet.machines)]
    note_id, word = fleet.written[other.name][-1]
    hits = [hit["id"] for hit in machine.cli_json("search", word, "--json", "-k", "3")]
    if hits[:1] == [note_id]:
        return []
    return [f"searching {other.name}'s {word} ({note_id}) found {hits}"]


def machine_failures(fleet: Fleet, kind: str) -> list[str]:
    """Every machine's findings of one kind, each line naming its machine."""
    return [f"{c['machine']}: {line}" for c in fleet.checked for line in c[kind]]


def tip_failures(fleet: Fleet, tip: checks.Tip) -> list[str]:
    """Machines not checked, or checked against another tip than the remote's last."""
    seen = {c["machine"]: c["tip"] for c in fleet.checked}
    unchecked = [f"{m.name}: not checked" for m in fleet.machines if m.name not in seen]
    moved = [
        f"{name}: checked against {commit}, the remote ended at {tip.commit}"
        for name, commit in seen.items()
        if commit not in (None, tip.commit)  # None: its error is reported already
    ]
    return unchecked + moved


def verify(fleet: Fleet) -> dict[str, Any]:
    """The checks of the docstring from each machine's and the remote as it ended."""
    started = time.perf_counter()
    tip = checks.remote_tip(fleet.remote)
    expected = fleet.expected()
    on_remote = checks.note_ids(tip.files)
    fsck_git = checks.git_fsck(fleet.remote)
    differing = tip_failures(fleet, tip) + machine_failures(fleet, "tree")
    result: dict[str, Any] = {
        "phase": "checks",
        "remote_tip": tip.commit,
        "machines_checked": len(fleet.checked),
        "notes_expected": len(expected),
        "notes_on_remote": len(on_remote),
        "notes_wrong": checks.id_differences(on_remote, expected, "on the remote"),
        "trees_differing": differing,
        "index_wrong": machine_failures(fleet, "index"),
        "search_missed": machine_failures(fleet, "search"),
        "check_errors": machine_failures(fleet, "errors"),
        "conflict_notes": len(machine_failures(fleet, "conflict_notes")),
        "conflict_notes_found": machine_failures(fleet, "conflict_notes"),
        "conflicts_reported": sum(1 for r in fleet.syncs if r["conflicted"] or r["conflicts"]),
        "failed_syncs": sum(1 for r in fleet.syncs if r["exit"] != 0),
        "dulwich_fsck": checks.dulwich_fsck(fleet.remote),
        "git_fsck": "git not installed" if fsck_git is None else fsck_git,
    }
    result["trees_identical"] = not differing and not result["notes_wrong"]
    result["index_consistent"] = not result["index_wrong"]
    result["search_across_machines"] = not result["search_missed"]
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["passed"] = bool(
        result["trees_identical"]
        and result["index_consistent"]
        and result["search_across_machines"]
        and not result["check_errors"]
        and result["conflicts_reported"] == 0
        and result["conflict_notes"] == 0
        and result["failed_syncs"] == 0
        and not result["dulwich_fsck"]
        and fsck_git in ("", None)
    )
    emit(result)
    return result


def run_fleet(root: Path, args: argparse.Namespace) -> tuple[Fleet, dict[str, Any]]:
    remote, seeded = seed_remote(root, args.base_notes)
    width = len(str(args.machines))
    machines = [
        Machine(f"m{n:0{width}d}", root / f"m{n:0{width}d}", args.code.resolve(), remote)
        for n in range(1, args.machines + 1)
    ]
    fleet = Fleet(machines, remote, seeded)
    for machine in machines:  # set up as a user does (config, hooks), the first sync apart
        ran = machine.cli("init", "--yes", "--no-sync", "--remote", str(remote),
                          "--machine-id", machine.name)  # fmt: skip
        if ran.code != 0:
            raise RuntimeError(f"`anamnesis init` failed on {machine.name}: {ran.err}")
    # The first pull of the whole store: one at a time, as each is what a new machine meets.
    run_phase(fleet, "first sync", lambda m: sync(m, "first sync"), 1)
    for round_ in range(1, args.rounds + 1):
        step = round_step(fleet, round_, args.per_round)
        run_phase(fleet, f"round {round_}", step, args.concurrency)
    # One at a time: each machine's checks follow its sync while its files are cached.
    final = sync_then_check(sync, lambda m: check_machine(fleet, m), fleet.checked)
    run_phase(fleet, "final", final, 1)
    return fleet, verify(fleet)


def print_summary(fleet: Fleet, result: dict[str, Any], args: argparse.Namespace) -> None:
    print(
        f"\n== fleet: {args.machines} machines, remote from {args.base_notes} notes, "
        f"{args.rounds} rounds of {args.per_round} notes each, concurrency {args.concurrency} =="
    )
    print(f"{'phase':>10} | remote notes | sync median / max s | peak RSS median / max MB "
          "| failed | remote packs, MB, loose after")  # fmt: skip
    for p in fleet.phases:
        print(f"{p['phase']:>10} | {p['remote_notes_before']:>12} | {summary_cells(p)} | "
              f"{p['packs']}, {p['pack_mb']}, {p['loose']}"
              + writes_note(p, args.per_round))  # fmt: skip
    if fleet.checked:
        took = [c["seconds"] for c in fleet.checked]
        print(f"each machine's checks after its final sync: {statistics.median(took):.1f} / "
              f"{max(took):.1f} s (median / max); the remote's at the end: "
              f"{result['seconds']:.0f} s")  # fmt: skip
    verdict = "PASSED" if result["passed"] else "FAILED"
    print(
        f"checks {verdict}: trees identical {result['trees_identical']} "
        f"({result['notes_on_remote']} notes, {result['notes_expected']} expected); "
        f"index consistent {result['index_consistent']}; "
        f"search across machines {result['search_across_machines']}; "
        f"check errors {len(result['check_errors'])}; "
        f"conflicts {result['conflicts_reported']} reported, {result['conflict_notes']} notes; "
        f"failed syncs {result['failed_syncs']}; "
        f"dulwich fsck {'clean' if not result['dulwich_fsck'] else result['dulwich_fsck'][:3]}; "
        f"git fsck --full --strict {result['git_fsck'] or 'clean'}"
    )
    shown = ("notes_wrong", "trees_differing", "index_wrong", "search_missed", "check_errors",
             "conflict_notes_found")  # fmt: skip
    for key in shown:
        for line in result[key][:5]:
            print(f"  {key}: {line}")
        if len(result[key]) > 5:
            print(f"  {key}: ... {len(result[key]) - 5} more (the JSON line has them all)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--base-notes", type=int, default=10_000)
    parser.add_argument("--per-round", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=1, choices=(1, 2, 3, 4))
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run: 3 machines, 200 notes, 2 rounds of 5")  # fmt: skip
    parser.add_argument("--root", type=Path, help="a new folder to run in, kept afterwards")
    parser.add_argument("--code", type=Path, default=REPO,
                        help="run the machines on another checkout (e.g. a baseline)")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.machines, args.base_notes, args.per_round, args.rounds = 3, 200, 5, 2
    started = time.perf_counter()
    with workspace(args.root) as root:
        try:
            fleet, result = run_fleet(root, args)
        except Exception:
            print(f"fleet FAILED: the run stopped after {time.perf_counter() - started:.0f} s "
                  "(the traceback follows)", file=sys.stderr, flush=True)  # fmt: skip
            raise
    print_summary(fleet, result, args)
    print(f"whole run: {time.perf_counter() - started:.0f} s")
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
