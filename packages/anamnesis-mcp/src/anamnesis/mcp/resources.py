"""What the server offers to read beside its tools: MCP resources, as plain functions over a
store (the SDK registration is :mod:`.catalog`'s).

Three kinds, each markdown (``text/markdown``), display-safe (the store's ``display_safe``)
and bounded, with the notes fenced as reference data as every other block of notes is
(``ops.fence``):

- ``anamnesis://note/{id}``: one note, whole up to :data:`NOTE_MAX_CHARS`, with what it
  replaces and what replaces it. The id is checked as a ULID before the store is asked
  (``MemoryStore.get``); it never becomes a path.
- ``anamnesis://project/{+project}/recent``: a project's :data:`RECENT_NOTES` newest
  current notes, one line each, with each note's URI.
- ``anamnesis://project/{+project}/session-start``: the block the SessionStart hook prints
  for that project (``ops.select_inject`` + ``ops.render_inject``, the hook's own code).

A project key is a path of its own (``github.com/me/repo``), so its variable is a reserved
expansion (``{+project}``, RFC 6570): its slashes stay as they are, and anything that is not
a URI character is percent-encoded (and decoded when read), ``%2F`` included. The key is
checked as the tools' ``project`` filter is (one key, exactly), and is never a path.
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import quote

from anamnesis.mcp.arguments import InvalidArgument, check_project_filter
from anamnesis.ops import (
    MARKED_NOTICE,
    MEMORY_NOTICE,
    Viewpoint,
    fence,
    fit_notes,
    render_inject,
    select_inject,
)
from anamnesis.store import Memory, MemoryStore, display_safe, is_due, is_expired

MIME_TYPE = "text/markdown"

NOTE_TEMPLATE = "anamnesis://note/{id}"
RECENT_TEMPLATE = "anamnesis://project/{+project}/recent"
SESSION_START_TEMPLATE = "anamnesis://project/{+project}/session-start"

# A note read as a resource stays under this many characters, as memory_list's reply does:
# Claude Code moves a tool result over 50,000 characters out of the conversation.
NOTE_MAX_CHARS = 40_000
RECENT_NOTES = 20
# resources/list: the current project's blocks, and its newest notes by URI.
LISTED_NOTES = 10
TITLE_MAX = 200
# The most related ids a note's header names (a chain can be long; the CLI's show has all).
MAX_LINKS = 10

# Kept as they are in a project key's URI: RFC 3986's reserved characters but ``?`` and
# ``#`` (the SDK's match stops there) and ``%`` (always encoded, so decoding gives the key
# back). Everything else is percent-encoded.
_KEPT = ":/[]@!$&'()*+,;="


class Listed(NamedTuple):
    """One resource as ``resources/list`` shows it."""

    uri: str
    name: str
    title: str
    description: str


def note_uri(note_id: str) -> str:
    return f"anamnesis://note/{note_id}"


def project_uri(project: str, leaf: str) -> str:
    """``anamnesis://project/<key>/<leaf>`` (``recent``, ``session-start``)."""
    return f"anamnesis://project/{quote(project, safe=_KEPT)}/{leaf}"


def read_note(store: MemoryStore, note_id: str, viewpoint: Viewpoint | None = None) -> str:
    """One note as markdown: a header (id, dates, tags, what it replaces and what replaces
    it), then the note fenced, its body cut to fit :data:`NOTE_MAX_CHARS` if it must, under
    its marker as read from ``viewpoint`` (default: nothing known, every part said).
    Raises the store's ``InvalidNote`` for what is not an id, ``NoteNotFound``."""
    mem = store.get(note_id)  # checks the id first: a ULID, or InvalidNote
    newer = store.supersede_chain(mem.id).newer
    header = _note_header(mem, newer)
    selection = fit_notes([mem], NOTE_MAX_CHARS, header=header, viewpoint=viewpoint)
    return display_safe(render_inject(selection, header=header))


