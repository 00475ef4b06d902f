"""SessionEnd / PreCompact: one episodic note per session.

The hook reads and summarizes the transcript (:mod:`.pending`) and queues the result; the
background worker files it here (:func:`file_capture`), where the store's locks are.

The note's id is derived from the session id, so capturing the same session again
(PreCompact fires repeatedly, SessionEnd after it) updates that one note with the newest
content. Notes captured before this rule (one per session and source) are found by their
old ids and updated in place. Everything that leaves this machine is redacted first.

A re-capture refreshes only what capture owns (title, body, provenance, its own two tags,
``updated_at``) and keeps what others added since: a ``reflected`` tag, a confidence, a
``supersedes`` link, a re-keyed project or scope, unknown frontmatter keys. A note whose
title or body a person edited (or whose type they changed) is theirs: capture never
overwrites it and writes the rest of the session to a follow-up note instead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from anamnesis.hooks.pending import (
    DEFAULT_AGENT,
    SOURCES,
    PendingCapture,
    Skipped,
    fit_summary,
    prepare_capture,
)
from anamnesis.hooks.summarize import Summarizer, Summary
from anamnesis.store import (
    CAPTURE_DIGEST_KEY,
    Memory,
    MemoryStore,
    NoteLimits,
    NoteNotFound,
    derived_id,
    is_capture_owned,
)

# The frontmatter key recording a digest of the title and body capture last wrote: a note
# that no longer matches it was edited by someone, and capture leaves it alone.
DIGEST_KEY = CAPTURE_DIGEST_KEY  # the name the tests and older code use
# How many follow-up notes one session and source may get (one per hand edit).
MAX_FOLLOW_UPS = 8


@dataclass(frozen=True, slots=True)
class CaptureResult:
    """The note written (or updated), or why nothing was written.

    ``kept_edits`` lists the ids of hand-edited notes of this session that were left as
    they are (the capture went to a follow-up note).
    """

    note: Memory | None
    skipped: str | None = None
    unchanged: bool = False
    kept_edits: tuple[str, ...] = ()
    # The transcript was longer than the reading cap: the note holds what its start said.
    truncated: bool = False
    # The transcript's lines left out, in words (ParsedSession.skipped_lines): "" for none.
    skipped_lines: str = ""


def session_note_id(session_id: str, started_at: str = "", follow_up: int = 0) -> str:
    """The id of a session's note: stable across re-captures, whatever the hook.

    ``follow_up`` > 0 names the notes that continue a capture after a hand edit.
    """
    key = f"anamnesis-session:{session_id}"
    if follow_up:
        key += f":{follow_up}"
    return derived_id(key, time_ms=_epoch_ms(started_at))


def legacy_note_ids(session_id: str, source: str, started_at: str = "") -> list[str]:
    """The ids the session's note had when each hook wrote its own (this source first)."""
    ordered = [source, *(other for other in SOURCES if other != source)]
    stamp = _epoch_ms(started_at)
    return [derived_id(f"anamnesis-session:{session_id}:{kind}", time_ms=stamp) for kind in ordered]


def capture_session(
    store: MemoryStore,
    transcript: str | Path,
    *,
    machine_id: str,
    source: str = "session-end",
    session_id: str | None = None,
    cwd: str | None = None,
    summarizer: Summarizer | None = None,
    agent: str = DEFAULT_AGENT,
) -> CaptureResult:
    """Turn the transcript into this session's episodic note (or skip a trivial session):
    :func:`.pending.prepare_capture`, then :func:`file_capture`, in one go. ``agent``: whose
    session it is (the note's ``prov_agent``)."""
    pending = prepare_capture(
        transcript,
        source=source,
        session_id=session_id,
        cwd=cwd,
        summarizer=summarizer,
        agent=agent,
    )
    if isinstance(pending, Skipped):
        return CaptureResult(
            None,
            skipped=pending.reason,
            truncated=pending.truncated,
            skipped_lines=pending.skipped_lines,
        )
    result = file_capture(store, pending, machine_id=machine_id)
    return replace(result, skipped_lines=pending.skipped_lines)


