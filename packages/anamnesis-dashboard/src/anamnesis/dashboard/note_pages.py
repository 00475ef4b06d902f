"""One note's pages: ``/notes/<id>`` (read) and ``/notes/<id>/history``; editing is
:mod:`.edit_pages`.

The id in the address is checked against the ULID pattern before anything else and is
only ever handed to the store, which finds the note's file through its index: an address
never becomes a path.
"""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from anamnesis.dashboard.conflict_copies import banner
from anamnesis.dashboard.context import Dashboard
from anamnesis.dashboard.diffing import diff_lines
from anamnesis.dashboard.history_cache import NoteVersion
from anamnesis.dashboard.note_source import read_source
from anamnesis.dashboard.responses import dashboard_of, page, problem
from anamnesis.store import Memory, MemoryStore, NoteNotFound, StoreError, UnsafeFile, is_valid_id

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
        extra={key: value for key, value in note.extra.items() if key != SOURCES_KEY},
        file=_relative(store, note_id),
        saved=request.query_params.get("saved", ""),
        conflict=banner(store, note),  # keep-both copies name each other: say which is which
    )


async def note_history(request: Request) -> HTMLResponse:
    """The note's versions from the git history (through the derived cache), the working
    file when it differs from the last commit, and a diff between any two."""
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    dashboard.history.refresh()
    versions = dashboard.history.versions(note_id)
    texts: dict[str, str] = {}
    working = _working_copy(dashboard.store, note_id)
    if working is not None and (not versions or versions[0].blob != working[0]):
        texts["working"] = working[1]
    if not versions and not texts:
        return _not_found(request, note_id)
    choices = [*(["working"] if "working" in texts else []), *(v.commit for v in versions)]
    new = request.query_params.get("b") or choices[0]
    old = request.query_params.get("a") or (choices[1] if len(choices) > 1 else choices[0])
    if new not in choices or old not in choices:
        return problem(request, 400, "No such version", "pick versions from this note's list")
    return page(
        request,
        "history.html",
        note_id=note_id,
        versions=versions,
        has_working="working" in texts,
        a=old,
        b=new,
        diff=diff_lines(
            _text_of(dashboard, old, versions, texts),
            _text_of(dashboard, new, versions, texts),
            old[:7],
            new[:7],
        ),
    )


def _text_of(
    dashboard: Dashboard, choice: str, versions: list[NoteVersion], texts: dict[str, str]
) -> str:
    if choice in texts:
        return texts[choice]
    version = next(v for v in versions if v.commit == choice)
    return "" if version.blob is None else dashboard.history.text(version.blob)


def _working_copy(store: MemoryStore, note_id: str) -> tuple[str, str] | None:
    """The note's file now, as (git blob id, text), when it exists."""
    try:
        source = read_source(store, note_id)
    except (StoreError, UnsafeFile):
        return None
    data = source.text.encode("utf-8")
    blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
    return blob, source.text


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
