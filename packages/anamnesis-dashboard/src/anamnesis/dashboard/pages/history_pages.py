"""A note's past: ``/notes/<id>/history`` (its versions and a diff between any two),
``/notes/<id>/versions/<commit>`` (the note as that commit left it, whole) and
``/notes/<id>/versions/<commit>/restore`` (GET: what restoring would change, to confirm;
POST: restore it).

A restore is an edit like any other: the old version's text goes through the edit page's
save (:func:`~anamnesis.dashboard.views.note_source.save_source`: the file-changed check,
validation, masking, a new ``updated_at``; not marked reviewed: the version comes back
as it was), so it is a new version on top of the history,
never a rewrite of it, and it is not committed until the next sync. A version whose
content (all but ``updated_at``) is an older version's says so in the history ("restores
abc1234"), before and after the sync commits it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from anamnesis.dashboard.context import Dashboard
from anamnesis.dashboard.markup.diffing import diff_lines
from anamnesis.dashboard.pages.note_pages import _not_found, _note_id  # one rule for both pages
from anamnesis.dashboard.pages.responses import dashboard_of, page, problem
from anamnesis.dashboard.views.history_cache import HistoryCache, NoteVersion
from anamnesis.dashboard.views.note_source import NoteSource, read_source, save_source
from anamnesis.store import (
    Memory,
    MemoryStore,
    StoreError,
    UnsafeFile,
    parse_note,
    serialize_note,
)
from anamnesis.sync import SyncError

WORKING = "working"  # the file now, when it differs from the last commit
# How many of a note's newest versions are compared to find restores (each a blob read,
# the first time: their keys are kept, VERSION_KEYS_KEPT of them, 64 bytes each).
RESTORE_LOOKBACK = 50
VERSION_KEYS_KEPT = 20_000
_SAME_TIME = "1970-01-01T00:00:00Z"  # every version's updated_at, for comparing content


@dataclass(frozen=True, slots=True)
class Versions:
    """A note's versions (newest first); its file now (None: not in the store), and as
    ``working`` when that is not the last commit's; which version each one restores (the
    commit of the older version it equals)."""

    note_id: str
    versions: list[NoteVersion]
    current: NoteSource | None
    working: NoteSource | None
    restores: dict[str, str]

    @property
    def choices(self) -> list[str]:
        return [*([WORKING] if self.working else []), *(v.commit for v in self.versions)]


async def note_history(request: Request) -> HTMLResponse:
    """The note's versions from the git history (through the derived cache), the working
    file when it differs from the last commit, and a diff between any two."""
    found = _note_versions(request)
    if isinstance(found, HTMLResponse):
        return found
    dashboard, known = found
    choices = known.choices
    new = request.query_params.get("b") or choices[0]
    old = request.query_params.get("a") or (choices[1] if len(choices) > 1 else choices[0])
    if new not in choices or old not in choices:
        return problem(request, 400, "No such version", "pick versions from this note's list")
    return page(
        request,
        "history.html",
        note_id=known.note_id,
        versions=known.versions,
        has_working=known.working is not None,
        restores=known.restores,
        restored=request.query_params.get("restored", ""),
        a=old,
        b=new,
        diff=diff_lines(
            _text_of(dashboard, known, old), _text_of(dashboard, known, new), old[:7], new[:7]
        ),
    )


async def show_version(request: Request) -> HTMLResponse:
    """The note as one commit left it: rendered like the note page, with what restoring it
    would take."""
    found = _version_of(request)
    if isinstance(found, HTMLResponse):
        return found
    dashboard, known, version = found
    text = "" if version.blob is None else dashboard.history.text(version.blob)
    note = None if version.blob is None else _parsed(text, version.path)
    newest = known.choices[0]
    return page(
        request,
        "version.html",
        note_id=known.note_id,
        version=version,
        note=note,
        text=text,
        restores=known.restores.get(version.commit, ""),
        is_current=newest == version.commit,
        can_restore=_can_restore(known, version, text),
        in_store=known.current is not None,
        compare=f"/notes/{known.note_id}/history?a={version.commit}&b={newest}",
    )


async def restore_version(request: Request) -> Response:
    """GET: what restoring the version would change in the file now, and the button that
    does it. POST: save the version's text as the note (the edit page's save), then show
    the history, the restore at its top."""
    found = _version_of(request)
    if isinstance(found, HTMLResponse):
        return found
    dashboard, known, version = found
    text = "" if version.blob is None else dashboard.history.text(version.blob)
    current = known.current
    if current is None or not _can_restore(known, version, text):
        return problem(
            request, 409, "This version cannot be restored",
            "Only a version that holds the note, and differs from it now, can be restored "
            "while the note is in the store.",
        )  # fmt: skip
    if request.method == "GET":
        return _confirmation(request, known, version, current, text)
    form = dict(parse_qsl((await request.body()).decode("utf-8", "replace"),
                          keep_blank_values=True))  # fmt: skip
    async with dashboard.save_lock:
        try:
            outcome = save_source(
                dashboard.store, known.note_id, text, form.get("digest", ""), review=False
            )
        except (StoreError, UnsafeFile) as exc:
            return problem(request, 409, "The note's file cannot be read", str(exc))
    if outcome.conflict is not None:
        return _confirmation(request, known, version, outcome.conflict, text, status=409)
    if outcome.problem:
        return problem(request, 422, "This version is not a valid note today", outcome.problem)
    dashboard.catch_up_embedding()
    return RedirectResponse(
        f"/notes/{known.note_id}/history?restored={version.commit[:7]}", status_code=303
    )


def _confirmation(
    request: Request,
    known: Versions,
    version: NoteVersion,
    current: NoteSource,
    text: str,
    status: int = 200,
) -> HTMLResponse:
    return page(
        request,
        "restore.html",
        status,
        note_id=known.note_id,
        version=version,
        digest=current.digest,
        changed_meanwhile=status == 409,
        diff=diff_lines(current.text, text, "now", version.commit[:7]),
    )


def _version_of(request: Request) -> tuple[Dashboard, Versions, NoteVersion] | HTMLResponse:
    """The dashboard, the note's versions and the one the address names, or the page
    saying there is no such note or version."""
    found = _note_versions(request)
    if isinstance(found, HTMLResponse):
        return found
    dashboard, known = found
    commit = str(request.path_params["commit"]).lower()
    version = next((v for v in known.versions if v.commit == commit), None)
    if version is None:
        return problem(
            request, 404, "No such version",
            f"{commit!r} is not a commit in the history of {known.note_id}: pick one from its "
            "history.",
        )  # fmt: skip
    return dashboard, known, version


def _note_versions(request: Request) -> tuple[Dashboard, Versions] | HTMLResponse:
    """The dashboard and the versions of the note the address names, or the page saying
    there is no such note."""
    dashboard = dashboard_of(request)
    note_id = _note_id(request)
    if note_id is None:
        return _not_found(request, str(request.path_params["note_id"]))
    known = _versions(dashboard, note_id)
    if known is None:
        return _not_found(request, note_id)
    return dashboard, known


def _versions(dashboard: Dashboard, note_id: str) -> Versions | None:
    """The note's versions, or None when it has none and no file either."""
    dashboard.history.refresh()
    versions = dashboard.history.versions(note_id)
    current = _current_file(dashboard.store, note_id)
    working = current
    if current is not None and versions and versions[0].blob == _blob_id(current.text):
        working = None  # the file is the last commit's
    if not versions and working is None:
        return None
    known = Versions(note_id, versions, current, working, {})
    known.restores.update(_restores(dashboard, known))
    return known


