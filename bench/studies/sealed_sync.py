"""What encryption at rest costs a named remote's sync: the first sync of a store's notes
to an encrypted remote (age, through pyrage) against the same notes to a plain one, and
a no-op sync of each after it (issue 43's targets: encryption at most 2x on the first
sync; a no-op stays a no-op).

    uv run python -m bench.studies.sealed_sync [--notes 300] [--runs 5] [--keep DIR]

Each run makes two machines side by side, one with a plain named remote and one with an
encrypted one (both bare repositories on this disk, both taking every note by rule), gives
each the same ``--notes`` notes of the bench corpus, and times ops' one cycle (``run_sync``:
mask, export through the remote's codec, commit, push, import) in this process: the first
sync, then a sync with nothing changed. The two modes alternate inside each run (plain
first in odd runs, sealed first in even ones) so that neither always runs warm. Printed:
each mode's median, the ratio of the medians, and what the encrypted remote holds (every
file ``.md.age``, no note's text in any object).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.ops import Home, RemoteSpec, add_remote, run_sync
from anamnesis.store import write_config
from bench.common.sync_runs import write_notes
from bench.common.workspace import workspace

MODES = ("plain", "sealed")


def one_machine(root: Path, mode: str, notes: int) -> tuple[Home, Path]:
    remote = root / f"{mode}.git"
    remote.mkdir(parents=True)
    Repo.init_bare(str(remote), default_branch=b"main").close()
    home = Home(root / mode)
    write_config({"machine_id": f"bench-{mode}"}, home.root)
    spec = RemoteSpec(
        "team", str(remote), scopes=("global", "project"), encrypt=mode == "sealed"
    )  # every note, whatever its project
    add_remote(home, spec)  # the encrypted one is set up (its recipients pushed) here
    write_notes(home.memory_dir, notes)
    with home.open_store() as store:
        store.reindex(embed=False)
    return home, remote


def timed_sync(home: Home) -> tuple[float, dict[str, object]]:
    with home.open_store() as store:
        started = time.perf_counter()
        report = run_sync(home, store)
        elapsed = time.perf_counter() - started
    (named,) = [remote.as_dict() for remote in report.remotes]
    return elapsed, named


def remote_head(remote: Path) -> bytes | None:
    with Repo(str(remote)) as repo:
        try:
            return repo.refs[Ref(b"refs/heads/main")]
        except KeyError:
            return None


def holds_no_text(home: Home, remote: Path) -> bool:
    """Whether no object of ``remote`` holds a line of any note's body (the sealed one
    must not; the plain one does, which shows the check can see text)."""
    lines: set[bytes] = set()
    for path in home.memory_dir.rglob("*.md"):
        body = path.read_text(encoding="utf-8").split("\n---\n", 1)[-1]
        lines.update(line.encode() for line in body.splitlines() if len(line) > 20)
    with Repo(str(remote)) as repo:
        store = repo.object_store
        objects = [store[sha].as_raw_string() for sha in store]
    return not any(line in data for data in objects for line in lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, default=None, help="keep the machines here")
    args = parser.parse_args()
    first: dict[str, list[float]] = {mode: [] for mode in MODES}
    noop: dict[str, list[float]] = {mode: [] for mode in MODES}
    checks: dict[str, object] = {}
    with workspace(args.keep) as root:
        for run in range(args.runs):
            order = MODES if run % 2 == 0 else MODES[::-1]
            machines = {m: one_machine(root / f"run{run}", m, args.notes) for m in order}
            for mode in order:
                home, remote = machines[mode]
                elapsed, named = timed_sync(home)
                if not named["pushed"] or named["remote_error"]:
                    raise SystemExit(f"{mode}: the first sync did not push: {named}")
                first[mode].append(elapsed)
            for mode in order:
                home, remote = machines[mode]
                head = remote_head(remote)
                elapsed, named = timed_sync(home)
                if remote_head(remote) != head:
                    raise SystemExit(f"{mode}: a sync with nothing changed made a commit")
                noop[mode].append(elapsed)
            if run == 0:
                sealed_home, sealed_remote = machines["sealed"]
                plain_home, plain_remote = machines["plain"]
                checks = {
                    "sealed_holds_no_note_text": holds_no_text(sealed_home, sealed_remote),
                    "plain_holds_note_text": not holds_no_text(plain_home, plain_remote),
                }
    medians = {
        f"{kind}_{mode}_s": round(statistics.median(values[mode]), 4)
        for kind, values in (("first", first), ("noop", noop))
        for mode in MODES
    }
    print(
        json.dumps(
            {
                "notes": args.notes,
                "runs": args.runs,
                **medians,
                "first_ratio": round(medians["first_sealed_s"] / medians["first_plain_s"], 2),
                "noop_ratio": round(medians["noop_sealed_s"] / medians["noop_plain_s"], 2),
                **checks,
                "first_all_s": {m: [round(v, 4) for v in first[m]] for m in MODES},
            }
        )
    )


if __name__ == "__main__":
    main()
