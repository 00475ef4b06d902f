"""What each tool does, as plain functions over an explicit store and sync backend.

The MCP wrappers in :mod:`anamnesis.mcp.server` only adapt these to the protocol, so the
logic is tested here without any transport. The arguments are checked once, at the MCP
boundary (:func:`~anamnesis.mcp.arguments.check_call`, which the server runs on every call):
these functions take them as it leaves them. The store checks every note it writes, whoever
calls: that is the one rule for what a note may hold.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from anamnesis.mcp.arguments import InvalidArgument
from anamnesis.ops import sync_with
from anamnesis.store import (
    KEYWORD_MODE,
    SEARCH_MODES,
    Memory,
    MemoryStore,
    NoteNotFound,
    count_secrets,
    every_note,
    is_due,
    is_expired,
    resolve_machine_id,
)
from anamnesis.sync import redact_url

if TYPE_CHECKING:
    from collections.abc import Iterable

    from anamnesis.sync import SyncBackend

Note = dict[str, Any]


def memory_dict(mem: Memory, *, include_body: bool, as_of: str | None = None) -> Note:
    """A note as the tools return it: metadata, plus the body when asked, and whether it
    is ``expired`` (past its valid_until) and ``due`` for review, now or ``as_of`` then."""
    return {
        **mem.to_dict(include_body=include_body),
        "expired": is_expired(mem, as_of=as_of),
        "due": is_due(mem, as_of=as_of),
    }


class SearchHits(list[Note]):
    """The notes a search found, best first, and how it ran.

    A list, so a caller that only wants the notes uses it as one; ``mode`` is the mode that
    ran and ``notice``, when vectors were asked for but could not run, says the search used
    keywords only (None otherwise): the MCP tool passes both on to the model.
    """

    def __init__(self, notes: list[Note], mode: str, notice: str | None) -> None:
        super().__init__(notes)
        self.mode = mode
        self.notice = notice


def search_memories(
    store: MemoryStore,
    *,
    query: str,
    project: str | None = None,
    type: str | None = None,
    scope: str | None = None,
    k: int = 8,
    mode: str | None = None,
    include_superseded: bool = False,
    agent: str | None = None,
    include_expired: bool = False,
    as_of: str | None = None,
) -> SearchHits:
    """The best ``k`` notes for ``query``, with bodies, each one's ``score`` (higher is
    better, within this search) and ``superseded_by`` (the ids of the notes replacing it;
    empty for a current note). Superseded notes are hidden unless ``include_superseded``,
    which ranks them like any other; notes past their valid_until unless
    ``include_expired`` (each says ``expired``). ``as_of`` (a checked date or timestamp):
    the memory as it stood then. A query that shares nothing with any note finds nothing.

    ``mode``: keyword (BM25), vector or hybrid (both, fused); None means the store's
    default (hybrid where vectors run, else keyword). The result also says which mode ran
    and whether the model should be told the search fell back to keywords (:class:`SearchHits`).
    """
    found = store.search_scored(
        query,
        project=project,
        type=type,
        scope=scope,
        k=k,
        mode=mode,
        include_superseded=include_superseded,
        agent=agent,
        include_expired=include_expired,
        as_of=as_of or None,
    )
    notes = [
        {
            **memory_dict(hit.note, include_body=True, as_of=as_of or None),
            "score": hit.score,
            "superseded_by": list(hit.superseded_by),
        }
        for hit in found.hits
    ]
    if found.mode == found.asked:
        return SearchHits(notes, found.mode, None)
    status = {"available": False, "reason": found.fallback}
    return SearchHits(notes, found.mode, keyword_fallback_notice(found.asked, status))


# A fallback reason can quote a library's error at length; the model needs the gist.
MAX_REASON_CHARS = 300


def keyword_fallback_notice(asked: str, status: dict[str, Any]) -> str | None:
    """What to tell the model when a search asked for ``asked`` but vectors are unavailable
    (``status`` as from ``store.embedding_status()``); None when the search ran as asked."""
    if not SEARCH_MODES[asked].needs_vectors or status.get("available"):
        return None
    reason = " ".join(str(status.get("reason") or "vector search is unavailable").split())
    if len(reason) > MAX_REASON_CHARS:
        reason = reason[: MAX_REASON_CHARS - 3] + "..."
    return (
        f"searched by keywords only: {reason}. Notes that say the same thing in other words "
        "may be missed: search again with the exact words a note would use (names, error "
        "text). `anamnesis doctor` tells the user how to enable vector search."
    )


def list_memories(
    store: MemoryStore,
    *,
    project: str | None = None,
    type: str | None = None,
    scope: str | None = None,
    agent: str | None = None,
) -> list[Note]:
    """Every matching note, newest first, without bodies (superseded notes included);
    ``agent``: only the notes that coding agent wrote."""
    notes = store.list(**_listing_filters(project, type, scope, agent), include_body=False)
    return [memory_dict(mem, include_body=False) for mem in notes]


def newest_that_fit(
    store: MemoryStore,
    max_chars: int,
    *,
    project: str | None = None,
    type: str | None = None,
    scope: str | None = None,
    agent: str | None = None,
) -> tuple[list[Note], int]:
    """The newest matching notes (as :func:`list_memories` gives them) whose compact JSON
    list fits in ``max_chars``, and how many notes match in all.

    The notes are read a page at a time and reading stops once the listing is full: a
    listing shows a hundred-odd notes, and reading a 100,000-note store whole for them
    took 2 s and 200 MB of the server's memory.
    """
    filters = _listing_filters(project, type, scope, agent)
    notes = every_note(store, include_body=False, page=_LIST_PAGE, **filters)
    shown = fit_listing((memory_dict(mem, include_body=False) for mem in notes), max_chars)
    return shown, store.count(**filters)


def _listing_filters(
    project: str | None, type: str | None, scope: str | None, agent: str | None
) -> dict[str, Any]:
    return {"project": project, "type": type, "scope": scope, "agent": agent}


# Notes a page while a listing fills: about what fits in Claude Code's 50,000 characters.
_LIST_PAGE = 200


def fit_listing(notes: Iterable[Note], max_chars: int) -> list[Note]:
    """The leading notes whose compact JSON list (as the tools send it) fits in ``max_chars``
    (no note past the first that does not fit is taken from ``notes``).

    Claude Code moves a tool result over 50,000 characters out of the conversation into a
    file; a listing cut here stays readable in place.
    """
    shown: list[Note] = []
    size = len("[]")
    for note in notes:
        size += len(json.dumps(note, ensure_ascii=False)) + (len(", ") if shown else 0)
        if size > max_chars:
            break
        shown.append(note)
    return shown


def status_report(
    store: MemoryStore, backend: SyncBackend, *, machine_id: str | None = None
) -> dict[str, Any]:
    """Index counts, notes that could not be read, vector search, and the sync state (no
    network). ``machine_id`` is the one notes are written with (default: the configured)."""
    stats = store.stats()
    state = backend.state()
    return {
        "root": str(store.root),
        "db_path": str(store.db_path),
        "machine_id": machine_id or resolve_machine_id(store.root),
        "total": stats.total,
        "by_type": stats.by_type,
        "by_project": stats.by_project,
        "by_scope": stats.by_scope,
        "superseded": stats.superseded,
        "problems": [{"path": p.path, "reason": p.reason} for p in store.problems()],
        "vectors": vectors_report(store),
        "sync": {
            "initialized": state.initialized,
            "remote": redact_url(state.remote) if state.remote else None,
            "head": state.head,
            "dirty": state.dirty,
            "detail": state.detail,
            "ahead": state.ahead,
            "behind": state.behind,
            "conflicts": list(state.conflicts),
        },
    }


def vectors_report(store: MemoryStore) -> dict[str, Any]:
    """Whether vector search runs here and the mode a search without ``mode`` uses; the model
    and how many notes are (not yet) embedded, or why vectors cannot run and the fix.

    Never loads the embedding model: the store only makes the embedder object, whose model
    id comes from the configuration and the model files' sizes.
    """
    status = store.embedding_status()
    if not status["available"]:
        return {
            "available": False,
            "default_mode": KEYWORD_MODE,  # what runs, whatever was configured
            "reason": status.get("reason") or "",
            "fix": status.get("fix") or "",
        }
    return {
        "available": True,
        # The configured mode wins (ANAMNESIS_SEARCH_MODE, config.json search_mode).
        "default_mode": store.default_search_mode(),
        "model": status["model"],
        "embedded": status["embedded"],
        "pending": status["pending"],
    }


def write_memory(
    store: MemoryStore,
    *,
    type: str,
    title: str,
    body: str,
    project: str = "global",
    tags: list[str] | None = None,
    machine_id: str = "unknown",
    scope: str = "portable",
    supersedes: list[str] | None = None,
    agent: str = "",
    valid_until: str = "",
    review_after: str = "",
) -> Note:
    """Create one note (fresh id, stamped now); return it with its body. ``agent``: the
    coding agent the client is (the note's ``prov_agent``; "" for none).

    The store masks secrets in everything it writes; ``redacted`` in the result counts the
    secrets masked in the title, body, project key and tags. ``supersedes``: the ids of the
    notes it replaces (each must be a note of this store: an id the model made up would
    hide nothing and say something false), which searches then hide. ``valid_until`` /
    ``review_after``: checked dates ("" for none; :func:`~.arguments.check_date`).
    """
    tags = tags or []
    for old in supersedes or ():
        try:
            store.get(old)
        except NoteNotFound:
            raise InvalidArgument(
                "supersedes",
                f"no note has the id {old}; pass ids that memory_search returned",
            ) from None
    # The store masks secrets on every write (a note may sync to other machines, and a
    # machine-local note's scope can change later); counting the same texts here tells the
    # model how much of what it sent never reached the note.
    masked = sum(count_secrets(text) for text in (title, body, project, *tags))
    mem = store.write(
        type=type,
        title=title,
        body=body,
        project=project,
        tags=tags,
        machine_id=machine_id,
        scope=scope,
        supersedes=supersedes,
        prov_agent=agent,
        valid_until=valid_until,
        review_after=review_after,
    )
    out = memory_dict(mem, include_body=True)
    out["redacted"] = masked
    return out


def sync_memory(store: MemoryStore, backend: SyncBackend) -> dict[str, Any]:
    """One sync cycle (``anamnesis.ops.sync_with``: outgoing secrets masked first, then the
    sync, then the files it changed reindexed so pulled notes are searchable), as
    ``SyncReport.as_dict`` reports it: ``indexed`` counts pulled notes now in the index,
    ``removed`` notes deleted on another machine and dropped from it, ``masked`` the
    outgoing notes whose secrets were masked (and committed so) before anything was pushed.
    """
    return sync_with(store, backend, machine_id=resolve_machine_id(store.root)).as_dict()
