"""A session's note before the store has it: what the capture hook reads from the
transcript and summarizes, without the store (its import and its locks are the background
worker's: :mod:`.capture_queue`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from anamnesis.hooks.summarize import HeuristicSummarizer, Summarizer, Summary, is_trivial
from anamnesis.hooks.transcript import ParsedSession, parse_transcript
from anamnesis.ops import resolve_project_key
from anamnesis.store import NoteLimits, utc_now

SOURCES = ("session-end", "precompact")
# The agent whose session a capture is when the hook is not told (``--agent``): Claude Code,
# whose hook commands carry no flag. A name of the hooks' table of agents.
DEFAULT_AGENT = "claude-code"


@dataclass(frozen=True, slots=True)
class PendingCapture:
    """A session's note as the transcript gave it: what the capture hook queues
    (:mod:`.capture_queue`) and the background worker files (:func:`.capture.file_capture`).

    ``captured_at`` is when the hook ran: the note's ``updated_at`` whenever it is filed.
    ``agent``: the coding agent whose session it was, the note's ``prov_agent``.
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
    # The transcript's lines left out, in words, for the hook's log (not queued).
    skipped_lines: str = ""
    agent: str = DEFAULT_AGENT


@dataclass(frozen=True, slots=True)
class Skipped:
    """Why a session gets no note (a trivial one)."""

    reason: str
    truncated: bool = False
    skipped_lines: str = ""


def prepare_capture(
    transcript: str | Path,
    *,
    source: str = "session-end",
    session_id: str | None = None,
    cwd: str | None = None,
    summarizer: Summarizer | None = None,
    reader: Callable[[str | Path], ParsedSession] | None = None,
    agent: str = DEFAULT_AGENT,
) -> PendingCapture | Skipped:
    """Read and summarize the transcript (with the agent's ``reader``: Claude Code's
    unless given): the session's note to file, or why there is none. ``agent``: whose
    session it is (the note's ``prov_agent``). Raises
    :class:`~.transcript.TranscriptUnreadable`."""
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    parsed = (reader or parse_transcript)(transcript)
    skipped_lines = parsed.skipped_lines()
    if is_trivial(parsed):
        reason = "trivial session: no files touched and no real ask"
        return Skipped(reason, parsed.truncated, skipped_lines)
    summary = (summarizer or HeuristicSummarizer()).summarize(parsed)
    if summary is None:
        return Skipped("the summarizer chose to skip this session", parsed.truncated, skipped_lines)
    # Cut, not masked: the queue entry stays bounded and the hook does not load the
    # redaction rules; the worker masks and cuts again when it files the note.
    summary = fit_summary(summary, masked=False)
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
        skipped_lines=skipped_lines,
        agent=agent,
    )


def fit_summary(summary: Summary, *, masked: bool = True) -> Summary:
    """``summary`` cut to what the store takes (:class:`~anamnesis.store.NoteLimits`): a
    session that was huge (a pasted log, hundreds of long paths) still gets its note, with
    a line saying what was cut, rather than one the store refuses and the session lost.

    The body is masked first (unless ``masked`` is False), as the store will mask it: a
    masked secret can be longer than the secret, and the limit is on what is stored."""
    title = summary.title[: NoteLimits.TITLE_CHARS]
    body = summary.body
    if masked:
        # The secret rules (~28 ms to compile): not for the capture hook, whose summary
        # the store masks when the worker files it.
        from anamnesis.store import redact_secrets

        body = redact_secrets(body)
    size = len(body.encode("utf-8"))
    if size > NoteLimits.BODY_BYTES:
        marker = (
            f"\n\n[... cut here: this session's summary was {size:,} bytes, over the "
            f"{NoteLimits.BODY_BYTES:,} bytes a note may hold]"
        )
        room = NoteLimits.BODY_BYTES - len(marker.encode("utf-8"))
        body = body.encode("utf-8")[:room].decode("utf-8", "ignore") + marker
    return replace(
        summary, title=title, body=body, model=summary.model[: NoteLimits.PROVENANCE_CHARS]
    )
