"""Fleet (issue 29): a team's machines sharing one bare remote, as people run them.

    uv run python bench/fleet.py [--machines 10] [--base-notes 10000] [--per-round 50]
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

Checks at the end (any failure: exit 1): every machine's notes folder byte-identical to
every other's and to the remote's tip (machine-local notes live outside it, in
``local/``, by design), holding exactly the notes written; every index lists exactly the
notes on disk (`anamnesis list --limit 0 --json`) and a keyword search finds a note
another machine wrote; no conflict reported by any sync and no conflict note on disk;
no failed sync (exit code); the remote sound by dulwich's checks and, where git is
installed, by `git fsck --full --strict`.

``--code DIR`` runs every machine on the checkout at DIR (its ``packages/*/src`` first on
the path), to compare a change with the commit before it: one run each, one after the other.

Output: one JSON line per sync and per phase (``"bench": "fleet"``), then a summary. Not a
``*_bench.py``: `nox -s bench` does not run it (minutes at 10 machines and 10,000 notes).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dulwich.repo import Repo

import _fleet_checks as checks
from _processes import Ran, run_measured, running
from scale_bench import sync_process
from sync_bench import write_notes

HERE = Path(__file__).resolve().parent
# One machine's writes in a round: through the store's public API in one process, each
# note's body ending in a word of its own (for the cross-machine search check).
WRITER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import corpus
from anamnesis.store import MemoryStore
home, machine, tag = sys.argv[2:5]
count, seed = int(sys.argv[5]), int(sys.argv[6])
written = []
with MemoryStore(home) as store:
    for n, note in enumerate(corpus.generate(count, seed=seed)):
        word = f"{tag}n{n}"
        saved = store.write(type=note.type, title=note.title, body=f"{note.body}\\n\\n{word}",
                            project=note.project, tags=note.tags, machine_id=machine)
        written.append([saved.id, word])
print(json.dumps(written))
"""


@dataclass(frozen=True, slots=True)
class Machine:
    """One computer of the team: its own home, Claude Code folder and machine id."""

    name: str
    root: Path
    remote: Path
    code: Path  # the checkout whose packages it runs

    @property
    def home(self) -> Path:
        return self.root / "anamnesis"

    @property
    def memory(self) -> Path:
        return self.home / "memory"

    def env(self) -> dict[str, str]:
        base = running(self.code)
        inherited = {k: v for k, v in base.items() if not k.startswith("ANAMNESIS_")}
        return {
            **inherited,
            "HOME": str(self.root / "user"),
            "ANAMNESIS_HOME": str(self.home),
            "ANAMNESIS_MACHINE_ID": self.name,
            "ANAMNESIS_GIT_REMOTE": str(self.remote),
            "CLAUDE_CONFIG_DIR": str(self.root / "claude"),
            # Keyword search: no embedding model loads (vectors are not what is measured).
            "ANAMNESIS_SEARCH_MODE": "keyword",
        }

    def cli(self, *args: str) -> Ran:
        return run_measured([sys.executable, "-m", "anamnesis.cli", *args], self.env())


@dataclass(slots=True)
class Fleet:
    """What the run has seen so far: every sync, every note written, every failure."""

    machines: list[Machine]
    remote: Path
    syncs: list[dict[str, Any]] = field(default_factory=list)
    written: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # by machine
    phases: list[dict[str, Any]] = field(default_factory=list)


def emit(record: dict[str, Any]) -> None:
    print(json.dumps({"bench": "fleet", **record}), flush=True)


def remote_notes(remote: Path) -> int:
    return sum(1 for path in checks.remote_tree(remote) if path.endswith(".md"))