def _restores(dashboard: Dashboard, known: Versions) -> dict[str, str]:
    """Each version (``working`` included) whose content is that of an older version
    other than the one just before it: the commit it restores. Content is compared with
    ``updated_at`` set aside (a restore is saved with a new one)."""
    keys: list[tuple[str, str | None]] = []
    if known.working is not None:
        keys.append((WORKING, _content_key(known.working.text, "")))
    for version in known.versions[:RESTORE_LOOKBACK]:
        key = None if version.blob is None else _version_key(dashboard.history, version)
        keys.append((version.commit, key))
    found: dict[str, str] = {}
    for n, (name, key) in enumerate(keys):
        if key is None:
            continue
        for older, older_key in keys[n + 2 :]:
            if older_key == key:
                found[name] = older
                break
    return found


@lru_cache(maxsize=VERSION_KEYS_KEPT)
def _version_key(history: HistoryCache, version: NoteVersion) -> str | None:
    """A committed version's content key, kept: a blob never changes, and reading one
    opens the repository (a millisecond each, fifty of them per page otherwise)."""
    assert version.blob is not None
    try:
        text = history.text(version.blob)
    except SyncError:
        return None
    return _content_key(text, version.path)


def _content_key(text: str, path: str) -> str:
    """A digest of the version's content with ``updated_at`` set aside."""
    note = _parsed(text, path)
    normal = text
    if note is not None:
        try:
            normal = serialize_note(note.replace(updated_at=_SAME_TIME))
        except (StoreError, ValueError):
            normal = text
    return hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()


def _parsed(text: str, path: str) -> Memory | None:
    """The version as a note, or None when it is not a valid one (shown as its source)."""
    try:
        return parse_note(text, path or "<version>")
    except (StoreError, ValueError):
        return None


def _can_restore(known: Versions, version: NoteVersion, text: str) -> bool:
    """A version can be restored while the note is in the store, when the version holds
    the note (its commit did not delete it) and is not what the file is now."""
    return version.blob is not None and known.current is not None and known.current.text != text


def _text_of(dashboard: Dashboard, known: Versions, choice: str) -> str:
    if choice == WORKING and known.working is not None:
        return known.working.text
    version = next(v for v in known.versions if v.commit == choice)
    return "" if version.blob is None else dashboard.history.text(version.blob)


def _current_file(store: MemoryStore, note_id: str) -> NoteSource | None:
    try:
        return read_source(store, note_id)
    except (StoreError, UnsafeFile):
        return None


def _blob_id(text: str) -> str:
    """The git blob id of ``text`` (how the history names file contents)."""
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
