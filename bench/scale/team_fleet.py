"""Team fleet (issue 43): machines sharing an encrypted team remote, each with its own
personal remote, routing by project, as people run them.

    uv run python -m bench.scale.team_fleet [--machines 10] [--base-notes 400]
        [--per-round 20] [--rounds 2] [--repeats 5] [--quick] [--root DIR]

Every machine is its own ``ANAMNESIS_HOME``, ``HOME`` and machine id, set up with the CLI as
a team does it: `anamnesis init --remote <its personal bare remote>` (its default remote),
then the team remote (bare, dulwich, on this disk) routed by
``--projects 'github.com/team/*'`` and encrypted: the first machine runs
`remote add team URL --projects ... --encrypt` (the remote's recipients start with its
key); every other machine's key (`remote key`) is let in by the first machine's
`remote add-recipient team KEY`, then that machine runs the same `remote add`.

* seed: the first machine writes ``--base-notes`` notes (half in the team's projects, the
  rest global or its side project: ``bench.common.team_writer``);
* first sync: each machine runs `anamnesis sync --json` (the team's notes come in);
* ``--rounds`` rounds: each machine writes ``--per-round`` notes (half the team's), then
  syncs; final: each syncs once more, then its checks run at once (its files cached).

Every command is a real process; a sync's wall time and peak RSS are measured (``wait4``,
as ``bench.scale.fleet``). Checks (any failure: exit 1):

* personal remotes: each machine's remote's tip holds, by git blob id, exactly that
  machine's notes folder minus the team's notes, and exactly the personal notes it wrote;
  no note on it is in a team project (its frontmatter read);
* team remote: every machine's team notes (by frontmatter) byte-identical to every other
  machine's and exactly the team notes written; each machine's mirror folder
  (``<home>/remotes/team``) identical to the team remote's tip; the tip holds only
  ``.md.age`` notes of team notes, and every team note written;
* indexes: `anamnesis list --json` lists exactly the notes on disk;
* no conflict, no failed sync, no remote error (`sync --json`'s ``remotes`` list);
* dulwich's fsck (objects, packs, connectivity) clean on every remote, and
  `git fsck --full --strict` where git is installed (dangling objects aside);
* no plaintext on the encrypted remote: every object (loose and packed, decompressed) is
  scanned for each team note's title and its own closing word (searched within the
  objects' runs of printable ASCII, where any ASCII phrase would have to be); the same scan
  must find them on the plain team remote of the join timings (the scan can see text).

Timings, each pair measured side by side in one run, alternating which goes first
(``--repeats`` times; medians):

* no-op sync with two remotes (the first machine) against one remote: a control home with
  the same notes and only its default remote. Target: within 1.5x.
* a machine joining the team: `remote add team ...` then its first `sync --json` (which
  brings every team note in), encrypted against a plain team remote holding the same
  notes (its own seeding home pushed them). The joining machine's key is let in once
  (`add-recipient`); each encrypted join uses a fresh home with that key. Target: the
  encrypted join at most 2x the plain one. Reported for the whole join and the sync alone
  (`remote add --encrypt` already fetches the ciphertext; a plain add fetches nothing).

Output: one JSON line per step (``"bench": "team_fleet"``), then a table. Not in
``bench.suites`` (minutes at 10 machines).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dulwich.object_store import iter_tree_contents
from dulwich.objects import Blob, Commit
from dulwich.repo import Repo

from anamnesis.store import StoreError, parse_note
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
from bench.common.team_writer import TEAM_PREFIX
from bench.common.workspace import workspace

TEAM = "team"
TEAM_GLOB = TEAM_PREFIX + "*"
# A phrase shorter than this could turn up in random ciphertext by chance (and titles
# are long anyway): the scan looks for phrases of at least this many ASCII characters.
MIN_PHRASE = 12
_PRINTABLE_RUN = re.compile(rb"[\x20-\x7e]{%d,}" % MIN_PHRASE)


def emit(record: dict[str, Any]) -> None:
    print(json.dumps({"bench": "team_fleet", **record}), flush=True)


@dataclass(frozen=True, slots=True)
class Written:
    """A note a machine wrote: its id, its closing word, its project and title."""

    id: str
    word: str
    project: str
    title: str

    @property
    def team(self) -> bool:
        return self.project.startswith(TEAM_PREFIX)


@dataclass(frozen=True, slots=True)
class Machine(FleetMachine):
    """One computer: its own home, machine id and personal (default) remote."""

    personal: Path  # its default remote

    @property
    def mirror(self) -> Path:
        return self.home / "remotes" / TEAM


def bare(path: Path) -> Path:
    path.mkdir(parents=True)
    Repo.init_bare(str(path), default_branch=b"main").close()
    return path


@dataclass(slots=True)
class Team:
    machines: list[Machine]
    team_remote: Path
    written: dict[str, list[Written]] = field(default_factory=dict)
    syncs: list[dict[str, Any]] = field(default_factory=list)
    phases: list[dict[str, Any]] = field(default_factory=list)
    checked: list[dict[str, Any]] = field(default_factory=list)
    team_files: dict[str, dict[str, str]] = field(default_factory=dict)  # machine -> files

    def every_note(self) -> list[Written]:
        return [w for notes in self.written.values() for w in notes]

    def team_ids(self) -> set[str]:
        return {w.id for w in self.every_note() if w.team}

    def personal_ids(self, machine: Machine) -> set[str]:
        return {w.id for w in self.written.get(machine.name, []) if not w.team}


# -- set-up ----------------------------------------------------------------------------


def set_up(root: Path, count: int) -> Team:
    """``count`` machines with their personal remotes, then the encrypted team remote:
    the first creates it, each other is let in by the first, then adds it."""
    width = len(str(count))
    team_remote = bare(root / "team.git")
    machines = []
    for n in range(1, count + 1):
        name = f"m{n:0{width}d}"
        machine = Machine(name, root / name, REPO, bare(root / f"personal-{name}.git"))
        machine.must("init", "--yes", "--no-sync", "--remote", str(machine.personal),
                     "--machine-id", name)  # fmt: skip
        machines.append(machine)
    first = machines[0]
    started = time.perf_counter()
    first.must("remote", "add", TEAM, str(team_remote), "--projects", TEAM_GLOB, "--encrypt")
    for machine in machines[1:]:
        key = json.loads(machine.must("remote", "key", "--json").out)["public_key"]
        first.must("remote", "add-recipient", TEAM, key, "--label", machine.name)
        machine.must("remote", "add", TEAM, str(team_remote), "--projects", TEAM_GLOB,
                     "--encrypt")  # fmt: skip
    emit({"phase": "set-up", "machines": count,
          "team_set_up_s": round(time.perf_counter() - started, 2)})  # fmt: skip
    return Team(machines, team_remote)


def write(team: Team, machine: Machine, round_: int, count: int) -> Ran:
    seed = 5_000 + round_ * 1_000 + team.machines.index(machine)
    tag = f"teamfleet{machine.name}r{round_}"
    args = [*driver("team_writer"), str(machine.home), machine.name, tag, str(count), str(seed)]
    ran = run_measured(args, machine.env(), cwd=REPO)
    if ran.code != 0:
        raise RuntimeError(f"{machine.name} could not write its notes: {ran.err[-800:]}")
    team.written.setdefault(machine.name, []).extend(Written(*row) for row in json.loads(ran.out))
    return ran


# -- syncs -----------------------------------------------------------------------------


def sync(machine: Machine, phase: str, **extra: Any) -> dict[str, Any]:
    """`anamnesis sync --json` on ``machine``: its outcome per remote, time and RSS."""
    record, report = sync_record(machine.name, phase, machine.cli("sync", "--json"))
    named = {r.get("name"): r for r in report.get("remotes", [])}
    team = named.get(TEAM, {})
    errors = [f"{n}: {r['remote_error']}" for n, r in named.items() if r.get("remote_error")]
    if report.get("remote_error"):
        errors.append(f"default: {report['remote_error']}")
    conflicted = bool(report.get("conflicted") or report.get("conflicts")) or any(
        r.get("conflicted") or r.get("conflicts") for r in named.values()
    )
    record.update(
        pushed=report.get("pushed"),
        pulled=report.get("pulled"),
        team_pushed=team.get("pushed"),
        team_pulled=team.get("pulled"),
        team_encrypted=team.get("encrypted"),
        remote_errors=errors,
        conflicted=conflicted,
        **extra,
    )
    emit(record)
    return record


def run_phase(team: Team, phase: str, step: Callable[[Machine], dict[str, Any]]) -> None:
    records = [step(m) for m in team.machines]
    team.syncs.extend(records)
    failed = sum(1 for r in records if r["exit"] != 0 or r["remote_errors"])
    after = len(team_tip_ids(team.team_remote))
    summary = phase_summary(phase, records, failed, team_notes_after=after)
    team.phases.append(summary)
    emit(summary)


# -- reading remotes and folders ---------------------------------------------------------


def team_tip_ids(remote: Path) -> set[str]:
    """The ids of the notes on a team remote's tip: ``<type>/<id>.md.age`` sealed,
    ``<type>/<id>.md`` plain (meta files, under ``.anamnesis/``, left out)."""
    try:
        tip = checks.remote_tip(remote)
    except KeyError:  # no commit yet
        return set()
    return {
        p.rsplit("/", 1)[-1].split(".", 1)[0]
        for p in tip.files
        if p.endswith((".md.age", ".md")) and not p.startswith(".anamnesis/")
    }


def project_of(data: bytes, where: str) -> str:
    return parse_note(data.decode("utf-8"), where).project


@dataclass(frozen=True, slots=True)
class Scanned:
    """A machine's notes folder read once: every file's blob id, split by route (the
    team's notes by their frontmatter's project), and the conflict notes."""

    team: dict[str, str]
    personal: dict[str, str]
    conflicts: list[str]


def scan_memory(memory: Path) -> Scanned:
    folder = checks.scan_folder(memory)
    team: dict[str, str] = {}
    personal: dict[str, str] = {}
    for rel, blob in folder.files.items():
        is_team = False
        if rel.endswith(".md"):
            # Read again right after the scan: cached. The frontmatter decides the route.
            try:
                is_team = project_of((memory / rel).read_bytes(), rel).startswith(TEAM_PREFIX)
            except (StoreError, UnicodeDecodeError):
                is_team = False
        (team if is_team else personal)[rel] = blob
    return Scanned(team, personal, folder.conflicts)


def team_notes_on(remote: Path) -> list[str]:
    """Every note file on a personal remote's tip whose project is the team's."""
    found = []
    with Repo(str(remote)) as repo:
        commit = repo[repo.refs[checks.MAIN]]
        assert isinstance(commit, Commit)
        for entry in iter_tree_contents(repo.object_store, commit.tree):
            if entry.path is None or entry.sha is None or not entry.path.endswith(b".md"):
                continue
            blob = repo.object_store[entry.sha]
            assert isinstance(blob, Blob)
            try:
                if project_of(blob.data, entry.path.decode()).startswith(TEAM_PREFIX):
                    found.append(entry.path.decode())
            except (StoreError, UnicodeDecodeError):
                continue
    return found


def plaintext_found(remote: Path, notes: Iterable[Written]) -> list[str]:
    """Which notes' title or closing word appear in any object of ``remote``."""
    runs: list[bytes] = []
    with Repo(str(remote)) as repo:
        store = repo.object_store
        for sha in store:
            runs.extend(_PRINTABLE_RUN.findall(store[sha].as_raw_string()))
    text = b"\n".join(runs)
    found = []
    for note in notes:
        for phrase in phrases(note):
            if phrase in text:
                found.append(f"{note.id}: {phrase.decode()!r}")
    return found