def file_capture(store: MemoryStore, pending: PendingCapture, *, machine_id: str) -> CaptureResult:
    """Write (or update) the session's note from a prepared capture. Filing the same
    capture twice changes nothing the second time (the note's id comes from the session)."""
    result = _file(store, pending, machine_id)
    return replace(result, truncated=True) if pending.truncated else result


def _file(store: MemoryStore, pending: PendingCapture, machine_id: str) -> CaptureResult:
    sid, source, now = pending.session_id, pending.source, pending.captured_at
    # Masked, then cut to the store's limits once more: the hook cut what it queued, but a
    # masked secret can be longer than the secret.
    summary = fit_summary(Summary(title=pending.title, body=pending.body, model=pending.model))
    kept: list[str] = []
    for follow_up in range(MAX_FOLLOW_UPS + 1):
        note_id = session_note_id(sid, pending.started_at, follow_up)
        if follow_up == 0:
            legacy = legacy_note_ids(sid, source, pending.started_at)
            note_id = _existing_id(store, note_id, legacy)
        fresh = Memory(
            id=note_id,
            type="episodic",
            title=summary.title,
            body=summary.body,
            project=pending.project,
            machine_id=machine_id,
            tags=["session", source],
            created_at=now,
            updated_at=now,
            prov_source="session-end",
            prov_model=summary.model,
            prov_session=sid[: NoteLimits.PROVENANCE_CHARS],
            prov_agent=pending.agent,
        )
        # The store stamps the digest, and compares, over the note as it writes it (secrets
        # masked): a session that quoted a secret is still "unchanged" next time. It
        # validates and masks the note once, for the comparison and the write.
        try:
            existing = store.get(fresh.id)
        except NoteNotFound:
            return CaptureResult(store.put(fresh, capture_digest=True), kept_edits=tuple(kept))
        if edited_by_hand(existing):
            kept.append(existing.id)
            continue
        merged = refresh(existing, fresh)
        note, written = store.put_if_changed(merged, existing, capture_digest=True)
        return CaptureResult(note, unchanged=not written, kept_edits=tuple(kept))
    return CaptureResult(
        None,
        skipped=f"every note of this session was edited by hand ({', '.join(kept)}); kept them",
        kept_edits=tuple(kept),
    )


def _existing_id(store: MemoryStore, note_id: str, legacy: list[str]) -> str:
    """``note_id``, unless only a note under an older id scheme exists for this session:
    then that note's id, so it is updated rather than repeated."""
    for candidate in (note_id, *legacy):
        try:
            store.get(candidate)
        except NoteNotFound:
            continue
        return candidate
    return note_id


def refresh(existing: Memory, fresh: Memory) -> Memory:
    """``existing`` with what capture owns taken from ``fresh``, everything else kept.

    Capture owns the title, body, provenance (the agent's name too), origin machine, its own
    tags (``session`` and the source) and the content digest. Tags added since
    (``reflected``), confidence, supersedes, project (``anamnesis migrate`` re-keys it),
    scope, ``created_at`` and unknown frontmatter keys are someone else's decisions and stay.
    """
    own = fresh.tags
    # The source tags are capture's: the note says which hook captured it last.
    theirs = [tag for tag in existing.tags if tag not in own and tag not in SOURCES]
    return existing.replace(
        title=fresh.title,
        body=fresh.body,
        machine_id=fresh.machine_id,
        tags=[*own, *theirs],
        prov_source=fresh.prov_source,
        prov_model=fresh.prov_model,
        prov_session=fresh.prov_session,
        prov_agent=fresh.prov_agent,
        created_at=existing.created_at or fresh.created_at,
        updated_at=fresh.updated_at,
        extra={**existing.extra, **fresh.extra},
    )


def edited_by_hand(note: Memory) -> bool:
    """True when someone changed the note's title or body since capture wrote it, or made
    it a durable note (the store's :func:`is_capture_owned`, which the LLM session summary
    also keeps true when it rewrites the note)."""
    return not is_capture_owned(note)


def _epoch_ms(stamp: str) -> int:
    if not stamp:
        return 0
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(int(moment.timestamp() * 1000), 0)
