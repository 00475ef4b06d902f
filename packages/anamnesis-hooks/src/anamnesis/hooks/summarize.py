"""From a parsed session to an episodic note, or to nothing when the session was trivial."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from anamnesis.hooks.transcript import ParsedSession

TITLE_MAX = 80
ASK_MAX = 600
OUTCOME_MAX = 800
FILES_MAX = 30
# An outcome shorter than this, with no files touched, says the session did nothing.
TRIVIAL_OUTCOME = 40

_SLASH_ONLY = re.compile(r"/\S+")


@dataclass(frozen=True, slots=True)
class Summary:
    """An episodic note's title and body, and the model that wrote it ("" for none)."""

    title: str
    body: str
    model: str = ""


class Summarizer(Protocol):
    """Turns a session into a summary, or None to skip it."""

    def summarize(self, session: ParsedSession) -> Summary | None: ...


def is_trivial(session: ParsedSession) -> bool:
    """True for sessions not worth a note: no files touched, and no real prompt (or only a
    slash command) with a short outcome."""
    if session.files_touched:
        return False
    prompt = session.first_prompt.strip()
    short = len(session.last_outcome.strip()) < TRIVIAL_OUTCOME
    if not prompt:
        return short
    return bool(_SLASH_ONLY.fullmatch(prompt)) and short


class HeuristicSummarizer:
    """Deterministic, offline: the ask, the branch, the files touched, the outcome."""

    def summarize(self, session: ParsedSession) -> Summary | None:
        ask = session.first_prompt.strip()
        title = cut_at_word(_first_line(ask), TITLE_MAX) if ask else "Session summary"
        parts = [f"**Ask:** {_clip(ask, ASK_MAX) or '(no prompt captured)'}"]
        if session.git_branch:
            parts.append(f"**Branch:** {session.git_branch}")
        if session.files_touched:
            files = session.files_touched
            lines = [f"- {name}" for name in files[:FILES_MAX]]
            if len(files) > FILES_MAX:
                lines.append(f"- ... and {len(files) - FILES_MAX} more")
            parts.append(f"**Files touched ({len(files)}):**\n" + "\n".join(lines))
        outcome = _clip(session.last_outcome, OUTCOME_MAX) or "(no assistant reply captured)"
        parts.append(f"**Outcome:** {outcome}")
        return Summary(title=title or "Session summary", body="\n\n".join(parts))


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def cut_at_word(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its longest start that ends at a
    word boundary, with an ellipsis (within the limit). A single word longer than the
    limit is cut inside, since there is no boundary to cut at."""
    text = text.strip()
    if len(text) <= limit:
        return text
    room = limit - 1  # for the ellipsis
    head = text[: room + 1]
    cut = head.rfind(" ")
    kept = head[:cut] if cut > 0 else text[:room]
    return kept.rstrip(" ,;:-") + "…"


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[:limit].rstrip() + " ..."