def phrases(note: Written) -> list[bytes]:
    """The note's distinctive ASCII phrases: its closing word and its title (its longest
    ASCII stretch, when it has other characters)."""
    title = max(re.findall(r"[\x20-\x7e]+", note.title) or [""], key=len)
    return [p.encode() for p in (note.word, title) if len(p) >= MIN_PHRASE]


# -- checks ------------------------------------------------------------------------------


def check_machine(team: Team, machine: Machine) -> dict[str, Any]:
    """One machine's checks: its personal remote, its team notes, its mirror, its index."""

    def check(findings: dict[str, list[str]], record: dict[str, Any]) -> None:
        scanned = scan_memory(machine.memory)
        team.team_files[machine.name] = scanned.team
        tip = checks.remote_tip(machine.personal)
        findings["personal_tree"] = checks.tree_differences(scanned.personal, tip)
        findings["personal_ids"] = checks.id_differences(
            checks.note_ids(tip.files), team.personal_ids(machine), "on its personal remote"
        )
        findings["team_ids"] = checks.id_differences(
            checks.note_ids(scanned.team), team.team_ids(), "in its team notes"
        )
        mirror = checks.scan_folder(machine.mirror)
        team_tip = checks.remote_tip(team.team_remote)
        record["team_tip"] = team_tip.commit
        findings["mirror_tree"] = checks.tree_differences(mirror.files, team_tip)
        findings["conflict_notes"] = scanned.conflicts
        listed = {n["id"] for n in machine.cli_json("list", "--limit", "0", "--json")}
        on_disk = checks.note_ids(scanned.team) | checks.note_ids(scanned.personal)
        findings["index"] = checks.id_differences(listed, on_disk, "listed")

    kinds = ("personal_tree", "personal_ids", "team_ids", "mirror_tree", "conflict_notes",
             "index")  # fmt: skip
    return run_machine_checks(machine.name, kinds, check, emit)


