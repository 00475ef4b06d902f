"""The checks of a home, in the order doctor shows them: :func:`home_check_table` for a
front end that adds checks of its own between them (the CLI's doctor), :func:`home_checks`
for one that shows these alone (the dashboard started on its own)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from anamnesis.ops.checks.store_checks import clock_check, index_check, store_check
from anamnesis.ops.checks.sync_checks import remote_check, remote_skipped, sync_check
from anamnesis.ops.checks.verdict import Check, HomeCheck, run_check_table

if TYPE_CHECKING:
    from anamnesis.ops.home import Home


def home_check_table(*, offline: bool) -> dict[str, HomeCheck]:
    """Each check of a home by name, in the order shown. ``offline``: contact nothing (the
    remote is named, not asked)."""
    return {
        "store": store_check,
        "index": index_check,
        "clock": clock_check,
        "remote": remote_skipped if offline else remote_check,
        "sync": sync_check,
    }


def home_checks(home: Home, *, offline: bool) -> list[Check]:
    """Every check of ``home``, each fail-safe (one that raises is a FAIL finding)."""
    return run_check_table(home, list(home_check_table(offline=offline).items()))
