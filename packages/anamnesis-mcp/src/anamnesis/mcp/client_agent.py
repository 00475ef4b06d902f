"""Which coding agent a client is, from the name it gives in MCP's ``initialize`` request
(``clientInfo.name``): what ``memory_write`` records as the note's ``prov_agent``.

The names the agents send, read in their source: Claude Code sends ``claude-code``; Codex
``codex-mcp-client`` (``codex-rs/codex-mcp/src/rmcp_client.rs``, and in the 0.171.0 binary);
Gemini CLI ``gemini-cli-mcp-client``, or that followed by ``-<server name>``
(``packages/core/src/tools/mcp-client.ts``). They become the names of the hooks' table of
agents. Any other client is recorded by its own name made into one the store accepts
(:func:`anamnesis.store.is_agent_name`): lower case, every run of other characters one ``-``,
cut to 40 characters. A client that gives no name, or none with a letter or digit in it,
records nothing (``""``, as a person's note).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from anamnesis.store import is_agent_name

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

# Exact client names, and the agent each one is: a name of the hooks' table of agents
# (``anamnesis.hooks.AGENTS``, which this package does not import; the CLI's tests hold the
# two together).
KNOWN_CLIENTS = {
    "claude-code": "claude-code",
    "codex-mcp-client": "codex",
    "gemini-cli-mcp-client": "gemini",
}
# Client names that start so, followed by "-" and anything (Gemini CLI adds its server's name).
KNOWN_PREFIXES = {"gemini-cli-mcp-client-": "gemini"}
MAX_CHARS = 40
_OTHER = re.compile(r"[^a-z0-9._-]+")


def agent_of_client(name: str | None) -> str:
    """The agent a client named ``name`` is, as ``prov_agent`` records it ("" for none)."""
    if not name:
        return ""
    known = KNOWN_CLIENTS.get(name)
    if known is not None:
        return known
    for prefix, agent in KNOWN_PREFIXES.items():
        if name.startswith(prefix):
            return agent
    cleaned = _OTHER.sub("-", name.lower()).strip("-._")[:MAX_CHARS].rstrip("-._")
    return cleaned if is_agent_name(cleaned) else ""


def client_name(context: Context | None) -> str | None:
    """The name the client gave in ``initialize`` (``clientInfo.name``; on a protocol
    without the handshake, in each request's envelope), or None: no name, or no request
    (a tool called in process)."""
    if context is None:
        return None
    try:
        session = context.session
    except ValueError:  # the SDK's "Context is not available outside of a request"
        return None
    params = session.client_params
    return params.client_info.name if params is not None else None
