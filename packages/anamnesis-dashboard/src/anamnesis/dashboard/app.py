"""The ASGI application: routes (fixed: other tools link to them), static files, and the
guard in front of everything."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from anamnesis.dashboard.context import Dashboard
from anamnesis.dashboard.pages import (
    browse_pages,
    edit_pages,
    history_pages,
    note_pages,
    review_pages,
    share_action,
    sync_action,
)
from anamnesis.dashboard.pages.responses import problem
from anamnesis.dashboard.security import GuardMiddleware
from anamnesis.dashboard.views.query_numbers import BadQuery


def create_app(dashboard: Dashboard) -> Starlette:
    """The dashboard over ``dashboard``'s store; closing the app closes the store."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            dashboard.close()

    routes = [
        Route("/", browse_pages.notes_list),
        Route("/search", browse_pages.search),
        Route("/fleet", browse_pages.fleet),
        Route("/usage", browse_pages.usage),
        Route("/status", browse_pages.status),
        Route("/review", review_pages.review_page),
        Route("/review/keep", review_pages.keep, methods=["POST"]),
        Route("/review/both", review_pages.both_right, methods=["POST"]),
        Route("/review/reviewed", review_pages.still_true, methods=["POST"]),
        Route("/sync", sync_action.sync_now, methods=["POST"]),
        Route("/notes/{note_id}", note_pages.show_note, methods=["GET"]),
        Route("/notes/{note_id}", edit_pages.save_note, methods=["POST"]),  # the edit's save
        Route("/notes/{note_id}/edit", edit_pages.edit_note),
        Route("/notes/{note_id}/share", share_action.share_note, methods=["POST"]),
        Route("/notes/{note_id}/preview", edit_pages.preview, methods=["POST"]),
        Route("/notes/{note_id}/history", history_pages.note_history),
        Route("/notes/{note_id}/versions/{commit}", history_pages.show_version),
        Route(
            "/notes/{note_id}/versions/{commit}/restore",
            history_pages.restore_version,
            methods=["GET", "POST"],
        ),
        Mount("/static", StaticFiles(packages=[("anamnesis.dashboard", "static")]), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(GuardMiddleware, guard=dashboard.guard)],
        exception_handlers={404: _not_found, 405: _not_allowed, BadQuery: _bad_query},
        lifespan=lifespan,
    )
    app.state.dashboard = dashboard
    return app


async def _not_found(request: Request, exc: Exception) -> Response:
    return problem(request, 404, "Not found", "There is no page at this address.")


async def _not_allowed(request: Request, exc: Exception) -> Response:
    return problem(request, 405, "Not allowed", "This address does not take that method.")


async def _bad_query(request: Request, exc: Exception) -> Response:
    # Every page reads its query numbers through query_numbers: one answer for them all.
    return problem(request, 400, "Bad address", str(exc))
