"""Sync at scale (issue 29): what a team's store costs as it grows, side by side with
another checkout of the code (say, the commit before).

    uv run python bench/scale_bench.py [--notes 20000] [--baseline DIR] [--nofile 256]

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
a table). Not a ``*_bench.py``: `nox -s bench` does not run it (minutes at 20,000 notes).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dulwich.repo import Repo

from _processes import run_measured, running
from sync_bench import write_notes  # the store bench's corpus, as notes on disk

HERE = Path(__file__).resolve().parent
# The child: limit open files, run one sync cycle, print its time and peak RSS.
CHILD = """
import json, resource, sys, time
limit = int(sys.argv[3])
if limit:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
from anamnesis.sync import GitSyncBackend
backend = GitSyncBackend(sys.argv[1], remote=sys.argv[2], machine_id=sys.argv[4])
started = time.perf_counter()
try:
    backend.sync()
    error = ""
except OSError as exc:
    error = f"{type(exc).__name__}: {exc.strerror or exc}"
elapsed = time.perf_counter() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
try:  # this process's own high-water mark (see peak_rss_note)
    with open("/proc/self/status") as status:
        own = [int(line.split()[1]) / 1024 for line in status if line.startswith("VmHWM")]
except OSError:
    own = []
print(json.dumps({"seconds": elapsed, "rss_mb": own[0] if own else rss, "maxrss_mb": rss,
                  "error": error}))  # fmt: skip
"""


def sync_process(
    code: Path, folder: Path, remote: Path, machine: str, nofile: int = 0
) -> dict[str, object]:
    settle()
    env = running(code)
    args = [sys.executable, "-c", CHILD, str(folder), str(remote), str(nofile), machine]
    run = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        return {"seconds": 0.0, "rss_mb": 0.0, "error": run.stderr.strip().splitlines()[-1]}
    result: dict[str, object] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def settle() -> None:
    """Write out what the steps before left dirty (the notes just generated, the packs just
    pushed) before the next step starts: else the next step's file creations wait on that
    writeback (a 20,000-note pull right after its corpus was written took 13 s instead of
    3.4), and which checkout pays depends on how fast its previous step was."""
    if hasattr(os, "sync"):
        os.sync()


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
            sync_process(HERE.parent, desktop, remote, "desktop")
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
    codes = {"ours": HERE.parent}
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
