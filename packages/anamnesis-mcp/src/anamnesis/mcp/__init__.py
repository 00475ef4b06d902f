"""anamnesis.mcp: the Anamnesis MCP server (five memory tools over stdio).

The pure tool functions import no MCP SDK; ``build_server`` loads it on first use.
"""

from __future__ import annotations

from importlib import import_module

from anamnesis.mcp.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.mcp.__main__ import serve
    from anamnesis.mcp.arguments import InvalidArgument
    from anamnesis.mcp.functions import (
        list_memories,
        search_memories,
        status_report,
        sync_memory,
        write_memory,
    )
    from anamnesis.mcp.server import build_server

_EXPORTS: dict[str, str] = {
    "InvalidArgument": "anamnesis.mcp.arguments",
    "build_server": "anamnesis.mcp.server",
    "serve": "anamnesis.mcp.__main__",
    "list_memories": "anamnesis.mcp.functions",
    "search_memories": "anamnesis.mcp.functions",
    "status_report": "anamnesis.mcp.functions",
    "sync_memory": "anamnesis.mcp.functions",
    "write_memory": "anamnesis.mcp.functions",
}

__all__ = [
    "InvalidArgument",
    "__version__",
    "build_server",
    "list_memories",
    "search_memories",
    "serve",
    "status_report",
    "sync_memory",
    "write_memory",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'anamnesis.mcp' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value