def fsck(remote: Path) -> list[str]:
    problems = checks.dulwich_fsck(remote)
    git = checks.git_fsck(remote)
    if git:  # None: no git here; "": clean
        problems.append(f"git fsck: {git}")
    return problems


def verify(team: Team) -> dict[str, Any]:
    """The remotes as they ended, and every machine's findings."""
    started = time.perf_counter()
    kinds = ("personal_tree", "personal_ids", "team_ids", "mirror_tree", "conflict_notes",
             "index", "errors")  # fmt: skip
    found = {k: [f"{c['machine']}: {x}" for c in team.checked for x in c[k]] for k in kinds}
    first = team.machines[0].name
    reference = team.team_files.get(first, {})
    team_differ = [
        f"{name}: {line}"
        for name, files in team.team_files.items()
        for line in checks.tree_differences(files, checks.Tip("", reference))
    ]
    tip = checks.remote_tip(team.team_remote)
    mirrors_moved = [f"{c['machine']}: checked against {c.get('team_tip')}, the team remote "
                     f"ended at {tip.commit}" for c in team.checked
                     if c.get("team_tip") not in (None, tip.commit)]  # fmt: skip
    on_team = team_tip_ids(team.team_remote)
    not_sealed = [p for p in tip.files if p.endswith(".md")]
    misrouted = [f"personal-{m.name}: {p}" for m in team.machines
                 for p in team_notes_on(m.personal)]  # fmt: skip
    misrouted += checks.id_differences(on_team, team.team_ids(), "on the team remote")
    misrouted += [f"team: in the clear: {p}" for p in not_sealed]
    fscked = {"team": fsck(team.team_remote)}
    fscked.update({f"personal-{m.name}": fsck(m.personal) for m in team.machines})
    result: dict[str, Any] = {
        "phase": "checks",
        "machines_checked": len(team.checked),
        "team_notes_expected": len(team.team_ids()),
        "team_notes_on_remote": len(on_team),
        "personal_notes_expected": sum(len(team.personal_ids(m)) for m in team.machines),
        **found,
        "team_notes_differ": team_differ,
        "mirrors_moved": mirrors_moved,
        "misrouted": misrouted,
        "fsck": {name: p for name, p in fscked.items() if p},
        "remotes_fscked": len(fscked),
        "git_fsck": checks.git_fsck(team.team_remote) is not None,
        "conflicts_reported": sum(1 for r in team.syncs if r["conflicted"]),
        "failed_syncs": sum(1 for r in team.syncs if r["exit"] != 0 or r["remote_errors"]),
        "unsealed_syncs": sum(1 for r in team.syncs if r["team_encrypted"] is False),
        "not_checked": sorted(
            {m.name for m in team.machines} - {c["machine"] for c in team.checked}
        ),
    }
    result["passed"] = not any(
        result[k]
        for k in (*kinds, "team_notes_differ", "mirrors_moved", "misrouted", "fsck",
                  "conflicts_reported", "failed_syncs", "unsealed_syncs", "not_checked")
    )  # fmt: skip
    result["seconds"] = round(time.perf_counter() - started, 1)
    emit(result)
    return result


