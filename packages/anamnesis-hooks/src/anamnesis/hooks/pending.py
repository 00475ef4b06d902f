"""A session's note before the store has it: what the capture hook reads from the
transcript and summarizes, without the store (its import and its locks are the background
worker's: :mod:`.capture_queue`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from anamnesis.hooks.project import resolve_project_key
from anamnesis.hooks.summarize import HeuristicSummarizer, Summarizer, is_trivial
from anamnesis.hooks.transcript import parse_transcript
from anamnesis.store import utc_now

SOURCES = ("session-end", "precompact")


@dataclass(frozen=True, slots=True)
class PendingCapture:
    """A session's note as the transcript gave it: what the capture hook queues
    (:mod:`.capture_queue`) and the background worker files (:func:`.capture.file_capture`).

    ``captured_at`` is when the hook ran: the note's ``updated_at`` whenever it is filed.
    """

    session_id: str
    started_at: str
    source: str
    project: str
    title: str
    body: str
    model: str
    captured_at: str
    transcript: str
    truncated: bool = False


@dataclass(frozen=True, slots=True)
class Skipped:
    """Why a session gets no note (a trivial one)."""

    reason: str
    truncated: bool = False


def prepare_capture(
    transcript: str | Path,
    *,
    source: str = "session-end",
    session_id: str | None = None,
    cwd: str | None = None,
    summarizer: Summarizer | None = None,
) -> PendingCapture | Skipped:
    """Read and summarize the transcript: the session's note to file, or why there is
    none. Raises :class:`~.transcript.TranscriptUnreadable`."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    parsed = parse_transcript(transcript)
    if is_trivial(parsed):
        return Skipped("trivial session: no files touched and no real ask", parsed.truncated)
    summary = (summarizer or HeuristicSummarizer()).summarize(parsed)
    if summary is None:
        return Skipped("the summarizer chose to skip this session", parsed.truncated)
    return PendingCapture(
        session_id=session_id or parsed.session_id or Path(transcript).stem,
        started_at=parsed.started_at,
        source=source,
        project=resolve_project_key(cwd or parsed.cwd or str(Path.cwd())),
        title=summary.title,
        body=summary.body,
        model=summary.model,
        captured_at=utc_now(),
        transcript=str(transcript),
        truncated=parsed.truncated,
    )
