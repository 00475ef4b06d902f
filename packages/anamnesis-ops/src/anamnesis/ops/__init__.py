"""anamnesis.ops: one home and what every front end does with it.

:class:`Home` (the layout, config, machine id and remote of a store root; it opens the store
and makes the sync backend), the one sync cycle (:func:`run_sync`, :class:`SyncReport`,
:func:`commit_for_sync`), keep-both for conflicts (:func:`store_fork`), Claude Code's own
memory mirrored in (:func:`import_native_memory`) and the project a folder belongs to
(:func:`resolve_project_key`). The hooks, the MCP server, the CLI and the dashboard all
stand on it.

Importing this package is cheap: names load from their modules on first use (a session hook
resolves a project key without loading the sync code or dulwich).
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.1.0"

TYPE_CHECKING = False  # typing itself costs an import; type checkers read this as True
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.ops.cycle import SyncReport, commit_for_sync, run_sync, sync_with
    from anamnesis.ops.home import Home
    from anamnesis.ops.keep_both import store_fork
    from anamnesis.ops.native import ImportReport, claude_home, import_native_memory
    from anamnesis.ops.project import resolve_project_key

_EXPORTS: dict[str, str] = {
    "Home": "anamnesis.ops.home",
    "ImportReport": "anamnesis.ops.native",
    "SyncReport": "anamnesis.ops.cycle",
    "claude_home": "anamnesis.ops.native",
    "commit_for_sync": "anamnesis.ops.cycle",
    "import_native_memory": "anamnesis.ops.native",
    "resolve_project_key": "anamnesis.ops.project",
    "run_sync": "anamnesis.ops.cycle",
    "sync_with": "anamnesis.ops.cycle",
    "store_fork": "anamnesis.ops.keep_both",
}

__all__ = [
    "Home",
    "ImportReport",
    "SyncReport",
    "__version__",
    "claude_home",
    "commit_for_sync",
    "import_native_memory",
    "resolve_project_key",
    "run_sync",
    "store_fork",
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