# -- timings side by side ----------------------------------------------------------------


def copy_notes(source: Path, target: Path, keep: Callable[[Path], bool]) -> int:
    """Copy the note files of one notes folder into another (no .git, no lock)."""
    copied = 0
    for path in source.glob("*/*.md"):
        if keep(path):
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
            copied += 1
    return copied


def noop_timings(team: Team, root: Path, repeats: int) -> dict[str, Any]:
    """A no-op sync of the first machine (two remotes) against a control home holding
    the same notes with only its default remote."""
    first = team.machines[0]
    control = Machine("control", root / "control", REPO, bare(root / "personal-control.git"))
    control.must("init", "--yes", "--no-sync", "--remote", str(control.personal),
                 "--machine-id", "control")  # fmt: skip
    notes = copy_notes(first.memory, control.memory, lambda p: True)
    control.must("reindex")
    control.must("sync", "--json")  # its first: pushes them all
    control.must("sync", "--json")
    times: dict[str, list[float]] = {"two": [], "one": []}
    rss: dict[str, list[float]] = {"two": [], "one": []}
    for run in range(repeats):
        order = (("two", first), ("one", control))
        for kind, machine in order if run % 2 == 0 else order[::-1]:
            record = sync(machine, f"no-op {kind}")
            if (
                record["exit"]
                or record["remote_errors"]
                or record["pushed"]
                or (record["team_pushed"] or record["team_pulled"])
            ):
                raise RuntimeError(f"not a no-op sync: {record}")
            times[kind].append(record["seconds"])
            rss[kind].append(record["rss_mb"])
    result: dict[str, Any] = {
        "phase": "no-op timing",
        "notes": notes,
        "repeats": repeats,
        "two_remotes_s": round(statistics.median(times["two"]), 3),
        "one_remote_s": round(statistics.median(times["one"]), 3),
        "two_remotes_rss_mb": round(statistics.median(rss["two"]), 1),
        "one_remote_rss_mb": round(statistics.median(rss["one"]), 1),
        "all_s": times,
    }
    result["ratio"] = round(result["two_remotes_s"] / result["one_remote_s"], 2)
    emit(result)
    return result


