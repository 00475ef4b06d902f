"""Session summaries by the LLM: a detached step after capture rewrites a session's note.

Capture stays deterministic and inside its hook budget. When ``llm.summarize_sessions`` is
on and a provider is set, the capture hook starts ``python -m anamnesis.reflect.session_summary
<note id>`` detached; that process asks the provider for ``{"title": "...", "summary": "..."}``
and rewrites the episodic note under the same id (``updated_at`` and ``prov_model`` set, the
capture digest moved along so the next capture of the session still owns the note). Any
failure keeps the deterministic note and is logged in ``<home>/logs/reflect.log``; the
process always exits 0. It never runs inside a session reflection started: the hooks stand
aside there (``REFLECTION_ENV_GUARD``).
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from anamnesis.reflect.prompting import fit_to_budget
from anamnesis.reflect.providers.settings import load_settings, make_provider
from anamnesis.reflect.replies import InvalidReply, extract_object
from anamnesis.store import (
    Memory,
    MemoryStore,
    NoteNotFound,
    is_capture_owned,
    log_to_store,
    resolve_home,
    utc_now,
)

if TYPE_CHECKING:
    from anamnesis.reflect.providers.protocol import Provider
    from anamnesis.reflect.providers.settings import LlmSettings

log = logging.getLogger("anamnesis.reflect")

SYSTEM = (
    "You summarise one coding session for the developer's long-term memory. Reply with "
    'one JSON object only: {"title": "...", "summary": "..."}. The title is one line '
    "under 100 characters saying what was done. The summary is a few short paragraphs "
    "or bullet points: the goal, what was changed (files, commands), what was decided and "
    "why, and what is left to do. Never copy secrets or [REDACTED] markers."
)
REPLY_MAX_TOKENS = 1024
MAX_TITLE_CHARS = 200


def summarize_session(
    store: MemoryStore, note_id: str, provider: Provider, settings: LlmSettings
) -> Memory | None:
    """Rewrite the captured session note ``note_id`` with the provider's title and summary;
    None (nothing written) when the note is gone, not capture's any more (edited by hand,
    made durable), or the reply cannot be used (logged). Raises ProviderError."""
    try:
        note = store.get(note_id)
    except NoteNotFound:
        log.warning("summary of %s: the note is gone; nothing to summarise", note_id)
        return None
    if not is_capture_owned(note):
        log.warning("summary of %s: edited since capture; left as it is", note_id)
        return None
    window = fit_to_budget([f"# {note.title}\n\n{note.body}"], settings.max_input_tokens)
    reply = provider.complete(
        SYSTEM, window.text, max_tokens=REPLY_MAX_TOKENS, timeout_s=settings.timeout_s
    )
    try:
        title, summary = _checked(reply)
    except InvalidReply as exc:
        log.warning("summary of %s: %s; kept the captured note", note_id, exc.reason)
        return None
    current = store.get(note_id)
    if current != note:  # captured again (or edited) while the provider was thinking
        log.warning("summary of %s: the note changed meanwhile; left as it is", note_id)
        return None
    # The digest moves with the text (the store stamps it over the note as written, secrets
    # masked): the note stays capture's to rewrite at the next capture.
    rewritten = note.replace(
        title=title, body=summary, updated_at=utc_now(), prov_model=provider.model or provider.name
    )
    return store.put(rewritten, capture_digest=True)


def _checked(reply: str) -> tuple[str, str]:
    data = extract_object(reply)
    title, summary = data.get("title"), data.get("summary")
    if not isinstance(title, str) or not title.strip():
        raise InvalidReply("the reply has no title", reply)
    if not isinstance(summary, str) or not summary.strip():
        raise InvalidReply("the reply has no summary", reply)
    return " ".join(title.split())[:MAX_TITLE_CHARS], summary.strip()


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m anamnesis.reflect.session_summary NOTE_ID``: always 0, problems logged."""
    args = list(sys.argv[1:] if argv is None else argv)
    home = resolve_home()
    log_to_store(log, home, "reflect.log")
    try:
        if len(args) != 1:
            log.warning("session summary: expected one note id, got %r", args)
            return 0
        settings = load_settings(home)
        if not settings.summarize_sessions or settings.provider == "heuristic":
            return 0  # off, or no LLM to ask: the captured note stays as it is
        provider = make_provider(settings)
        with MemoryStore(home) as store:
            done = summarize_session(store, args[0], provider, settings)
        if done is not None:
            log.info("summarised %s with %s", done.id, done.prov_model)
    except Exception as exc:  # a detached step: every failure is one line in the log
        log.warning("session summary of %s failed: %s: %s", args, type(exc).__name__, exc)
    return 0


if __name__ == "__main__":
    sys.exit(main())
