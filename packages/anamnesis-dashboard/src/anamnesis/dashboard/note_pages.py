"""One note's pages: ``/notes/<id>`` (read; POST saves an edit) and ``/notes/<id>/edit``
(its history: history_pages.py).

The id in the address is checked against the ULID pattern before anything else and is
only ever handed to the store, which finds the note's file through its index: an address
never becomes a path.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from anamnesis.dashboard.diffing import diff_lines
from anamnesis.dashboard.note_source import read_source, save_source
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
    if request.method == "POST":
        return await save_note(request)
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
    )


async def edit_note(request: Request) -> HTMLResponse:
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    try:
        source = read_source(dashboard.store, note_id)
    except NoteNotFound:
        return _not_found(request, note_id)
    except (StoreError, UnsafeFile) as exc:
        return _unreadable(request, exc)
    return page(request, "edit.html", note_id=note_id, text=source.text, digest=source.digest,
                conflict=None, problem_text="")  # fmt: skip


async def save_note(request: Request) -> Response:
    """Save an edit if the file is still the one the form was loaded from: 409 with both
    versions if it changed meanwhile, 422 with the reason if the text is not a valid note;
    in both cases the typed text comes back in the editor, so nothing is lost."""
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    form = dict(parse_qsl((await request.body()).decode("utf-8", "replace"),
                          keep_blank_values=True))  # fmt: skip
    text, loaded = form.get("source", ""), form.get("digest", "")
    async with dashboard.save_lock:
        try:
            outcome = save_source(dashboard.store, note_id, text, loaded)
        except NoteNotFound:
            return _not_found(request, note_id)
        except (StoreError, UnsafeFile) as exc:
            return _unreadable(request, exc)
    if outcome.conflict is not None:
        theirs = outcome.conflict
        return page(
            request, "edit.html", 409,
            note_id=note_id, text=text, digest=theirs.digest, problem_text="",
            conflict={"text": theirs.text,
                      "diff": diff_lines(theirs.text, text, "the file now", "your edit")},
        )  # fmt: skip
    if outcome.problem:
        return page(request, "edit.html", 422, note_id=note_id, text=text, digest=loaded,
                    conflict=None, problem_text=outcome.problem)  # fmt: skip
    state = "masked" if outcome.masked else "1"
    return RedirectResponse(f"/notes/{note_id}?saved={state}", status_code=303)


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
