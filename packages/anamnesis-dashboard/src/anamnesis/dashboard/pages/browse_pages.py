"""The pages that look across notes: the list (``/``), search, the fleet, what was used
and the status."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from anamnesis.dashboard.markup.snippets import snippet
from anamnesis.dashboard.pages.responses import dashboard_of, page, problem
from anamnesis.dashboard.views.conflict_copies import open_pairs
from anamnesis.dashboard.views.fleet import summarize
from anamnesis.dashboard.views.fleet_remotes import (
    all_commits,
    note_route,
    remote_fleets,
    with_routed,
)
from anamnesis.dashboard.views.listing import BadFilter, ListQuery, list_page
from anamnesis.dashboard.views.query_numbers import query_number
from anamnesis.dashboard.views.status_line import status_line
from anamnesis.store import (
    NOTE_TYPES,
    SCOPES,
    SEARCH_MODES,
    StoreError,
    every_note,
    relative_scores,
    usage_report,
)
from anamnesis.sync import SyncError

DEFAULT_K = 8  # the CLI's `anamnesis search` default
MAX_K = 100
USAGE_DAYS = 30  # the CLI's `anamnesis stats` window
MAX_USAGE_DAYS = 3650
USAGE_LIMIT = 20
MAX_USAGE_LIMIT = 1000


async def notes_list(request: Request) -> HTMLResponse:
    dashboard = dashboard_of(request)
    try:
        query = ListQuery.parse(request.query_params)
        listed = list_page(dashboard.store, query)
    except (BadFilter, StoreError) as exc:
        return problem(request, 400, "That filter cannot match", str(exc))
    return page(
        request, "list.html", listed=listed, query=query, note_types=NOTE_TYPES, scopes=SCOPES
    )


async def search(request: Request) -> HTMLResponse:
    dashboard = dashboard_of(request)
    params = request.query_params
    text = params.get("q", "").strip()
    form = {key: params.get(key, "").strip() for key in ("project", "type", "scope", "mode")}
    include_superseded = params.get("superseded") == "1"
    include_expired = params.get("expired") == "1"
    k = query_number(params, "k", DEFAULT_K, low=1, high=MAX_K)
    context: dict[str, Any] = {
        "q": text, "form": form, "k": k, "superseded": include_superseded,
        "expired": include_expired,
        "note_types": NOTE_TYPES, "scopes": SCOPES, "modes": SEARCH_MODES, "result": None,
        "snippets": {},
    }  # fmt: skip
    if form["type"] and form["type"] not in NOTE_TYPES:
        return problem(request, 400, "Bad search", f"type must be one of {', '.join(NOTE_TYPES)}")
    if form["scope"] and form["scope"] not in SCOPES:
        return problem(request, 400, "Bad search", f"scope must be one of {', '.join(SCOPES)}")
    if form["mode"] and form["mode"] not in SEARCH_MODES:
        modes = ", ".join(SEARCH_MODES)
        return problem(request, 400, "Bad search", f"mode must be one of {modes}")
    if text:
        try:
            context["result"] = dashboard.store.search_scored(
                text,
                project=form["project"] or None,
                type=form["type"] or None,
                scope=form["scope"] or None,
                k=k,
                mode=form["mode"] or None,
                include_superseded=include_superseded,
                include_expired=include_expired,
            )
        except StoreError as exc:
            return problem(request, 400, "Bad search", str(exc))
        hits = context["result"].hits
        context["snippets"] = {hit.note.id: snippet(hit.note.body, text) for hit in hits}
        # The score a person reads, as the CLI's table shows it: relative to the best hit.
        context["relative"] = dict(
            zip(
                (hit.note.id for hit in hits), relative_scores([h.score for h in hits]), strict=True
            )
        )
    return page(request, "search.html", **context)


async def fleet(request: Request) -> HTMLResponse:
    """Every machine this store has seen (its notes, its commits to any remote's history,
    where its notes here go), then each remote with the machines of its history."""
    dashboard = dashboard_of(request)
    history = dashboard.history
    history.refresh()
    remotes = remote_fleets(dashboard.home, dashboard.remote_history)
    notes = every_note(dashboard.store, include_body=False)
    commits = all_commits(history.machines(), remotes)
    route = note_route(dashboard.home)
    machines = summarize(notes, commits, dashboard.machine_id, history.note_writes(), route)
    remotes = with_routed(remotes, (m.routes for m in machines))
    return page(request, "fleet.html", machines=machines, remotes=remotes)


async def usage(request: Request) -> HTMLResponse:
    """What this machine's sessions used in the last ``?days=`` days (the store's usage
    report, as `anamnesis stats` shows it): the notes used most, the durable notes nothing
    used (suggestions for review: this page only links to them), how often prompt recall
    found something."""
    dashboard = dashboard_of(request)
    params = request.query_params
    days = query_number(params, "days", USAGE_DAYS, low=1, high=MAX_USAGE_DAYS)
    limit = query_number(params, "limit", USAGE_LIMIT, low=1, high=MAX_USAGE_LIMIT)
    report = usage_report(dashboard.store, days=days, limit=limit)
    return page(request, "usage.html", report=report, days=days, limit=limit)


async def status(request: Request) -> HTMLResponse:
    """The status panel's checks (ops' checks of the home, or the CLI's whole doctor when
    the CLI started the dashboard; kept a minute), the store's own counts and the notes
    kept both ways after a sync conflict. ``?panel=1`` answers the panel alone (a
    fragment); ``?line=1`` the list page's one-line summary of it."""
    dashboard = dashboard_of(request)
    params = request.query_params
    checked = await dashboard.doctor.checks(fresh=params.get("fresh") == "1")
    doctor_error = "" if checked.checks else (checked.error or "no check answered")
    stats = dashboard.store.stats()
    pairs = open_pairs(dashboard.store)
    if params.get("line") == "1":
        history = dashboard.history
        try:
            await asyncio.to_thread(history.refresh)  # its first build can take seconds
            own = history.machines().get(dashboard.machine_id)
        except SyncError:  # a damaged repository: the sync check says so on the status page
            own = None
        line = status_line(
            stats.total, remote=dashboard.home.remote is not None,
            last_sync=own[1] if own else None, checks=checked.checks,
            conflicts=len(pairs), unchecked=doctor_error,
        )  # fmt: skip
        return page(request, "status_line.html", line=line, now=time.time())
    template = "status_panel.html" if params.get("panel") == "1" else "status.html"
    return page(
        request,
        template,
        checks=checked.checks,
        doctor_error=doctor_error,
        stats=stats,
        problems=dashboard.store.problems(),
        home=str(dashboard.home.root),
        conflicts=pairs,
    )
