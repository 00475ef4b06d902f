"""Slow work leaves the hook: filing a capture, a sync, or an LLM session summary runs as a
detached process the hook does not wait for.

SessionEnd hooks get about 1.5 s; a sync talks to the network, a model takes seconds. The
child gets its own session (it survives Claude Code closing) and no terminal; its failures
go to the log.
"""

from __future__ import annotations

from pathlib import Path

from anamnesis.store import read_config, start_detached


def start_worker(home: Path) -> int:
    """Start the background worker (``python -m anamnesis.hooks worker``) detached: it
    files the queued captures and syncs if asked, or leaves at once when another process
    is the worker (:mod:`.worker`); return its pid."""
    return start_detached(home, "anamnesis.hooks", "worker")


# What a config.json value of llm.summarize_sessions may say for "off" (the summary step
# reads the setting properly; this only spares starting a process that would do nothing).
_OFF = (None, False, "", "false", "no", "off", "0")


def start_session_summary(home: Path, note_id: str) -> int | None:
    """Start the LLM session summary of a captured note detached (``python -m
    anamnesis.reflect.session_summary``), when the reflect package is installed and
    ``llm.summarize_sessions`` is set; return its pid, or None when not started. The hooks
    never import that package: it is only run, as its own process."""
    from importlib.util import find_spec  # only when a summary may be due, not every capture

    value = read_config(home).get("llm.summarize_sessions")
    if (value.strip().lower() if isinstance(value, str) else value) in _OFF:
        return None
    if find_spec("anamnesis.reflect") is None:
        return None
    return start_detached(home, "anamnesis.reflect.session_summary", note_id)