def sync(machine: Machine, phase: str, **extra: Any) -> dict[str, Any]:
    """`anamnesis sync --json` on ``machine``: its outcome, time and peak RSS (``extra``
    is reported along, e.g. how long the round's writes took)."""
    ran = machine.cli("sync", "--json")
    record: dict[str, Any] = {
        "phase": phase,
        "machine": machine.name,
        "seconds": round(ran.seconds, 3),
        "rss_mb": round(ran.rss_mb, 1),
        "exit": ran.code,
        "error": ran.last_error_line(),
    }
    try:
        report = json.loads(ran.out)
    except json.JSONDecodeError:
        report = {}
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
    args = [sys.executable, "-c", WRITER, str(HERE), str(machine.home), machine.name, tag,
            str(count), str(seed)]  # fmt: skip
    ran = run_measured(args, machine.env())
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
    seconds = [r["seconds"] for r in records]
    summary: dict[str, Any] = {
        "phase": phase,
        "summary": True,
        "remote_notes_before": before,
        "syncs": len(records),
        "median_s": round(statistics.median(seconds), 3),
        "max_s": round(max(seconds), 3),
        "median_rss_mb": round(statistics.median(r["rss_mb"] for r in records), 1),
        "max_rss_mb": round(max(r["rss_mb"] for r in records), 1),
        "failed": sum(1 for r in records if r["exit"] != 0),
        **checks.remote_packs(fleet.remote),
    }
    writes = [r["write_s"] for r in records if "write_s" in r]
    if writes:
        summary["write_median_s"] = round(statistics.median(writes), 3)
    fleet.phases.append(summary)
    emit(summary)


def round_step(fleet: Fleet, round_: int, per_round: int) -> Callable[[Machine], dict[str, Any]]:
    def step(machine: Machine) -> dict[str, Any]:
        written, ran = write(machine, round_, per_round)
        fleet.written.setdefault(machine.name, []).extend(written)
        return sync(machine, f"round {round_}", write_s=round(ran.seconds, 3))

    return step


def seed_remote(root: Path, notes: int) -> Path:
    remote = root / "remote.git"
    remote.mkdir(parents=True)
    Repo.init_bare(str(remote), default_branch=b"main").close()
    seeder = root / "seed" / "memory"
    write_notes(seeder, notes)
    pushed = sync_process(HERE.parent, seeder, remote, "seed")  # the same seed for any --code
    if pushed["error"]:
        raise RuntimeError(f"the seeding machine could not push: {pushed['error']}")
    emit({"phase": "seed", "notes": notes, "seconds": pushed["seconds"],
          "rss_mb": pushed["rss_mb"], **checks.remote_packs(remote)})  # fmt: skip
    return remote


def verify(fleet: Fleet, expected_notes: int) -> dict[str, Any]:
    """Every check of the docstring; each result says what it found."""
    trees = {m.name: checks.folder_tree(m.memory) for m in fleet.machines}
    reference = checks.remote_tree(fleet.remote)
    differing = sorted(name for name, tree in trees.items() if tree != reference)
    notes_on_disk = sum(1 for path in reference if path.endswith(".md"))
    stems = {Path(path).stem for path in reference if path.endswith(".md")}
    index_wrong: list[str] = []
    search_missed: list[str] = []
    for number, machine in enumerate(fleet.machines):
        listed = machine.cli("list", "--limit", "0", "--json")
        ids = {note["id"] for note in json.loads(listed.out)} if listed.code == 0 else set()
        if ids != stems:
            extra, missing = len(ids - stems), len(stems - ids)
            index_wrong.append(f"{machine.name}: {extra} listed not on disk, {missing} unlisted")
        other = fleet.machines[(number + 1) % len(fleet.machines)]
        note_id, word = fleet.written[other.name][-1]
        found = machine.cli("search", word, "--json", "-k", "3")
        hits = [hit["id"] for hit in json.loads(found.out)] if found.code == 0 else []
        if hits[:1] != [note_id]:
            search_missed.append(f"{machine.name} searching {other.name}'s {word}: {hits}")
    fsck_git = checks.git_fsck(fleet.remote)
    result: dict[str, Any] = {
        "phase": "checks",
        "notes_expected": expected_notes,
        "notes_on_remote": notes_on_disk,
        "trees_identical": not differing and notes_on_disk == expected_notes,
        "trees_differing": differing,
        "index_consistent": not index_wrong,
        "index_wrong": index_wrong,
        "search_across_machines": not search_missed,
        "search_missed": search_missed,
        "conflicts_reported": sum(1 for r in fleet.syncs if r["conflicted"] or r["conflicts"]),
        "conflict_notes": sum(len(checks.conflict_notes(m.memory)) for m in fleet.machines),
        "failed_syncs": sum(1 for r in fleet.syncs if r["exit"] != 0),
        "dulwich_fsck": checks.dulwich_fsck(fleet.remote),
        "git_fsck": "git not installed" if fsck_git is None else fsck_git,
    }
    result["passed"] = bool(
        result["trees_identical"]
        and result["index_consistent"]
        and result["search_across_machines"]
        and result["conflicts_reported"] == 0
        and result["conflict_notes"] == 0
        and result["failed_syncs"] == 0
        and not result["dulwich_fsck"]
        and fsck_git in ("", None)
    )
    emit(result)
    return result


