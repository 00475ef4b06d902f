"""SessionEnd / PreCompact: one episodic note per session and source, written fast.

The note's id is derived from the session id and the source, so capturing the same
session again (PreCompact fires repeatedly, SessionEnd after it) updates that one note.
Everything that leaves this machine is redacted first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from anamnesis.hooks.project import resolve_project_key
from anamnesis.hooks.summarize import HeuristicSummarizer, Summarizer, is_trivial
from anamnesis.hooks.transcript import parse_transcript
from anamnesis.store import Memory, MemoryStore, NoteNotFound, derived_id, redact_secrets
from anamnesis.store.timestamps import utc_now

SOURCES = ("session-end", "precompact")


@dataclass(frozen=True, slots=True)
class CaptureResult:
    """The note written (or updated), or why nothing was written."""

    note: Memory | None
    skipped: str | None = None
    unchanged: bool = False


def session_note_id(session_id: str, source: str, started_at: str = "") -> str:
    """The id of a session's note for a source: stable across re-captures."""
    return derived_id(f"anamnesis-session:{session_id}:{source}", time_ms=_epoch_ms(started_at))


def capture_session(
    store: MemoryStore,
    transcript: str | Path,
    *,
    machine_id: str,
    source: str = "session-end",
    session_id: str | None = None,
    cwd: str | None = None,
    summarizer: Summarizer | None = None,
) -> CaptureResult:
    """Turn the transcript into this session's episodic note (or skip a trivial session)."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    parsed = parse_transcript(transcript)
    if is_trivial(parsed):
        return CaptureResult(None, skipped="trivial session: no files touched and no real ask")
    summary = (summarizer or HeuristicSummarizer()).summarize(parsed)
    if summary is None:
        return CaptureResult(None, skipped="the summarizer chose to skip this session")
    sid = session_id or parsed.session_id or Path(transcript).stem
    project = resolve_project_key(cwd or parsed.cwd or str(Path.cwd()))
    note_id = session_note_id(sid, source, parsed.started_at)
    now = utc_now()
    fresh = Memory(
        id=note_id,
        type="episodic",
        title=redact_secrets(summary.title),
        body=redact_secrets(summary.body),
        project=project,
        machine_id=machine_id,
        tags=["session", source],
        created_at=now,
        updated_at=now,
        prov_source="session-end",
        prov_model=summary.model,
        prov_session=sid,
    )
    try:
        existing = store.get(note_id)
    except NoteNotFound:
        existing = None
    if existing is not None:
        if _same_content(existing, fresh):
            return CaptureResult(existing, unchanged=True)
        fresh = fresh.replace(created_at=existing.created_at or now)
    return CaptureResult(store.put(fresh))


def _same_content(a: Memory, b: Memory) -> bool:
    keys = ("title", "body", "project", "tags", "prov_model", "prov_session", "scope", "type")
    return all(getattr(a, key) == getattr(b, key) for key in keys)


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
