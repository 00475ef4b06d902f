"""Sync at scale (issue 29): what a team's store costs as it grows, side by side with
another checkout of the code (say, the commit before).

    uv run python -m bench.scale.scale_bench [--notes 20000] [--baseline DIR] [--nofile 256]

For N notes of the store bench's corpus (1-4 KB, ``corpus.generate``), each step runs as
its own process (imports included, as a hook or the CLI runs it), for this checkout and,
with ``--baseline``, for the checkout at DIR (its ``packages/*/src`` first on the path):

* first sync: one machine pushes all N notes to a new bare remote;
* first pull: a new machine, under an open-file limit of ``--nofile`` (macOS's default is
  256), pulls them all; a failure is reported with its error, then the pull is timed again
  under the hard limit (and should that fail too, this checkout pulls, so that the next
  steps still compare the two on the same machine);
* no-op sync on the pulled machine;
* sync of 10 new notes;
* `anamnesis sync` as the CLI runs it on the pulled machine (Claude Code's own memory
  imported, what changed reindexed): the first run builds the index, the second is the
  no-op a user (or the SessionStart hook's `anamnesis sync --quiet`) meets, timed as a
  whole process.

Reported for each: the sync call's wall time and the process's peak RSS (JSON lines, then
a table). Not in ``bench.suites``: `nox -s bench` does not run it (minutes at 20,000 notes).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
from pathlib import Path

from dulwich.repo import Repo

from bench.common.places import REPO
from bench.common.processes import run_measured, running
from bench.common.sync_runs import settle, sync_process, write_notes


def cli_process(code: Path, home: Path, remote: Path, *args: str) -> dict[str, object]:
    """`anamnesis <args>` as a process: its wall time and peak RSS (from wait4)."""
    settle()
    env = {
        **running(code),
        "ANAMNESIS_HOME": str(home),
        "ANAMNESIS_GIT_REMOTE": str(remote),
        "ANAMNESIS_MACHINE_ID": "desktop",
        "CLAUDE_CONFIG_DIR": str(home.parent / "claude"),
    }
    ran = run_measured([sys.executable, "-m", "anamnesis.cli", *args], env)
    return {"seconds": ran.seconds, "rss_mb": ran.rss_mb, "error": ran.last_error_line()}


def claude_memory(claude: Path) -> None:
    """A few files of Claude Code's own memory, as `anamnesis sync` imports them."""
    memory = claude / "projects" / "-home-me-src-api" / "memory"
    memory.mkdir(parents=True)
    for n in range(5):
        (memory / f"project_fact_{n}.md").write_text(f"---\ntype: project\n---\nFact {n}.\n")


def steps(code: Path, root: Path, notes: int, nofile: int) -> dict[str, dict[str, object]]:
    remote = root / "remote.git"
    remote.mkdir(parents=True)
    Repo.init_bare(str(remote), default_branch=b"main").close()
    laptop, desktop = root / "laptop", root / "home" / "memory"
    claude_memory(root / "claude")
    write_notes(laptop, notes)
    out = {"first sync": sync_process(code, laptop, remote, "laptop")}
    pull = sync_process(code, desktop, remote, "desktop", nofile)
    out[f"first pull (ulimit -n {nofile})"] = pull
    if pull["error"]:
        shutil.rmtree(desktop, ignore_errors=True)
        again = sync_process(code, desktop, remote, "desktop")
        out["first pull (hard limit)"] = again
        if again["error"]:  # the later steps need a pulled machine: this checkout pulls
            shutil.rmtree(desktop, ignore_errors=True)
            sync_process(REPO, desktop, remote, "desktop")
    out["no-op sync"] = sync_process(code, desktop, remote, "desktop")
    write_notes(desktop, 10, start=notes)
    out["sync of 10 new notes"] = sync_process(code, desktop, remote, "desktop")
    out["`anamnesis sync`, index built"] = cli_process(code, desktop.parent, remote, "sync")
    out["`anamnesis sync`, no-op"] = cli_process(code, desktop.parent, remote, "sync")
    quiet = cli_process(code, desktop.parent, remote, "sync", "--quiet")
    out["`anamnesis sync --quiet` (the hook), no-op"] = quiet
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=20_000)
    parser.add_argument("--baseline", type=Path, help="another checkout, run side by side")
    parser.add_argument("--nofile", type=int, default=256, help="open-file limit of the pull")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    print(f"open-file limit here: {soft} (hard {hard})", file=sys.stderr)
    codes = {"ours": REPO}
    if args.baseline is not None:
        codes["baseline"] = args.baseline.resolve()
    table: dict[str, dict[str, dict[str, object]]] = {}
    for who, code in codes.items():
        with tempfile.TemporaryDirectory(prefix="anamnesis-scale-") as tmp:
            for step, result in steps(code, Path(tmp), args.notes, args.nofile).items():
                table.setdefault(step, {})[who] = result
                print(json.dumps({"bench": "scale", "notes": args.notes, "step": step,
                                  "code": who, **result}), flush=True)  # fmt: skip
    print(f"\n== {args.notes} notes: seconds / peak RSS ==")
    for step, by_who in table.items():
        cells = []
        for who in codes:
            r = by_who.get(who)
            if r is None:
                cells.append(f"{who}: -")
            elif r["error"]:
                cells.append(f"{who}: fails ({r['error']})")
            else:
                cells.append(f"{who}: {r['seconds']:.2f} s, {r['rss_mb']:.0f} MB")
        print(f"{step:>28} | " + " | ".join(cells))


if __name__ == "__main__":
    main()