def run_fleet(root: Path, args: argparse.Namespace) -> tuple[Fleet, dict[str, Any]]:
    remote = seed_remote(root, args.base_notes)
    width = len(str(args.machines))
    machines = [
        Machine(f"m{n:0{width}d}", root / f"m{n:0{width}d}", remote, args.code.resolve())
        for n in range(1, args.machines + 1)
    ]
    fleet = Fleet(machines, remote)
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
    run_phase(fleet, "final", lambda m: sync(m, "final"), 1)
    expected = args.base_notes + args.machines * args.rounds * args.per_round
    return fleet, verify(fleet, expected)


def print_summary(fleet: Fleet, result: dict[str, Any], args: argparse.Namespace) -> None:
    print(
        f"\n== fleet: {args.machines} machines, remote from {args.base_notes} notes, "
        f"{args.rounds} rounds of {args.per_round} notes each, concurrency {args.concurrency} =="
    )
    print(f"{'phase':>10} | remote notes | sync median / max s | peak RSS median / max MB "
          "| failed | remote packs, MB, loose after")  # fmt: skip
    for p in fleet.phases:
        writes = p.get("write_median_s")
        print(
            f"{p['phase']:>10} | {p['remote_notes_before']:>12} | "
            f"{p['median_s']:>8.2f} / {p['max_s']:<8.2f} | "
            f"{p['median_rss_mb']:>10.0f} / {p['max_rss_mb']:<11.0f} | {p['failed']:>6} | "
            f"{p['packs']}, {p['pack_mb']}, {p['loose']}"
            + (f"   (writes of {args.per_round}: {writes:.2f} s)" if writes is not None else "")
        )
    verdict = "PASSED" if result["passed"] else "FAILED"
    print(
        f"checks {verdict}: trees identical {result['trees_identical']} "
        f"({result['notes_on_remote']} notes, {result['notes_expected']} expected); "
        f"index consistent {result['index_consistent']}; "
        f"search across machines {result['search_across_machines']}; "
        f"conflicts {result['conflicts_reported']} reported, {result['conflict_notes']} notes; "
        f"failed syncs {result['failed_syncs']}; "
        f"dulwich fsck {'clean' if not result['dulwich_fsck'] else result['dulwich_fsck'][:3]}; "
        f"git fsck --full --strict {result['git_fsck'] or 'clean'}"
    )
    for key in ("trees_differing", "index_wrong", "search_missed"):
        for line in result[key][:5]:
            print(f"  {key}: {line}")


@contextmanager
def workspace(root: Path | None) -> Iterator[Path]:
    """``root`` when given (kept afterwards, for a look), else a temp dir removed after."""
    if root is not None:
        root.mkdir(parents=True, exist_ok=False)
        yield root
        return
    with tempfile.TemporaryDirectory(prefix="anamnesis-fleet-") as tmp:
        yield Path(tmp)


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
    parser.add_argument("--code", type=Path, default=HERE.parent,
                        help="run the machines on another checkout (e.g. a baseline)")  # fmt: skip
    args = parser.parse_args()
    if args.quick:
        args.machines, args.base_notes, args.per_round, args.rounds = 3, 200, 5, 2
    started = time.perf_counter()
    with workspace(args.root) as root:
        fleet, result = run_fleet(root, args)
    print_summary(fleet, result, args)
    print(f"whole run: {time.perf_counter() - started:.0f} s")
    sys.exit(0 if result["passed"] else 1)


if __name__ == "__main__":
    main()
