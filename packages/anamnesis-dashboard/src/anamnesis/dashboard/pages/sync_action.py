"""The sync button: the one sync cycle (``anamnesis.ops.run_sync``: Claude Code's own memory
imported, the secrets of every outgoing note masked, commit, pull, push, what changed
reindexed), run in this process, its result shown where the button is.

Saving an edit never commits; this is the explicit step that does, through the same cycle
as `anamnesis sync` in a terminal. The cycle runs in a worker thread (a pull and its
reindex take seconds; the pages keep being served) over a store of its own: the pages'
store answers each call under one lock, and a reindex holding it would stall every page.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse

from anamnesis.dashboard.pages.responses import dashboard_of, page
from anamnesis.ops import Home, claude_home, run_sync
from anamnesis.store import StoreError
from anamnesis.sync import SyncError

CONFLICT = "conflict: resolve with `anamnesis sync --resolve keep-both` (or ours / theirs)"


@dataclass(frozen=True, slots=True)
class Synced:
    ok: bool
    data: dict[str, Any] | None  # the cycle's report (SyncReport.as_dict), when it ran
    error: str  # why it failed, when the report does not say


def sync_once(home: Home) -> Synced:
    """One cycle for ``home``, as `anamnesis sync` runs it; never raises. Another sync
    running (SyncBusy), a full disk (DiskFull) and any other sync or store error are said
    as the CLI says them; an unreachable remote is the report's ``remote_error``."""
    try:
        with home.open_store() as store:
            report = run_sync(home, store, claude_dir=claude_home())
    except (SyncError, StoreError) as exc:
        return Synced(False, None, str(exc))
    except Exception as exc:  # a bug: still an answer the page can show
        return Synced(False, None, f"unexpected error: {type(exc).__name__}: {exc}")
    data = report.as_dict()
    if report.result.conflicted or any(r["conflicted"] for r in data.get("remotes", [])):
        return Synced(False, data, CONFLICT)
    if report.remote_errors:  # the default remote's, then each named remote's
        return Synced(False, data, "; ".join(report.remote_errors))
    return Synced(True, data, "")


async def sync_now(request: Request) -> HTMLResponse:
    dashboard = dashboard_of(request)
    if dashboard.sync_lock.locked():
        return page(request, "sync_result.html", 409, ok=False, data=None,
                    error="a sync started from this page is still running")  # fmt: skip
    async with dashboard.sync_lock:
        synced = await asyncio.to_thread(sync_once, dashboard.home)
    if synced.data is not None:  # the notes it pulled get their vectors, as after `sync`
        dashboard.catch_up_embedding()
    # A sync pulls notes in: the history cache is refreshed on its next use, and the
    # pages' store catches up with the files and rows the cycle changed on its next read.
    status = 200 if synced.ok else 502
    full = request.headers.get("hx-request") != "true"  # a form post without htmx
    template = "sync_page.html" if full else "sync_result.html"
    return page(request, template, status, ok=synced.ok, data=synced.data, error=synced.error)
