"""anamnesis.mcp: the Anamnesis MCP server (five memory tools, resources and prompts over
stdio).

The public names are the re-exports below, each declared once (the store's
:func:`~anamnesis.store.lazy_exports`): ``__all__`` derives from them, and each loads its
module on first use, so the pure tool functions import no MCP SDK; ``build_server`` loads
it.
"""

from typing import TYPE_CHECKING

from anamnesis.mcp.version import __version__ as __version__
from anamnesis.store import lazy_exports

if TYPE_CHECKING:
    from anamnesis.mcp.__main__ import serve as serve
    from anamnesis.mcp.arguments import InvalidArgument as InvalidArgument
    from anamnesis.mcp.client_agent import agent_of_client as agent_of_client
    from anamnesis.mcp.functions import list_memories as list_memories
    from anamnesis.mcp.functions import search_memories as search_memories
    from anamnesis.mcp.functions import status_report as status_report
    from anamnesis.mcp.functions import sync_memory as sync_memory
    from anamnesis.mcp.functions import write_memory as write_memory
    from anamnesis.mcp.server import build_server as build_server

if not TYPE_CHECKING:  # type checkers see only the names above, never a __getattr__
    __getattr__, __dir__ = lazy_exports(__name__)
