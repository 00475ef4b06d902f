"""A small team with boundaries: `python -m bench.scale.team_fleet --quick` (3 machines,
each with its own personal remote, sharing an encrypted team remote that takes the
`github.com/team/*` projects; notes half the team's, half global or personal) ends with
every remote holding exactly the notes routed to it, every machine's copy of each
identical to it, every index consistent, every remote sound by fsck, and no note's text
on the encrypted remote.

The benchmark is the test: its own checks decide (it exits 1 on any of them), and running
it here keeps it working. The 10-machine numbers: bench/results/2026-11-29-team-fleet.md.
The timing targets (no-op within 1.5x, encryption at most 2x) are the benchmark's to
report, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

# The checkout: `python -m bench.scale.team_fleet` runs from its root (the bench package).
CHECKOUT = Path(__file__).resolve().parents[1]


def test_three_machines_with_a_team_remote_and_their_own_keep_every_boundary(
    tmp_path: Path,
) -> None:
    root = tmp_path / "team"
    done = subprocess.run(
        [sys.executable, "-m", "bench.scale.team_fleet", "--quick", "--root", str(root)],
        cwd=CHECKOUT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    records = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    syncs = [r for r in records if r["phase"] in ("first sync", "round 1", "final")
             and "machine" in r]  # fmt: skip
    # first sync, 1 round, final: 3 syncs per machine, each a success on both remotes,
    # the team remote's always encrypted
    assert len(syncs) == 3 * 3, syncs
    assert all(r["exit"] == 0 and not r["remote_errors"] and not r["conflicted"]
               for r in syncs), syncs  # fmt: skip
    assert all(r["team_encrypted"] is True for r in syncs), syncs
    machine_checks = [r for r in records if r["phase"] == "machine checks"]
    assert [r["machine"] for r in machine_checks] == ["m1", "m2", "m3"], machine_checks
    assert all(r["passed"] for r in machine_checks), machine_checks
    (checks,) = [r for r in records if r["phase"] == "checks"]
    assert checks["passed"] is True, checks
    # seed 40 notes, then 3 machines x 4: half of each the team's
    assert checks["team_notes_on_remote"] == checks["team_notes_expected"] == (40 + 12) // 2
    assert checks["personal_notes_expected"] == (40 + 12) // 2
    assert checks["misrouted"] == [] and checks["fsck"] == {}, checks
    assert checks["remotes_fscked"] == 4  # the team's and 3 personal
    (plaintext,) = [r for r in records if r["phase"] == "plaintext"]
    assert plaintext["found_on_encrypted"] == [], plaintext
    assert plaintext["found_on_plain"], plaintext  # the scan does see text where it is
    (noop,) = [r for r in records if r["phase"] == "no-op timing"]
    (join,) = [r for r in records if r["phase"] == "join timing"]
    assert noop["ratio"] > 0 and join["join_ratio"] > 0
    assert join["team_notes"] == checks["team_notes_expected"]
