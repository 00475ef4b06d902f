"""Turning data into HTML: the Jinja2 templates (autoescaped) and note bodies as markdown.

A note is text someone (or some model) wrote; its HTML must never run. Markdown is rendered
with raw HTML disabled, so ``<script>`` or ``<img onerror=...>`` in a note comes out as
text, and markdown-it's link check refuses ``javascript:`` and other unsafe URLs. The CSP
is the second wall: even an injected script could not run or call anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markdown_it import MarkdownIt
from markupsafe import Markup

from anamnesis.store import display_safe


@cache
def markdown() -> MarkdownIt:
    # commonmark with raw HTML off; tables and strikethrough because notes use them.
    return MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
        ["table", "strikethrough"]
    )


def render_markdown(text: str) -> Markup:
    """A note body as HTML that cannot carry markup of its own (see module docstring)."""
    return Markup(markdown().render(text))


def unix_time(seconds: int) -> str:
    """A commit's time, which is whatever its author's clock (or hand) wrote: a time past
    the year 9999 is shown as such, never a failed page."""
    try:
        return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):
        return f"out of range ({seconds} s)"


def short_time(stamp: str) -> str:
    """``2026-11-25T14:03:07.123Z`` as ``2026-11-25 14:03``: enough for a list."""
    return stamp[:16].replace("T", " ") if stamp else ""


@cache
def environment() -> Environment:
    folder = resources.files("anamnesis.dashboard") / "templates"
    env = Environment(
        loader=FileSystemLoader(str(folder)),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,  # a typo in a template fails its test, not silently
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters["markdown"] = render_markdown
    env.filters["unix_time"] = unix_time
    env.filters["short_time"] = short_time
    # A note's one-line fields (title, project, tags, machine, provenance) as a listing
    # prints them: a direction control (U+202E) shown as its escape, so it cannot make a
    # title read as another. Not for form values or the edit box, which must round-trip.
    env.filters["shown"] = display_safe
    return env


def render(name: str, context: Mapping[str, Any]) -> str:
    return environment().get_template(name).render(**context)
