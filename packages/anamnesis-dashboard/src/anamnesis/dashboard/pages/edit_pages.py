"""Editing a note: ``/notes/<id>/edit`` (the form; ``?raw=1``: the whole file), a POST to
``/notes/<id>`` (the save), ``/notes/<id>/preview`` (the body as the note page will show
it) and, when the file changed while it was edited, the merge page.

A save never loses what was typed: refused as invalid (422) the page comes back with the
typed values in the form; refused because the file changed (409) the merge page shows the
typed edit in the editor, the file as it is now beside it, what differs between them, and
the edit as it was sent, which no button on the page changes.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from anamnesis.dashboard.markup.diffing import diff_lines
from anamnesis.dashboard.pages.note_pages import _not_found, _note_id, _unreadable
from anamnesis.dashboard.pages.responses import dashboard_of, page
from anamnesis.dashboard.views.edit_form import SCOPE_CHOICES, TYPE_CHOICES, EditFields, date_input
from anamnesis.dashboard.views.note_source import (
    NoteSource,
    SaveOutcome,
    note_of,
    read_source,
    save_fields,
    save_source,
)
from anamnesis.dashboard.views.review_items import review_address, review_return
from anamnesis.store import MalformedNote, MemoryStore, NoteNotFound, StoreError, UnsafeFile

RAW_FIELD = "source"  # the raw view's one field: the whole file
THEIRS_NAME, MINE_NAME = "the file now", "your edit"  # the diff's two sides


async def edit_note(request: Request) -> HTMLResponse:
    """The form (or the raw file with ``?raw=1``, or when the file is no note the form
    can show: then with the reason, whose YAML errors name the file's line)."""
    store = dashboard_of(request).store
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    try:
        scope = store.get(note_id).scope  # first: a file broken by hand is said so, not 404
        source = read_source(store, note_id)
    except NoteNotFound:
        return _not_found(request, note_id)
    except (StoreError, UnsafeFile) as exc:
        return _unreadable(request, exc)
    if request.query_params.get("raw") == "1":
        return _raw_page(request, note_id, source.text, source.digest)
    try:
        fields = EditFields.of(note_of(source.text, source.path, scope))
    except MalformedNote as exc:
        return _raw_page(request, note_id, source.text, source.digest, problem=str(exc))
    return _fields_page(request, note_id, fields, source.digest)


async def save_note(request: Request) -> Response:
    """Save the form (or the raw file) if the file is still the one the editor loaded:
    303 to the note; 409 with the merge page if it changed meanwhile; 422 with the reason
    if the note is not valid (an empty body among them)."""
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    form = await _form(request)
    loaded = form.get("digest", "")
    raw = RAW_FIELD in form
    fields = EditFields.from_form(form)
    async with dashboard.save_lock:
        try:
            if raw:
                outcome = save_source(dashboard.store, note_id, form[RAW_FIELD], loaded)
            else:
                outcome = save_fields(dashboard.store, note_id, fields, loaded)
        except NoteNotFound:
            return _not_found(request, note_id)
        except (StoreError, UnsafeFile) as exc:
            return _unreadable(request, exc)
    if outcome.conflict is not None:
        if raw:
            return _raw_merge(request, note_id, form[RAW_FIELD], outcome.conflict)
        return _fields_merge(request, dashboard.store, note_id, fields, outcome.conflict)
    if outcome.problem:
        if raw:
            return _raw_page(request, note_id, form[RAW_FIELD], loaded, problem=outcome.problem)
        return _fields_page(request, note_id, fields, loaded, problem=outcome.problem)
    dashboard.catch_up_embedding()  # found by meaning soon, no page waiting for it
    project = review_return(_back(request))
    if project is not None:  # opened from the review page: back to it, which checks again
        return RedirectResponse(review_address(project, edited=note_id), status_code=303)
    return RedirectResponse(f"/notes/{note_id}?saved={_saved_state(outcome)}", status_code=303)


async def preview(request: Request) -> HTMLResponse:
    """The posted body rendered as the note page renders it (htmx swaps it in beside the
    editor). A POST like any other: the guard has checked its session, Origin and CSRF
    token; it reads nothing from the store and writes nothing."""
    if _note_id(request) is None:
        return _not_found(request, str(request.path_params["note_id"]))
    form = await _form(request)
    return page(request, "_preview.html", body=form.get("body", "").replace("\r\n", "\n"))


def _fields_page(
    request: Request, note_id: str, fields: EditFields, digest: str, *, problem: str = ""
) -> HTMLResponse:
    return page(
        request, "edit.html", 422 if problem else 200,
        **_form_context(request, note_id, fields, digest), problem_text=problem,
        dirty=bool(problem),
    )  # fmt: skip


def _raw_page(
    request: Request, note_id: str, text: str, digest: str, *, problem: str = ""
) -> HTMLResponse:
    # A file that is no note (read from disk: 200) or a raw save refused (422): either way
    # the text stays in the editor, the reason above it.
    status = 422 if problem and request.method == "POST" else 200
    return page(
        request, "edit_raw.html", status,
        note_id=note_id, text=text, digest=digest, problem_text=problem,
        dirty=request.method == "POST", back=_back(request),
    )  # fmt: skip


def _fields_merge(
    request: Request, store: MemoryStore, note_id: str, mine: EditFields, now: NoteSource
) -> HTMLResponse:
    """The merge page for a form save: the typed fields against the file's own, or
    against its text when the file is no longer a note the form can show."""
    theirs: EditFields | None = None
    problem = ""
    try:
        theirs = EditFields.of(note_of(now.text, now.path, store.get(note_id).scope))
    except (MalformedNote, NoteNotFound) as exc:
        problem = str(exc)
    mine_text = mine.as_text()
    return page(
        request, "merge.html", 409,
        **_form_context(request, note_id, mine, now.digest), dirty=True,
        raw=False, theirs=theirs, theirs_problem=problem,
        theirs_text=now.text if theirs is None else theirs.as_text(), mine_text=mine_text,
        fill_theirs=None if theirs is None else theirs.as_data(), fill_mine=mine.as_data(),
        # A file the form cannot show is its raw text: no line of it compares with a field.
        diff=None if theirs is None else diff_lines(
            theirs.as_text(), mine_text, THEIRS_NAME, MINE_NAME),
    )  # fmt: skip


def _raw_merge(request: Request, note_id: str, text: str, now: NoteSource) -> HTMLResponse:
    """The merge page for a raw save: the typed file against the file now."""
    return page(
        request, "merge.html", 409,
        note_id=note_id, digest=now.digest, text=text, dirty=True, back=_back(request),
        raw=True, theirs=None, theirs_problem="", theirs_text=now.text, mine_text=text,
        fill_theirs={RAW_FIELD: now.text}, fill_mine={RAW_FIELD: text},
        diff=diff_lines(now.text, text, THEIRS_NAME, MINE_NAME),
    )  # fmt: skip


def _form_context(
    request: Request, note_id: str, fields: EditFields, digest: str
) -> dict[str, Any]:
    return {"note_id": note_id, "fields": fields, "digest": digest,
            "types": TYPE_CHOICES, "scopes": SCOPE_CHOICES, "back": _back(request),
            "date_input": date_input}  # fmt: skip


def _back(request: Request) -> str:
    """Where the save returns to, when the edit was opened from the review page
    (``?back=/review...``, kept in the form's address): only that page is accepted."""
    back = request.query_params.get("back", "")
    return back if review_return(back) is not None else ""


def _saved_state(outcome: SaveOutcome) -> str:
    return "masked" if outcome.masked else "1"


async def _form(request: Request) -> dict[str, str]:
    # The guard has read the body (within its size cap) and checked its CSRF token.
    body = (await request.body()).decode("utf-8", "replace")
    return dict(parse_qsl(body, keep_blank_values=True))
