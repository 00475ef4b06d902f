"""The sync button: one `anamnesis sync` run, its result shown where the button is.

Saving an edit never commits; this is the explicit step that does (commit, pull, push,
reindex what came in), through the same command and cycle as a terminal's."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import HTMLResponse

from anamnesis.dashboard.cli_runner import SYNC_TIMEOUT_S, run_cli
from anamnesis.dashboard.responses import dashboard_of, page


async def sync_now(request: Request) -> HTMLResponse:
    dashboard = dashboard_of(request)
    if dashboard.sync_lock.locked():
        return page(request, "sync_result.html", 409, ok=False, data=None,
                    error="a sync started from this page is still running")  # fmt: skip
    async with dashboard.sync_lock:
        answer = await run_cli(dashboard.cli, ["sync"], dashboard.home, SYNC_TIMEOUT_S)
    ok = answer.code == 0
    # A sync pulls notes in: the history cache is refreshed on its next use, and the
    # store's own index was updated by the command (it reindexes what changed).
    status = 200 if ok else 502
    full = request.headers.get("hx-request") != "true"  # a form post without htmx
    template = "sync_page.html" if full else "sync_result.html"
    return page(request, template, status, ok=ok, data=answer.data, error=answer.error)