def join_timings(team: Team, root: Path, repeats: int) -> dict[str, Any]:
    """A new machine joining the team: encrypted team remote against a plain one that
    holds the same team notes."""
    first = team.machines[0]
    plain_remote = bare(root / "team-plain.git")
    seeder = Machine("plainseed", root / "plainseed", REPO, bare(root / "personal-plainseed.git"))
    seeder.must("init", "--yes", "--no-sync", "--remote", str(seeder.personal),
                "--machine-id", "plainseed")  # fmt: skip
    # The remote first: notes already here when a remote is added stay where they were
    # (a rule never moves a note by itself), so these would stay on the default remote.
    seeder.must("remote", "add", TEAM, str(plain_remote), "--projects", TEAM_GLOB)
    team_ids = team.team_ids()
    copied = copy_notes(first.memory, seeder.memory, lambda p: p.stem in team_ids)
    seeder.must("reindex")
    seeder.must("sync", "--json")
    if team_tip_ids(plain_remote) != team_ids:
        raise RuntimeError("the plain team remote does not hold the team's notes")
    # One key for every encrypted join: let in once, copied into each fresh home.
    keyholder = joiner(root, "joinkey")
    key = json.loads(keyholder.must("remote", "key", "--json").out)
    first.must("remote", "add-recipient", TEAM, key["public_key"], "--label", "joiner")
    times: dict[str, list[float]] = {"sealed": [], "plain": []}
    sync_only: dict[str, list[float]] = {"sealed": [], "plain": []}
    rss: dict[str, list[float]] = {"sealed": [], "plain": []}
    for run in range(repeats):
        order = ("plain", "sealed") if run % 2 == 0 else ("sealed", "plain")
        for kind in order:
            machine = joiner(root, f"join-{kind}-{run}")
            add = ["remote", "add", TEAM]
            if kind == "sealed":
                keys = machine.home / "keys"
                keys.mkdir(mode=0o700, exist_ok=True)
                shutil.copyfile(key["path"], keys / "age.key")
                (keys / "age.key").chmod(0o600)
                add += [str(team.team_remote), "--projects", TEAM_GLOB, "--encrypt"]
            else:
                add += [str(plain_remote), "--projects", TEAM_GLOB]
            added = machine.must(*add)
            record = sync(machine, f"join {kind}")
            arrived = {path.stem for path in machine.memory.glob("*/*.md")}
            if record["exit"] or record["remote_errors"] or arrived != team_ids:
                raise RuntimeError(f"the {kind} join did not bring exactly the team's notes "
                                   f"({len(arrived)} of {len(team_ids)}): {record}")  # fmt: skip
            times[kind].append(added.seconds + record["seconds"])
            sync_only[kind].append(record["seconds"])
            rss[kind].append(max(added.rss_mb, record["rss_mb"]))
    result: dict[str, Any] = {"phase": "join timing", "team_notes": copied, "repeats": repeats}
    for kind in ("sealed", "plain"):
        result[f"{kind}_join_s"] = round(statistics.median(times[kind]), 3)
        result[f"{kind}_sync_s"] = round(statistics.median(sync_only[kind]), 3)
        result[f"{kind}_rss_mb"] = round(statistics.median(rss[kind]), 1)
    result["join_ratio"] = round(result["sealed_join_s"] / result["plain_join_s"], 2)
    result["sync_ratio"] = round(result["sealed_sync_s"] / result["plain_sync_s"], 2)
    result["all_join_s"] = times
    emit(result)
    return result


