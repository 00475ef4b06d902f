"""Turning a template into a response, with what every page shows (the CSRF token for the
sync button, this machine's id)."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from anamnesis.dashboard.context import Dashboard
from anamnesis.dashboard.markup.rendering import render


def dashboard_of(request: Request) -> Dashboard:
    dashboard: Dashboard = request.app.state.dashboard
    return dashboard


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    dashboard = dashboard_of(request)
    html = render(
        template,
        {
            "csrf": dashboard.csrf,
            "machine_id": dashboard.machine_id,
            "path": request.url.path,
            **context,
        },
    )
    return HTMLResponse(html, status_code=status)


def problem(request: Request, status: int, title: str, detail: str) -> HTMLResponse:
    """An error page a person can act on (what went wrong, what to do)."""
    return page(request, "problem.html", status, title=title, detail=detail)
