"""Moving a note to another remote from its page: ``POST /notes/<id>/share`` (the CLI's
``anamnesis share ID --to NAME``, through the same ``anamnesis.ops.share``).

The guard has checked the POST's session, Host, Origin and CSRF token before this runs.
The move is ops': the note is re-pinned, and the remote it leaves gets a tombstone commit;
the next sync sends both. The note's id, in the address, is checked before anything else
and only ever handed to the store.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from anamnesis.dashboard.pages.edit_pages import _form  # the guard has read and checked it
from anamnesis.dashboard.pages.note_pages import _not_found, _note_id, _unreadable
from anamnesis.dashboard.pages.responses import dashboard_of, problem
from anamnesis.ops import RemoteConfigError, share
from anamnesis.store import NoteNotFound, StoreError


async def share_note(request: Request) -> Response:
    """Move the note to the remote the form names; back to its page, saying so."""
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    to = (await _form(request)).get("to", "").strip()
    async with dashboard.save_lock:  # one write at a time, as the edit's save
        try:
            move = await asyncio.to_thread(share, dashboard.home, dashboard.store, note_id, to)
        except NoteNotFound:
            return _not_found(request, note_id)
        except RemoteConfigError as exc:  # no such remote, a machine-local note
            return problem(request, 400, "The note was not moved", str(exc))
        except StoreError as exc:
            return _unreadable(request, exc)
    done = "moved" if move.moved else "there"
    return RedirectResponse(f"/notes/{note_id}?shared={done}", status_code=303)