def joiner(root: Path, name: str) -> Machine:
    machine = Machine(name, root / name, REPO, bare(root / f"personal-{name}.git"))
    machine.must("init", "--yes", "--no-sync", "--remote", str(machine.personal),
                 "--machine-id", name)  # fmt: skip
    return machine


def plaintext_check(team: Team, root: Path) -> dict[str, Any]:
    """No team note's text on the encrypted remote; the plain one shows the scan sees."""
    notes = [w for w in team.every_note() if w.team]
    sealed = plaintext_found(team.team_remote, notes)
    plain = root / "team-plain.git"
    seen_in_plain = len(plaintext_found(plain, notes)) if plain.is_dir() else None
    result = {
        "phase": "plaintext",
        "team_notes_scanned": len(notes),
        "phrases": sum(len(phrases(n)) for n in notes),
        "found_on_encrypted": sealed,
        "found_on_plain": seen_in_plain,
    }
    result["passed"] = not sealed and (seen_in_plain is None or seen_in_plain > 0)
    emit(result)
    return result


# -- the run -----------------------------------------------------------------------------


def run(root: Path, args: argparse.Namespace) -> dict[str, Any]:
    team = set_up(root, args.machines)
    first = team.machines[0]
    seeded = write(team, first, 0, args.base_notes)
    emit({"phase": "seed", "notes": args.base_notes, "write_s": round(seeded.seconds, 2)})
    run_phase(team, "first sync", lambda m: sync(m, "first sync"))
    for round_ in range(1, args.rounds + 1):

        def step(machine: Machine, r: int = round_) -> dict[str, Any]:
            ran = write(team, machine, r, args.per_round)
            return sync(machine, f"round {r}", write_s=round(ran.seconds, 3))

        run_phase(team, f"round {round_}", step)
    final = sync_then_check(sync, lambda m: check_machine(team, m), team.checked)
    run_phase(team, "final", final)
    checked = verify(team)
    noop = noop_timings(team, root, args.repeats)
    join = join_timings(team, root, args.repeats)
    plaintext = plaintext_check(team, root)
    return {"team": team, "checks": checked, "noop": noop, "join": join,
            "plaintext": plaintext}  # fmt: skip