def _note_header(mem: Memory, newer: tuple[str, ...]) -> str:
    lines = [
        f"# Anamnesis note {mem.id}",
        "",
        MARKED_NOTICE,
        "",
        f"- {mem.type}, {mem.scope}; created {mem.created_at[:10] or 'unknown'}",
    ]
    if mem.tags:
        lines.append(f"- tags: {', '.join(mem.tags)}")
    if mem.supersedes:
        lines.append(f"- replaces: {_uris(mem.supersedes)}")
    if newer:
        lines.append(
            f"- replaced by: {_uris(newer)}. This note is superseded: trust the newer one."
        )
    if mem.valid_until:
        expired = ". This note has expired: it no longer holds." if is_expired(mem) else ""
        lines.append(f"- valid until {mem.valid_until}{expired}")
    if mem.review_after:
        due = ": due for review, check it against what you see now" if is_due(mem) else ""
        lines.append(f"- review after {mem.review_after}{due}")
    return "\n".join(lines)


def _uris(ids: list[str] | tuple[str, ...]) -> str:
    shown = ", ".join(note_uri(note_id) for note_id in ids[:MAX_LINKS])
    more = len(ids) - MAX_LINKS
    return f"{shown} and {more} more" if more > 0 else shown


def read_recent(store: MemoryStore, project: str) -> str:
    """The newest current notes of ``project``, one line each (type, title, date, URI),
    fenced; then how many of how many, and how to read the rest."""
    key = _project_key(project)
    notes = store.list(
        project=key, include_superseded=False, limit=RECENT_NOTES, include_body=False
    )
    title = f"# Anamnesis: recent notes in {_clip(key)}"
    if not notes:
        return display_safe(
            f"{title}\n\nNo current notes in this project. memory_status lists the projects "
            "that have notes."
        )
    total = store.count(project=key, include_superseded=False)
    lines = [
        f"- [{mem.type}] {_clip(mem.title)} · updated {mem.updated_at[:10]} · {note_uri(mem.id)}"
        for mem in notes
    ]
    block = fence(f"{title}\n\n{MEMORY_NOTICE}", "\n".join(lines))
    if total > len(notes):
        more = f"The newest {len(notes)} of {total} current notes"
    else:
        more = "The only current note" if total == 1 else f"All {total} current notes"
    return display_safe(
        f"{block}\n\n{more}. Read one whole at its URI; memory_search finds notes by their "
        "words, memory_list lists them all."
    )


def read_session_start(store: MemoryStore, project: str, viewpoint: Viewpoint | None = None) -> str:
    """What the SessionStart hook prints for ``project`` ("" when it prints nothing), its
    notes' markers as read from ``viewpoint`` (default: ``project``'s, machine and agent
    unknown)."""
    key = _project_key(project)
    view = viewpoint.replace(project=key) if viewpoint is not None else None
    return render_inject(select_inject(store, project=key, viewpoint=view))


def listed_resources(store: MemoryStore, project: str) -> list[Listed]:
    """What ``resources/list`` shows for a server started in ``project``: its session-start
    block and recent notes (and the global notes', when there are some and the project is
    another), then its :data:`LISTED_NOTES` newest current notes. Bounded: the templates
    reach the rest."""
    listed: list[Listed] = []
    keys = [project]
    if project != "global" and store.count(project="global", include_superseded=False):
        keys.append("global")
    for key in keys:
        shown = _clip(key)
        listed.append(
            Listed(
                project_uri(key, "session-start"),
                f"session-start:{shown}",
                f"Session start: {shown}",
                "The memory block the SessionStart hook injects for this project.",
            )
        )
        listed.append(
            Listed(
                project_uri(key, "recent"),
                f"recent:{shown}",
                f"Recent notes: {shown}",
                f"The {RECENT_NOTES} newest current notes of this project, one line each.",
            )
        )
    notes = store.list(
        project=project, include_superseded=False, limit=LISTED_NOTES, include_body=False
    )
    for mem in notes:
        listed.append(
            Listed(
                note_uri(mem.id),
                f"note:{mem.id}",
                _clip(mem.title),
                f"{mem.type} note of {_clip(mem.project)}, updated {mem.updated_at[:10]}",
            )
        )
    return [Listed(*(display_safe(part) for part in entry)) for entry in listed]


def _project_key(project: str) -> str:
    """The project key a URI named, checked as the tools' filter is (InvalidArgument)."""
    key = check_project_filter(project)
    if key is None:  # None only for null, which a URI never holds
        raise InvalidArgument("project", "name one project key")
    return key


def _clip(text: str, limit: int = TITLE_MAX) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
