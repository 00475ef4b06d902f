"""anamnesis.ops: one home and what every front end does with it.

:class:`Home` (the layout, config, machine id and remote of a store root; it opens the store
and makes the sync backend), the one sync cycle (:func:`run_sync`, :class:`SyncReport`,
:func:`commit_for_sync`), keep-both for conflicts (:func:`store_fork`), Claude Code's own
memory mirrored in (:func:`import_native_memory`), the project a folder belongs to
(:func:`resolve_project_key`) and doctor's checks of a home (:func:`home_checks`, each a
:class:`Check`). The hooks, the MCP server, the CLI and the dashboard all stand on it.

Importing this package is cheap: names load from their modules on first use (a session hook
resolves a project key without loading the sync code or dulwich).
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

TYPE_CHECKING = False  # typing itself costs an import; type checkers read this as True
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.ops.checks.store_checks import swept_summary
    from anamnesis.ops.checks.table import home_check_table, home_checks
    from anamnesis.ops.checks.verdict import (
        FAIL,
        OK,
        WARN,
        Check,
        CheckTable,
        HomeCheck,
        run_check_table,
    )
    from anamnesis.ops.cycle import SyncReport, commit_for_sync, run_sync, sync_with
    from anamnesis.ops.home import Home
    from anamnesis.ops.keep_both import open_conflicts, store_fork
    from anamnesis.ops.native import ImportReport, claude_home, import_native_memory
    from anamnesis.ops.project import resolve_project_key

_EXPORTS: dict[str, str] = {
    "FAIL": "anamnesis.ops.checks.verdict",
    "OK": "anamnesis.ops.checks.verdict",
    "WARN": "anamnesis.ops.checks.verdict",
    "Check": "anamnesis.ops.checks.verdict",
    "CheckTable": "anamnesis.ops.checks.verdict",
    "HomeCheck": "anamnesis.ops.checks.verdict",
    "Home": "anamnesis.ops.home",
    "ImportReport": "anamnesis.ops.native",
    "SyncReport": "anamnesis.ops.cycle",
    "claude_home": "anamnesis.ops.native",
    "commit_for_sync": "anamnesis.ops.cycle",
    "home_check_table": "anamnesis.ops.checks.table",
    "home_checks": "anamnesis.ops.checks.table",
    "import_native_memory": "anamnesis.ops.native",
    "open_conflicts": "anamnesis.ops.keep_both",
    "resolve_project_key": "anamnesis.ops.project",
    "run_check_table": "anamnesis.ops.checks.verdict",
    "run_sync": "anamnesis.ops.cycle",
    "sync_with": "anamnesis.ops.cycle",
    "store_fork": "anamnesis.ops.keep_both",
    "swept_summary": "anamnesis.ops.checks.store_checks",
}

__all__ = [
    "FAIL",
    "OK",
    "WARN",
    "Check",
    "CheckTable",
    "Home",
    "HomeCheck",
    "ImportReport",
    "SyncReport",
    "__version__",
    "claude_home",
    "commit_for_sync",
    "home_check_table",
    "home_checks",
    "import_native_memory",
    "open_conflicts",
    "resolve_project_key",
    "run_check_table",
    "run_sync",
    "store_fork",
    "swept_summary",
    "sync_with",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'anamnesis.ops' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