def print_summary(done: dict[str, Any], args: argparse.Namespace) -> bool:
    team: Team = done["team"]
    checked, noop, join, plaintext = done["checks"], done["noop"], done["join"], done["plaintext"]
    print(f"\n== team fleet: {args.machines} machines, an encrypted team remote (projects "
          f"{TEAM_GLOB}) and a personal remote each; seed {args.base_notes} notes, "
          f"{args.rounds} rounds of {args.per_round} (half the team's) ==")  # fmt: skip
    print(f"{'phase':>10} | team notes on the remote after | sync median / max s "
          "| peak RSS median / max MB | failed")  # fmt: skip
    for p in team.phases:
        print(f"{p['phase']:>10} | {p['team_notes_after']:>30} | {summary_cells(p)}"
              + writes_note(p, args.per_round))  # fmt: skip
    noop_ok = noop["ratio"] <= 1.5
    join_ok = join["join_ratio"] <= 2.0
    print(
        f"no-op sync, median of {noop['repeats']}: two remotes {noop['two_remotes_s']:.3f} s "
        f"vs one remote {noop['one_remote_s']:.3f} s ({noop['notes']} notes): "
        f"{noop['ratio']:.2f}x (target <= 1.5x: {'met' if noop_ok else 'MISSED'})"
    )
    print(f"joining the team ({join['team_notes']} team notes), median of {join['repeats']}: "
          f"encrypted {join['sealed_join_s']:.3f} s vs plain {join['plain_join_s']:.3f} s: "
          f"{join['join_ratio']:.2f}x (target <= 2x: {'met' if join_ok else 'MISSED'}); "
          f"first sync alone {join['sealed_sync_s']:.3f} vs {join['plain_sync_s']:.3f} s: "
          f"{join['sync_ratio']:.2f}x")  # fmt: skip
    verdict = "PASSED" if checked["passed"] and plaintext["passed"] else "FAILED"
    mirrors_right = not checked["mirror_tree"] and not checked["mirrors_moved"]
    personal_right = not checked["personal_tree"] and not checked["personal_ids"]
    fsck_by = "dulwich + git" if checked["git_fsck"] else "dulwich"
    parts = [
        f"{checked['machines_checked']} machines",
        f"team notes {checked['team_notes_on_remote']} on the remote "
        f"({checked['team_notes_expected']} expected), identical on every machine "
        f"{not checked['team_notes_differ']}, every mirror = the team remote's tip {mirrors_right}",
        f"personal remotes = each machine's personal notes {personal_right}",
        f"indexes consistent {not checked['index']}",
        f"misrouted {len(checked['misrouted'])}",
        f"fsck ({checked['remotes_fscked']} remotes, {fsck_by}) "
        + ("clean" if not checked["fsck"] else str(checked["fsck"])),
        f"conflicts {checked['conflicts_reported']}",
        f"failed syncs {checked['failed_syncs']}",
        f"plaintext on the encrypted remote: {len(plaintext['found_on_encrypted'])} of "
        f"{plaintext['phrases']} phrases (the same scan on the plain team remote finds "
        f"{plaintext['found_on_plain']})",
    ]
    print(f"checks {verdict}: " + "; ".join(parts))
    for key in ("personal_tree", "personal_ids", "team_ids", "mirror_tree", "index", "errors",
                "team_notes_differ", "mirrors_moved", "misrouted", "conflict_notes"):  # fmt: skip
        for line in checked[key][:5]:
            print(f"  {key}: {line}")
    for line in plaintext["found_on_encrypted"][:5]:
        print(f"  plaintext: {line}")
    return bool(checked["passed"] and plaintext["passed"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=10)
    parser.add_argument("--base-notes", type=int, default=400)
    parser.add_argument("--per-round", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=5)
    quick = "a smoke run: 3 machines, 40 notes, 1 round of 4, 2 repeats"
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--root", type=Path, help="a new folder to run in, kept afterwards")
    args = parser.parse_args()
    if args.quick:
        args.machines, args.base_notes, args.per_round, args.rounds, args.repeats = 3, 40, 4, 1, 2
    started = time.perf_counter()
    with workspace(args.root) as root:
        try:
            done = run(root, args)
        except Exception:
            print(f"team fleet FAILED: the run stopped after {time.perf_counter() - started:.0f}"
                  " s (the traceback follows)", file=sys.stderr, flush=True)  # fmt: skip
            raise
    passed = print_summary(done, args)
    print(f"whole run: {time.perf_counter() - started:.0f} s")
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
