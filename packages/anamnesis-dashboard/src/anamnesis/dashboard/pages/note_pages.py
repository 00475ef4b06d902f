"""One note's page: ``/notes/<id>`` (read); editing is :mod:`.edit_pages`, its past
:mod:`.history_pages`.

The id in the address is checked against the ULID pattern before anything else and is
only ever handed to the store, which finds the note's file through its index: an address
never becomes a path.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from anamnesis.dashboard.pages.responses import dashboard_of, page, problem
from anamnesis.dashboard.views.conflict_copies import banner
from anamnesis.ops import Home, Route, Router, remote_specs, which_remote
from anamnesis.store import Memory, MemoryStore, NoteNotFound, StoreError, is_valid_id

SOURCES_KEY = "sources"  # a reflection note's frontmatter: the episodes it was distilled from


def _note_id(request: Request) -> str | None:
    note_id = str(request.path_params["note_id"]).upper()
    return note_id if is_valid_id(note_id) else None


def _not_found(request: Request, raw: str) -> HTMLResponse:
    return problem(
        request, 404, "No such note",
        f"{raw!r} is not the id of a note in this store (ids are 26-character ULIDs).",
    )  # fmt: skip


def _unreadable(request: Request, exc: Exception) -> HTMLResponse:
    return problem(request, 409, "The note's file cannot be read", str(exc))


async def show_note(request: Request) -> Response:
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    store = dashboard.store
    try:
        note = store.get(note_id)
        chain = store.supersede_chain(note_id)
    except NoteNotFound:
        return _not_found(request, note_id)
    except StoreError as exc:
        return _unreadable(request, exc)
    return page(
        request,
        "note.html",
        note=note,
        older=_titled(store, chain.older),
        newer=_titled(store, chain.newer),
        sources=_titled(store, _source_ids(note)),
        compatible=_titled(store, note.compatible_with),  # "both are right", said by a person
        extra={key: value for key, value in note.extra.items() if key != SOURCES_KEY},
        file=_relative(store, note_id),
        saved=request.query_params.get("saved", ""),
        conflict=banner(store, note),  # keep-both copies name each other: say which is which
        **_remotes(dashboard.home, store, note),
        shared=request.query_params.get("shared", ""),
    )


def _remotes(home: Home, store: MemoryStore, note: Memory) -> dict[str, Any]:
    """``route``: which remote the note goes to and why; ``share_to``: the remotes a
    portable note can be moved to (``anamnesis share ID --to NAME``). Both only where this
    home has named remotes (with one remote, every note goes to it: nothing to say)."""
    if not remote_specs(home.config()):
        return {"route": None, "share_to": []}
    try:
        route: Route | None = which_remote(home, store.file_of(note.id))
    except StoreError:
        route = None
    share_to = sorted(Router.of(home).names) if note.scope == "portable" else []
    return {"route": route, "share_to": share_to}


def _titled(store: MemoryStore, ids: tuple[str, ...] | list[str]) -> list[tuple[str, str]]:
    """(id, title) for linked notes; a deleted one shows as such."""
    out = []
    for linked in ids:
        try:
            out.append((linked, store.get(linked).title))
        except (NoteNotFound, StoreError):
            out.append((linked, "(no longer in the store)"))
    return out


def _source_ids(note: Memory) -> list[str]:
    raw = note.extra.get(SOURCES_KEY)
    if not isinstance(raw, list):
        return []
    return [str(item).upper() for item in raw if is_valid_id(str(item).upper())]


def _relative(store: MemoryStore, note_id: str) -> str:
    try:
        return store.file_of(note_id).relative_to(store.root).as_posix()
    except (StoreError, ValueError):
        return ""
