"""A small team: `python -m bench.scale.fleet --quick` (3 machines on one bare remote of
200 notes, 2 rounds of 5 new notes each, two machines syncing at once so that pushes race)
ends with the same notes, byte for byte, on every machine, in every index and on the remote,
with no conflict, no failed sync and a remote git's fsck finds sound.

The benchmark is the test: its own checks decide (it exits 1 on any of them), and running
it here keeps it working. The 10- and 50-machine numbers: bench/results/2026-11-28-fleet.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# The checkout: `python -m bench.scale.fleet` runs from its root, where the bench package is.
CHECKOUT = Path(__file__).resolve().parents[1]


def test_three_machines_racing_to_one_remote_end_identical(tmp_path: Path) -> None:
    root = tmp_path / "fleet"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.scale.fleet",
            "--quick",
            "--concurrency",
            "2",
            "--root",
            str(root),
        ],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    syncs = [r for r in records if "machine" in r and r["phase"] != "machine checks"]
    # first sync, 2 rounds, final: 4 syncs per machine, every one a success
    assert len(syncs) == 4 * 3
    assert all(r["exit"] == 0 and not r["conflicted"] for r in syncs), syncs
    # each machine checked right after its final sync, against the remote's last tip
    machine_checks = [r for r in records if r["phase"] == "machine checks"]
    assert [r["machine"] for r in machine_checks] == ["m1", "m2", "m3"], machine_checks
    assert all(r["passed"] for r in machine_checks), machine_checks
    (checks,) = [r for r in records if r["phase"] == "checks"]
    assert checks["passed"] is True, checks
    assert checks["notes_on_remote"] == 200 + 3 * 2 * 5
    assert checks["trees_identical"] and checks["index_consistent"], checks
    assert {r["tip"] for r in machine_checks} == {checks["remote_tip"]}, checks
    assert checks["dulwich_fsck"] == [], checks
