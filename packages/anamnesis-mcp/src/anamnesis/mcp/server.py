"""The MCP server: five tools, each a thin wrapper over a function in :mod:`.functions`;
the resources and prompts of :mod:`.catalog`.

The tools are module-level functions taking the server's :class:`ToolState` first;
:func:`build_server` binds them to one state and registers them (:data:`TOOLS`), then the
catalog's resource templates and prompts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import MethodType
from typing import Annotated, Any, Literal, NamedTuple

import anyio
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    GetPromptResult,
    InputRequiredResult,
    Resource,
    TextContent,
    ToolAnnotations,
)
from pydantic import Field

from anamnesis.mcp import descriptions
from anamnesis.mcp.arguments import MAX_K, TOOL_ARGUMENTS, InvalidArgument, check_call
from anamnesis.mcp.background import BackgroundEmbedding
from anamnesis.mcp.catalog import TEMPLATES, Catalog
from anamnesis.mcp.client_agent import agent_of_client, client_name
from anamnesis.mcp.functions import (
    newest_that_fit,
    search_memories,
    status_report,
    sync_memory,
    write_memory,
)
from anamnesis.mcp.guard import ToolGuard, crash_log
from anamnesis.mcp.prompts import check_prompt
from anamnesis.mcp.session_usage import SessionUsage
from anamnesis.mcp.stdio import serve_stdio
from anamnesis.mcp.version import __version__
from anamnesis.ops import Home, resolve_project_key
from anamnesis.store import (
    DEFAULT_MODE,
    KEYWORD_MODE,
    SEARCH_MODES,
    MemoryStore,
    NoteLimits,
    display_safe,
    resolve_machine_id,
)
from anamnesis.sync import Fork, Strategy, SyncBackend, SyncResult, SyncState
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.shared.exceptions import MCPError

SERVER_NAME = "anamnesis"


# The hints clients decide approval by, every one explicit: the spec's defaults for a
# missing hint are the cautious ones (destructive, open world), and Codex reads them so: it
# asks before a call whose destructiveHint is true, runs a readOnlyHint tool without asking,
# and otherwise asks unless destructiveHint and openWorldHint are both false.
# - The readers change nothing and read only the store.
# - memory_write adds one file and changes no other note (a note it supersedes stays, only
#   hidden from searches): not destructive, closed world (the next sync carries it), not
#   idempotent (a second call writes a second note). Codex runs it without asking.
# - memory_sync talks to the git remote (open world) and applies what other machines did,
#   deletions included (destructive); a second call with nothing new changes nothing
#   (idempotent). Codex asks first.
def _hints(
    title: str, *, read_only: bool, destructive: bool, idempotent: bool, open_world: bool
) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=open_world,
    )


def _reads(title: str) -> ToolAnnotations:
    return _hints(title, read_only=True, destructive=False, idempotent=True, open_world=False)


WRITES_NEW_NOTE = _hints(
    "Save a note", read_only=False, destructive=False, idempotent=False, open_world=False
)
TALKS_TO_REMOTE = _hints(
    "Sync the memory", read_only=False, destructive=True, idempotent=True, open_world=True
)

# memory_list's reply stays under this many characters of JSON: Claude Code moves a result
# over 50,000 characters out of the conversation into a file.
LIST_MAX_CHARS = 40_000

Note = dict[str, Any]
# The allowed values appear in the input schema, so the model sees them before calling. The
# arguments are checked before the SDK's validation (AnamnesisServer.call_tool), so a wrong
# value still gets our message, not the SDK's. A test keeps these in step with the store.
TypeName = Literal["procedural", "semantic", "episodic"]
ScopeName = Literal["portable", "machine-local"]
Project = Annotated[
    str | None,
    Field(description="One project key, exactly (see memory_status); omit for every project."),
]
NoteType = Annotated[TypeName | None, Field(description="Omit for all types.")]
NoteScope = Annotated[ScopeName | None, Field(description="Omit for both.")]
Agent = Annotated[
    str | None,
    Field(
        description="Only notes this coding agent wrote (claude-code, codex, ...); omit for all."
    ),
]
# A date argument: "2027-01-31", a timestamp, or from today ("+30d"); arguments.check_date.
DATE_HINT = "'2027-01-31', a timestamp, or from today: '+30d', '+6m'"


def _mode_values(schema: dict[str, Any]) -> None:
    """The ``mode`` argument's allowed values: the store's table of search modes as it is
    when a server is built (the SDK builds each tool's schema then), so a mode added to the
    table is in the schema with no change here."""
    for option in schema.get("anyOf", [schema]):  # [text, null]: the text one
        if option.get("type") == "string":
            option["enum"] = list(SEARCH_MODES)


ModeArgument = Annotated[
    str | None,
    Field(
        description=f"{KEYWORD_MODE} for exact names, codes, ids; omit for the default "
        f"({DEFAULT_MODE}).",
        json_schema_extra=_mode_values,
    ),
]


@dataclass(frozen=True)
class ToolState:
    """What the tools of one server share: built once by :func:`build_server`, passed to
    each tool as its first argument (bound there, so a client never sees it)."""

    store: MemoryStore
    machine_id: str  # resolved at build time: the model cannot choose it
    backend: SyncBackend
    guard: ToolGuard
    # Embeds new notes on a daemon thread; whoever runs the server stops it before closing
    # the store (see __main__.serve).
    embedding: BackgroundEmbedding
    usage: SessionUsage  # what this session's searches returned, recorded (stats)


class AnamnesisServer(MCPServer[Any]):
    """MCPServer whose tools and prompts check their raw arguments first, in words a model
    can use, and whose resource list is read from the store when asked.

    The SDK's own argument validation would answer a wrong shape with a pydantic report (a
    prompt's, with "Error rendering prompt"); checking here first turns every mistake into
    one sentence naming the fix.
    """

    def __init__(self, state: ToolState, catalog: Catalog, **settings: Any) -> None:
        super().__init__(**settings)
        self.state = state  # what build_server bound the tools to
        self.catalog = catalog  # what the resources and prompts read
        self.embedding = state.embedding  # stop it before closing the store

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        if name in TOOL_ARGUMENTS:
            with self.state.guard(name):
                arguments = check_call(name, arguments)
        return await super().call_tool(name, arguments, context)

    async def list_resources(self) -> list[Resource]:
        """The current project's resources and newest notes, as the store holds them now
        (the SDK's list is fixed when a server is built)."""
        return await anyio.to_thread.run_sync(self.catalog.listing)

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """The SDK's read; a URI that matches no template is told which ones exist."""
        try:
            return await super().read_resource(uri, context)
        except ResourceNotFoundError as exc:
            if str(exc).startswith("Unknown resource"):
                raise ResourceNotFoundError(
                    f"no resource is {str(uri)[:200]!r}; the resources are "
                    f"{', '.join(TEMPLATES)} (resources/templates/list)"
                ) from None
            raise

    async def get_prompt(
        self, name: str, arguments: dict[str, Any] | None = None, context: Any = None
    ) -> GetPromptResult | InputRequiredResult:
        try:
            checked = check_prompt(name, arguments)
        except InvalidArgument as exc:
            raise MCPError(INVALID_PARAMS, f"prompts/get {name[:80]!r}: {exc}") from None
        return await super().get_prompt(name, dict(checked), context)

    async def run_stdio_async(self) -> None:
        """Serve over stdio, answering every request, even one the SDK cannot parse.

        The SDK's own stdio loop drops such a line without a reply (see :mod:`.stdio`).
        """
        # MCPServer keeps its protocol server private; its own run_stdio_async uses it so.
        await serve_stdio(self._lowlevel_server)


# The tools. The SDK builds each one's input and output schema from its signature (all but
# the first parameter, `state`, which build_server binds) and its name from the function's.


def memory_search(
    state: ToolState,
    query: Annotated[str, Field(description="Keywords: names, error text, topics.")],
    project: Project = None,
    type: NoteType = None,
    scope: NoteScope = None,
    k: Annotated[int, Field(description="How many notes.", ge=1, le=MAX_K)] = 8,
    mode: ModeArgument = None,
    include_superseded: Annotated[
        bool,
        Field(description="true: also notes a newer note replaced (each says superseded_by)."),
    ] = False,
    agent: Agent = None,
    include_expired: Annotated[
        bool,
        Field(description="true: also notes past their valid_until (each says expired)."),
    ] = False,
    as_of: Annotated[
        str | None,
        Field(
            description="The memory as it stood on this date ('2027-01-31', a timestamp, or "
            "'-30d' for 30 days ago); omit for now."
        ),
    ] = None,
    context: Context | None = None,
) -> Annotated[CallToolResult, list[Note]]:
    """The best notes for ``query``, with the mode that ran (and, after a fallback to
    keywords, a second text block saying so); the notes returned are recorded as used
    (the SDK passes ``context``, which the tool's schema does not show)."""
    with state.guard("memory_search"):
        hits = search_memories(
            state.store,
            query=query,
            project=project,
            type=type,
            scope=scope,
            k=k,
            mode=mode,
            include_superseded=include_superseded,
            agent=agent,
            include_expired=include_expired,
            as_of=as_of,
        )
    state.usage.searched((note["id"] for note in hits), client_name(context))
    reply = _reply({"result": hits, "mode": hits.mode}, hits)
    if hits.notice is not None:  # vectors were asked for and could not run: say so
        reply.content.append(TextContent(type="text", text=hits.notice))
    return reply


def memory_list(
    state: ToolState,
    project: Project = None,
    type: NoteType = None,
    scope: NoteScope = None,
    agent: Agent = None,
) -> Annotated[CallToolResult, list[Note]]:
    """The matching notes, newest first, without bodies; cut to fit :data:`LIST_MAX_CHARS`."""
    with state.guard("memory_list"):
        shown, total = newest_that_fit(
            state.store, LIST_MAX_CHARS, project=project, type=type, scope=scope, agent=agent
        )
    reply = _reply({"result": shown, "total": total}, shown)
    if len(shown) < total:
        reply.content.append(
            TextContent(
                type="text",
                text=f"Showing the newest {len(shown)} of {total} notes (the listing "
                f"is cut at {LIST_MAX_CHARS:,} characters). Narrow it with project, type "
                "or scope, or use memory_search.",
            )
        )
    return reply


def memory_status(state: ToolState) -> Annotated[CallToolResult, dict[str, Any]]:
    """Counts, unreadable files, vector search and the sync state (no network)."""
    with state.guard("memory_status"):
        report = status_report(state.store, state.backend, machine_id=state.machine_id)
    return _reply(report, report)


def memory_write(
    state: ToolState,
    type: Annotated[TypeName, Field(description="What kind of note.")],
    title: Annotated[str, Field(description="One line: what the note is about.")],
    body: Annotated[str, Field(description="Markdown, self-contained; up to 1 MB.")],
    project: Annotated[
        str, Field(description="Project key (see memory_status), or 'global'.")
    ] = "global",
    tags: Annotated[
        list[str] | None, Field(description="A few short keywords.", max_length=NoteLimits.TAGS)
    ] = None,
    scope: Annotated[
        ScopeName, Field(description="portable: synced; machine-local: this machine only.")
    ] = "portable",
    supersedes: Annotated[
        list[str] | None,
        Field(
            description="Ids of the notes this one replaces (from memory_search): pass them "
            "whenever the new note corrects or updates an old one; searches then hide them.",
            max_length=NoteLimits.SUPERSEDES,
        ),
    ] = None,
    valid_until: Annotated[
        str | None,
        Field(
            description=f"The last day the note holds ({DATE_HINT}); after it searches and "
            "the session's notes leave it out. Omit for none."
        ),
    ] = None,
    review_after: Annotated[
        str | None,
        Field(
            description=f"From this day the note is due for review ({DATE_HINT}). Omit for none."
        ),
    ] = None,
    context: Context | None = None,
) -> Annotated[CallToolResult, Note]:
    """One new note, stamped with the server's machine id and the agent the client is (from
    its name in ``initialize``: :mod:`.client_agent`); the SDK passes ``context``, which
    the tool's schema does not show."""
    with state.guard("memory_write"):
        note = write_memory(
            state.store,
            type=type,
            title=title,
            body=body,
            project=project,
            tags=tags,
            machine_id=state.machine_id,  # bound at build time, never from the model
            scope=scope,
            supersedes=supersedes,
            agent=agent_of_client(client_name(context)),  # the client's, never the model's
            valid_until=valid_until or "",
            review_after=review_after or "",
        )
    state.embedding.wake()  # embed the new note now, not in the next hybrid search
    return _reply(note, note)


def memory_sync(
    state: ToolState,
    force: Annotated[bool, Field(description="Reserved; has no effect.")] = False,
) -> Annotated[CallToolResult, dict[str, Any]]:
    """One sync cycle, then the pulled notes reindexed."""
    del force  # accepted for compatibility with the spec's signature; changes nothing
    with state.guard("memory_sync"):
        outcome = sync_memory(state.store, state.backend)
    state.embedding.wake()  # pulled notes need vectors too
    return _reply(outcome, outcome)


class ToolSpec(NamedTuple):
    """A tool as registered: the function, and what a client reads beside its schema."""

    function: Callable[..., CallToolResult]
    # What the model reads (the docstrings above are for this code's readers): the text, or
    # what makes it when a server is built (memory_search's names the store's search modes).
    description: str | Callable[[], str]
    annotations: ToolAnnotations  # the hints Claude Code's auto-approval goes by

    def text(self) -> str:
        """The description as a server built now shows it."""
        return self.description if isinstance(self.description, str) else self.description()


# In the order tools/list shows them.
TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(memory_search, descriptions.search, _reads("Search the memory")),
    ToolSpec(memory_list, descriptions.LIST, _reads("List notes")),
    ToolSpec(memory_status, descriptions.STATUS, _reads("Memory status")),
    ToolSpec(memory_write, descriptions.WRITE, WRITES_NEW_NOTE),
    ToolSpec(memory_sync, descriptions.SYNC, TALKS_TO_REMOTE),
)


def build_server(
    store: MemoryStore,
    *,
    machine_id: str | None = None,
    backend: SyncBackend | None = None,
    project: str | None = None,
) -> AnamnesisServer:
    """An MCP server named ``anamnesis`` serving ``store``: the tools, the resources and the
    prompts (:mod:`.catalog`).

    The machine id is resolved once here and bound into ``memory_write``: the model cannot
    choose it. Without ``backend``, sync goes through git to the configured remote.
    ``project``: the project whose resources ``resources/list`` shows (default: the
    working directory's, where the client started the server). Unless keyword search is
    configured, a daemon thread starts embedding the notes that lack a vector
    (``server.embedding``; stop it before closing the store).
    """
    mid = machine_id or resolve_machine_id(store.root)
    guard = ToolGuard(store)
    here = project or _current_project()
    usage = SessionUsage(store, here)
    state = ToolState(
        store=store,
        machine_id=mid,
        backend=backend or _GitOnFirstUse(store, mid),
        guard=guard,
        embedding=BackgroundEmbedding(store, lambda: crash_log(guard.log_path)),
        usage=usage,
    )
    catalog = Catalog(store, here, guard, mid, usage)
    server = AnamnesisServer(
        state,
        catalog,
        name=SERVER_NAME,
        instructions=descriptions.INSTRUCTIONS,
        version=__version__,
        log_level="WARNING",  # INFO would log every request to Claude Code's MCP log
    )
    for tool in TOOLS:
        # Bound as a method: the SDK reads the name, the signature (without `state`) and the
        # annotations through it as from the function itself. A functools.partial has no
        # __name__, which names the tool and its schemas.
        bound = MethodType(tool.function, state)
        server.add_tool(bound, description=tool.text(), annotations=tool.annotations)
    catalog.register(server)
    state.embedding.start()
    return server


def _current_project() -> str:
    """The project of the folder the client started the server in ("global" when that
    folder is gone: a server must start wherever it is started)."""
    try:
        return resolve_project_key(Path.cwd())
    except OSError:
        return "global"


class _GitOnFirstUse:
    """The git sync backend, created when a tool first needs it.

    dulwich costs tens of milliseconds to import; a server that is only searched never pays.
    The remote is read on every use (environment, then the store's config.json), so running
    `anamnesis init --remote URL` takes effect without restarting Claude Code.
    """

    def __init__(self, store: MemoryStore, machine_id: str) -> None:
        self._home = Home(store.root, machine_id=machine_id)
        self._backend: SyncBackend | None = None
        self._remote: str | None = None

    def _git(self) -> SyncBackend:
        home = self._home
        remote = home.remote
        if self._backend is None or remote != self._remote:
            self._backend = home.sync_backend()
            self._remote = remote
        return self._backend

    def init(self) -> None:
        self._git().init()

    def local_changes(self) -> tuple[str, ...]:
        return self._git().local_changes()

    def commit_local(self, message: str | None = None) -> str | None:
        return self._git().commit_local(message)

    def sync(self) -> SyncResult:
        return self._git().sync()

    def resolve(self, strategy: Strategy, *, fork: Fork | None = None) -> SyncResult:
        return self._git().resolve(strategy, fork=fork)

    def state(self) -> SyncState:
        return self._git().state()


def _reply(structured: dict[str, Any], shown: object) -> CallToolResult:
    """The structured result, and the same data as one compact JSON text for the model.

    The SDK's default would send one pretty-printed text block per list item: more tokens,
    and nothing at all for an empty result. The text is display-safe (a client shows it to
    the user): direction controls and control characters in a title are JSON escapes.
    """
    text = display_safe(json.dumps(shown, ensure_ascii=False))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )
