"""What the server records as used, in the store's usage log (``anamnesis stats``): the
notes each ``memory_search`` returned, and each note fetched by id (the note resource,
``anamnesis://note/{id}``), which the log marks when a search of the same session returned
it before: a note found, then read whole.

A client starts a server of its own for each session over stdio, so the server is the
session: it names itself once (``mcp-`` and random hex) and records every run under that
name, with the project of the folder it was started in and the agent the client is.
Recording fails open: a usage file that cannot be written never fails a tool.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

from anamnesis.mcp.client_agent import agent_of_client
from anamnesis.store import MemoryStore


def _session_name() -> str:
    return f"mcp-{secrets.token_hex(6)}"


@dataclass(frozen=True)
class SessionUsage:
    store: MemoryStore
    project: str  # the folder's project the server was started in
    session: str = field(default_factory=_session_name)

    def searched(self, ids: Iterable[str], client: str | None) -> None:
        """A search returned these notes (none: it found nothing, which counts too)."""
        self._record("searched", ids, client)

    def fetched(self, note_id: str, client: str | None) -> None:
        """The client read this note whole, by its id."""
        self._record("fetched", [note_id], client)

    def _record(self, event: str, ids: Iterable[str], client: str | None) -> None:
        self.store.usage.record(
            event, ids, project=self.project, agent=agent_of_client(client), session=self.session
        )
