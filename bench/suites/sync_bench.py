"""Sync benchmark: our dulwich sync against the git CLI doing the same steps, same run.

    uv run nox -s bench            # or: python -m bench.suites.sync_bench [--quick]

Steps, each on fresh repositories per repetition: the first push of 2,000 notes, a no-op
sync, and pulling 100 notes another machine pushed. The git CLI runs
`add -A; commit; fetch; rebase; push` (commit and rebase only when there is something to
do). Ours is timed in-process (the sync call) and as a process (`python -c`, imports
included, as a hook runs it). Targets: no-op sync <= 0.3 s, no step more than 2x the CLI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from anamnesis.sync import GitSyncBackend
from bench.common.sync_runs import write_notes

GIT = shutil.which("git")
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}
PROCESS_SYNC = (
    "import sys; from anamnesis.sync import GitSyncBackend;"
    "GitSyncBackend(sys.argv[1], remote=sys.argv[2], machine_id='bench').sync()"
)


def bare(path: Path) -> Path:
    subprocess.run([GIT or "git", "init", "--quiet", "--bare", "-b", "main", str(path)], check=True)
    return path


def git(*args: str, cwd: Path) -> None:
    assert GIT is not None
    subprocess.run([GIT, *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True)


def git_sync(work: Path) -> None:
    """What a git user would type for one sync cycle."""
    assert GIT is not None
    git("add", "-A", cwd=work)
    staged = subprocess.run([GIT, "diff", "--cached", "--quiet"], cwd=work, env=GIT_ENV)
    if staged.returncode:
        git("commit", "--quiet", "-m", "sync", cwd=work)
    git("fetch", "--quiet", "origin", cwd=work)
    remote_has_main = subprocess.run(
        [GIT, "rev-parse", "--verify", "--quiet", "origin/main"], cwd=work, env=GIT_ENV,
        capture_output=True,
    ).returncode == 0  # fmt: skip
    if remote_has_main:
        git("rebase", "--quiet", "origin/main", cwd=work)
    git("push", "--quiet", "origin", "HEAD:main", cwd=work)


def git_clone_empty(remote: Path, work: Path) -> None:
    work.mkdir(parents=True)
    git("init", "--quiet", "-b", "main", cwd=work)
    git("remote", "add", "origin", str(remote), cwd=work)


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def process_sync(folder: Path, remote: Path) -> None:
    subprocess.run([sys.executable, "-c", PROCESS_SYNC, str(folder), str(remote)], check=True)


def run(reps: int, notes: int, pulled: int) -> dict[str, dict[str, float]]:
    samples: dict[str, dict[str, list[float]]] = {}

    def add(step: str, who: str, seconds: float) -> None:
        samples.setdefault(step, {}).setdefault(who, []).append(seconds)

    for _rep in range(reps):
        with tempfile.TemporaryDirectory(prefix="anamnesis-sync-bench-") as tmp:
            root = Path(tmp)
            # first push of N notes
            ours_remote, git_remote = bare(root / "ours.git"), bare(root / "git.git")
            ours = GitSyncBackend(root / "ours", remote=str(ours_remote), machine_id="bench")
            write_notes(root / "ours", notes)
            shutil.copytree(root / "ours", root / "git")
            git("init", "--quiet", "-b", "main", cwd=root / "git")
            git("remote", "add", "origin", str(git_remote), cwd=root / "git")
            add("first push", "ours", timed(ours.sync))
            add("first push", "git CLI", timed(partial(git_sync, root / "git")))
            # no-op sync
            add("no-op sync", "ours", timed(ours.sync))
            as_process = partial(process_sync, root / "ours", ours_remote)
            add("no-op sync", "ours (process)", timed(as_process))
            add("no-op sync", "git CLI", timed(partial(git_sync, root / "git")))
            # pull M notes pushed by another machine
            other = GitSyncBackend(root / "other", remote=str(ours_remote), machine_id="other")
            other.sync()
            write_notes(root / "other", pulled, start=notes)
            other.sync()
            git("clone", "--quiet", str(git_remote), str(root / "git-other"), cwd=root)
            write_notes(root / "git-other", pulled, start=notes)
            git_sync(root / "git-other")
            add(f"pull {pulled} notes", "ours", timed(ours.sync))
            add(f"pull {pulled} notes", "git CLI", timed(partial(git_sync, root / "git")))
    return {
        step: {who: statistics.median(values) for who, values in by_who.items()}
        for step, by_who in samples.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    if GIT is None:
        print("sync bench: git CLI not installed, nothing to compare against", file=sys.stderr)
        return
    reps, notes, pulled = (2, 300, 30) if args.quick else (5, 2000, 100)
    medians = run(reps, notes, pulled)
    print(f"\n== sync, {notes} notes, {reps} repetitions (medians, seconds; ratio = ours / git) ==")
    for step, by_who in medians.items():
        baseline = by_who["git CLI"]
        cells = [f"{who} {value:7.3f}s (x{value / baseline:4.2f})" for who, value in by_who.items()]
        print(f"{step:>16}: " + " | ".join(cells))
    noop = medians["no-op sync"]["ours"]
    print(
        f"targets: no-op sync <= 0.3 s: {'OK' if noop <= 0.3 else 'MISSED'} ({noop:.3f} s); "
        "no step over 2x the CLI: "
        + ("OK" if all(v["ours"] <= 2 * v["git CLI"] for v in medians.values()) else "MISSED")
    )
    print(json.dumps({"bench": "sync", "notes": notes, "medians": medians}))


if __name__ == "__main__":
    main()
