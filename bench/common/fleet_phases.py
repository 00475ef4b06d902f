"""A fleet benchmark's phases (first sync, each round, the final one): a step run on every
machine, each step's sync reported as one record, and the phase summed up in medians.

Shared by ``bench.scale.fleet`` and ``bench.scale.team_fleet``, so both report a sync and
a phase alike; what their syncs report beyond that (one remote, or several) is theirs.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from bench.common.processes import Ran

Machine = TypeVar("Machine")
Record = dict[str, Any]


def sync_record(machine: str, phase: str, ran: Ran) -> tuple[Record, dict[str, Any]]:
    """What every sync record holds (its phase, machine, wall time, peak RSS, exit code
    and last error line), and the sync's ``--json`` report ({} when it printed none)."""
    record: Record = {
        "phase": phase,
        "machine": machine,
        "seconds": round(ran.seconds, 3),
        "rss_mb": round(ran.rss_mb, 1),
        "exit": ran.code,
        "error": ran.last_error_line(),
    }
    try:
        report = json.loads(ran.out)
    except json.JSONDecodeError:
        report = {}
    return record, report


def phase_summary(phase: str, records: Sequence[Record], failed: int, **before: Any) -> Record:
    """One phase summed up: its syncs' median and max time and peak RSS, how many
    ``failed`` (the bench judges), and the median time of the writes that came before
    them (``write_s`` in a record) when there were any. ``before`` comes right after the
    phase's name (what the remote held, for instance)."""
    seconds = [r["seconds"] for r in records]
    summary: Record = {
        "phase": phase,
        "summary": True,
        **before,
        "median_s": round(statistics.median(seconds), 3),
        "max_s": round(max(seconds), 3),
        "median_rss_mb": round(statistics.median(r["rss_mb"] for r in records), 1),
        "max_rss_mb": round(max(r["rss_mb"] for r in records), 1),
        "failed": failed,
    }
    writes = [r["write_s"] for r in records if "write_s" in r]
    if writes:
        summary["write_median_s"] = round(statistics.median(writes), 3)
    return summary


def summary_cells(summary: Record) -> str:
    """A phase's cells of the table both benches print: sync median / max seconds, peak
    RSS median / max MB, failed syncs."""
    return (
        f"{summary['median_s']:>8.2f} / {summary['max_s']:<8.2f} | "
        f"{summary['median_rss_mb']:>10.0f} / {summary['max_rss_mb']:<11.0f} | "
        f"{summary['failed']:>6}"
    )


def writes_note(summary: Record, per_round: int) -> str:
    """What ends a phase's row when writes came before its syncs: their median time."""
    writes = summary.get("write_median_s")
    return f"   (writes of {per_round}: {writes:.2f} s)" if writes is not None else ""


def sync_then_check(
    sync: Callable[[Machine, str], Record],
    check: Callable[[Machine], Record],
    checked: list[Record],
) -> Callable[[Machine], Record]:
    """The final phase's step: a machine's last sync, then its checks at once (while its
    files are still in the page cache, so no check reads a store back from disk); the
    checks' record goes to ``checked``, the sync's is the step's."""

    def step(machine: Machine) -> Record:
        record = sync(machine, "final")
        checked.append(check(machine))
        return record

    return step
