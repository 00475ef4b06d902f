"""The review page: ``/review`` (the contradiction candidates side by side and the notes
due for review, ``?project=``), and its three actions, each a POST that redirects back with
what it did: ``/review/keep`` (one note of a pair supersedes the other: never deleted),
``/review/both`` (both are right: the pair is never proposed again, on any machine once
synced) and ``/review/reviewed`` (a due note is still true; a next review date optional).
"Edit" is the note's own edit page, which comes back here after its save.

The guard has checked every POST's session, Host, Origin and CSRF token before a handler
runs. A form about notes that changed since the page was drawn (or were resolved meanwhile
in another tab, by the CLI or on another machine) writes nothing: the page comes back,
409, saying what happened, drawn as the store is now.

Only this page asks the store for its candidates: ``contradictions()`` compares the live
notes with each other (up to a second or two at thousands of notes), so the nav carries no
count, which every page would pay for (and a count kept from an earlier visit would be
wrong as soon as a hook or the CLI wrote a note). It runs in a worker thread over a store
of its own, so other pages are served meanwhile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from anamnesis.dashboard.context import Dashboard
from anamnesis.dashboard.pages.edit_pages import _form  # the guard has read and checked it
from anamnesis.dashboard.pages.note_pages import _titled
from anamnesis.dashboard.pages.responses import dashboard_of, page, problem
from anamnesis.dashboard.views.review_items import (
    BadForm,
    Review,
    StaleForm,
    due_as_shown,
    next_review,
    note_id_of,
    pair_as_shown,
    review_address,
    review_of,
    tomorrow,
)
from anamnesis.store import Memory, MemoryStore, NoteNotFound, StoreError

DONE_WORDS = ("kept", "both", "reviewed")  # what an action's redirect says it did
Resolve = Callable[[MemoryStore], str]  # an action's work: the address to go back to


@dataclass(frozen=True, slots=True)
class Flash:
    """What the last action did, read back from the redirect's address (ids only: titles
    come from the store, never from the address)."""

    done: str  # kept / both / reviewed / edited
    note: tuple[str, str]  # (id, title)
    other: tuple[str, str] | None  # the superseded note, or the other one both right
    in_pair: bool  # an edited note still in a pair after the re-check
    due: bool  # an edited note still due for review
    next_review: str  # a reviewed note's review_after now


async def review_page(request: Request) -> HTMLResponse:
    return await _drawn(request, request.query_params.get("project", "").strip())


async def keep(request: Request) -> Response:
    """Keep one note of a pair: the other is superseded by it (``MemoryStore.keep``)."""
    form = await _form(request)

    def resolve(store: MemoryStore) -> str:
        one, other = _pair(store, form)
        kept = note_id_of(form.get("keep", ""))
        if kept not in (one.id, other.id):
            raise BadForm("keep one of the pair's two notes")
        over = other.id if kept == one.id else one.id
        store.keep(kept, over)
        return review_address(form.get("project", ""), done="kept", note=kept, over=over)

    return await _act(request, form, resolve)


async def both_right(request: Request) -> Response:
    """Both notes are right: each names the other in ``compatible_with`` (synced), and the
    pair is never proposed again (``MemoryStore.mark_compatible``)."""
    form = await _form(request)

    def resolve(store: MemoryStore) -> str:
        one, other = _pair(store, form)
        store.mark_compatible(one.id, other.id)
        return review_address(form.get("project", ""), done="both", note=one.id, over=other.id)

    return await _act(request, form, resolve)


async def still_true(request: Request) -> Response:
    """A due note is still true: reviewed now, its next review moved to the date given
    (or left to the store when none is) (``MemoryStore.mark_reviewed``)."""
    form = await _form(request)

    def resolve(store: MemoryStore) -> str:
        note = due_as_shown(store, note_id_of(form.get("note", "")), form.get("seen", ""))
        store.mark_reviewed(note.id, review_after=next_review(form.get("next", "")))
        return review_address(form.get("project", ""), done="reviewed", note=note.id)

    return await _act(request, form, resolve)


def _pair(store: MemoryStore, form: dict[str, str]) -> tuple[Memory, Memory]:
    """The pair a form names (``a``, ``b``), each as the page showed it (``a_seen``,
    ``b_seen``: their stamps)."""
    first = (note_id_of(form.get("a", "")), form.get("a_seen", ""))
    second = (note_id_of(form.get("b", "")), form.get("b_seen", ""))
    return pair_as_shown(store, first, second)


async def _act(request: Request, form: dict[str, str], resolve: Resolve) -> Response:
    """Run one action with the saves' lock held (two tabs resolving the same pair are one
    after the other: the second finds it resolved); redirect to what ``resolve`` returns,
    or draw the page again saying why nothing was written."""
    dashboard = dashboard_of(request)
    project = form.get("project", "").strip()
    status, warning = 409, ""
    async with dashboard.save_lock:
        try:
            return RedirectResponse(resolve(dashboard.store), status_code=303)
        except BadForm as exc:
            status, warning = 400, f"Nothing was changed: {exc}."
        except StaleForm as exc:
            warning = str(exc)
        except StoreError as exc:  # a note's file unreadable, a write refused
            warning = f"Nothing was changed: {exc}"
    return await _drawn(request, project, status=status, warning=warning)


async def _drawn(
    request: Request, project: str, *, status: int = 200, warning: str = ""
) -> HTMLResponse:
    """The page as the store is now (the candidates found in a worker thread)."""
    dashboard = dashboard_of(request)
    try:
        review: Review = await asyncio.to_thread(_review_apart, dashboard, project)
    except StoreError as exc:  # the index busy or broken: say so, as the other pages do
        return problem(request, 503, "The review could not be read", str(exc))
    flash = None if warning else _flash(dashboard.store, request, review)
    return page(
        request, "review.html", status,
        review=review, flash=flash, warning=warning, tomorrow=tomorrow(),
        back=review_address(project),
    )  # fmt: skip


def _review_apart(dashboard: Dashboard, project: str) -> Review:
    """The review, read through a store of its own (as a sync is): the pages' store
    answers each call under one lock, and the candidates' seconds holding it would stall
    every other page meanwhile."""
    with dashboard.home.open_store() as store:
        return review_of(store, project)


def _flash(store: MemoryStore, request: Request, review: Review) -> Flash | None:
    params = request.query_params
    done = params.get("done", "")
    edited = params.get("edited", "")
    raw = edited if edited else params.get("note", "") if done in DONE_WORDS else ""
    try:
        note_id = note_id_of(raw)
    except BadForm:
        return None
    other = None
    if done in ("kept", "both") and not edited:
        try:
            other = _titled(store, [note_id_of(params.get("over", ""))])[0]
        except BadForm:
            other = None
    in_pair = note_id in review.paired
    try:
        next_at = store.get(note_id).review_after
    except (NoteNotFound, StoreError):
        next_at = ""
    if next_at[:10] < tomorrow():  # left where it was (past): the note is not due again
        next_at = ""
    return Flash("edited" if edited else done, _titled(store, [note_id])[0], other, in_pair,
                 note_id in review.due_ids, next_at)  # fmt: skip
