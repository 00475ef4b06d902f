"""What the server offers beside its tools, registered with the SDK: the resource templates
of :mod:`.resources` and the prompts of :mod:`.prompts`.

A :class:`Catalog` holds what they read (the store, the project the server runs in, the
guard that turns failures into protocol errors, this machine's id); its methods are what
the SDK calls, bound to it, so a template's parameters are exactly its URI's variables (and
the request's context, which the SDK passes beside them: the client, whose agent a block of
notes is read by).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from mcp_types import Resource

from anamnesis.mcp.client_agent import agent_of_client, client_name
from anamnesis.mcp.guard import ToolGuard
from anamnesis.mcp.prompts import PROMPTS, PromptSpec
from anamnesis.mcp.resources import (
    MIME_TYPE,
    NOTE_TEMPLATE,
    RECENT_TEMPLATE,
    SESSION_START_TEMPLATE,
    listed_resources,
    note_uri,
    project_uri,
    read_note,
    read_recent,
    read_session_start,
)
from anamnesis.mcp.session_usage import SessionUsage
from anamnesis.ops import Viewpoint
from anamnesis.store import MemoryStore
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.prompts.base import PromptArgument
from mcp.server.mcpserver.resources import ResourceSecurity

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

# A project key is no path: the SDK's path checks (no "..", not absolute) would refuse
# keys a marker file or a file:// remote gives ("/srv/repo"). The key is checked as the
# tools' project filter instead; a note id keeps the SDK's checks and then must be a ULID.
PROJECT_IS_NO_PATH = ResourceSecurity(exempt_params=frozenset({"project"}))
TEMPLATES = (NOTE_TEMPLATE, RECENT_TEMPLATE, SESSION_START_TEMPLATE)


@dataclass(frozen=True)
class Catalog:
    store: MemoryStore
    project: str  # the project the server runs in (its working directory's key)
    guard: ToolGuard
    machine_id: str  # this machine's: a note written here does not say where
    usage: SessionUsage  # a note read by its id is recorded as fetched (stats)

    def note(self, id: str, ctx: Context) -> str:  # the URI's variable is {id}
        with self.guard.resource(note_uri(id)):
            text = read_note(self.store, id, self._viewpoint(None, ctx))
        self.usage.fetched(id, client_name(ctx))
        return text

    def recent(self, project: str) -> str:
        with self.guard.resource(project_uri(project, "recent")):
            return read_recent(self.store, project)

    def session_start(self, project: str, ctx: Context) -> str:
        with self.guard.resource(project_uri(project, "session-start")):
            return read_session_start(self.store, project, self._viewpoint(project, ctx))

    def _viewpoint(self, project: str | None, ctx: Context | None) -> Viewpoint:
        """Where a block of notes is read: ``project``'s, this machine, the client's agent
        (as the hooks' blocks are read by the agent they run for)."""
        agent = agent_of_client(client_name(ctx)) or None
        return Viewpoint(project=project, machine=self.machine_id, agent=agent)

    def listing(self) -> list[Resource]:
        """``resources/list``: the current project's resources, read now (bounded)."""
        with self.guard.resource("the resource list"):
            listed = listed_resources(self.store, self.project)
        return [
            Resource(
                uri=entry.uri,
                name=entry.name,
                title=entry.title,
                description=entry.description,
                mime_type=MIME_TYPE,
            )
            for entry in listed
        ]

    def register(self, server: MCPServer[object]) -> None:
        """The three templates and the prompts, on ``server``."""
        templates = (
            (NOTE_TEMPLATE, self.note, "note", "One note, whole, by its id."),
            (
                RECENT_TEMPLATE,
                self.recent,
                "recent",
                "A project's newest current notes, one line each (project: its key, "
                "e.g. github.com/owner/repo; slashes as they are).",
            ),
            (
                SESSION_START_TEMPLATE,
                self.session_start,
                "session-start",
                "The memory block the SessionStart hook injects for a project.",
            ),
        )
        for uri, read, name, description in templates:
            server.resource(
                uri,
                name=name,
                description=description,
                mime_type=MIME_TYPE,
                security=PROJECT_IS_NO_PATH,
            )(read)
        for spec in PROMPTS:
            server.add_prompt(self._prompt(spec))

    def _prompt(self, spec: PromptSpec) -> Prompt:
        """The SDK's prompt for ``spec``: its arguments as declared (the server checks them
        before rendering: ``AnamnesisServer.get_prompt``)."""

        def render(**arguments: str) -> str:
            return spec.render(arguments, self.project)

        return Prompt(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            arguments=[
                PromptArgument(name=a.name, description=a.description, required=a.required)
                for a in spec.arguments
            ],
            fn=render,
            context_kwarg=None,
        )
