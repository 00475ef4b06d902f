"""One fleet machine's checks, run right after its final sync, reported as one record:
each kind's findings a list ([] when right), and a check that cannot run a finding too
(under ``errors``), never skipped.

Shared by ``bench.scale.fleet`` and ``bench.scale.team_fleet``; what is checked is theirs
(``bench.common.fleet_checks`` has the checks of folders and remotes).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

Findings = dict[str, list[str]]
Record = dict[str, Any]


def run_machine_checks(
    machine: str,
    kinds: Iterable[str],
    check: Callable[[Findings, Record], None],
    emit: Callable[[Record], None],
    **fields: Any,
) -> Record:
    """Run ``check`` (it fills the findings of each of ``kinds``, and may add to the
    record), then emit the record: the machine, ``fields``, every kind's findings,
    whether all passed and how long the checks took. A failure is said on stderr too."""
    started = time.perf_counter()
    record: Record = {"phase": "machine checks", "machine": machine, **fields}
    findings: Findings = {kind: [] for kind in kinds}
    findings["errors"] = []
    try:
        check(findings, record)
    except Exception as error:  # a check that cannot run is a failure, never skipped
        findings["errors"].append(f"{type(error).__name__}: {error}")
    record.update(findings, passed=not any(findings.values()))
    record["seconds"] = round(time.perf_counter() - started, 3)
    emit(record)
    if not record["passed"]:
        print(f"{machine}: checks FAILED: {findings}", file=sys.stderr, flush=True)
    return record
