"""Turning data into HTML: the Jinja2 templates (autoescaped) and note bodies as markdown.

A note is text someone (or some model) wrote; its HTML must never run. Markdown is rendered
with raw HTML disabled, so ``<script>`` or ``<img onerror=...>`` in a note comes out as
text, and markdown-it's link check refuses ``javascript:`` and other unsafe URLs. The CSP
is the second wall: even an injected script could not run or call anywhere, and no inline
style applies, so the HTML made here never carries one (alignment and highlighting are
classes, styled by the static stylesheets).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import Markup, escape
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

from anamnesis.store import display_safe, is_due, is_expired

# markdown-it writes a table column's alignment as ``style="text-align:right"``, which the
# page's CSP (no inline styles) refuses: it becomes one of these classes instead.
ALIGN_CLASSES = {f"text-align:{side}": f"align-{side}" for side in ("left", "center", "right")}
# A list item starting ``[ ] `` or ``[x] `` is a task (GitHub's task lists).
_TASK = re.compile(r"\[([ xX])\](?=\s|$)")
HIGHLIGHT_CLASS = "highlight"  # Pygments' token classes, styled by static/highlight.css
MAX_HIGHLIGHTED = 100_000  # characters of one code block; past that it is shown plain


@cache
def markdown() -> MarkdownIt:
    """commonmark with raw HTML off; tables and strikethrough because notes use them; task
    lists, alignment as classes and code highlighted by Pygments (classes, never styles)."""
    md = MarkdownIt(
        "commonmark", {"html": False, "linkify": False, "highlight": highlight_code}
    ).enable(["table", "strikethrough"])
    md.core.ruler.push("task_lists", _task_lists)
    md.core.ruler.push("no_inline_styles", _no_inline_styles)
    md.add_render_rule("task_box", _render_task_box)
    return md


def render_markdown(text: str) -> Markup:
    """A note body as HTML that cannot carry markup of its own (see module docstring), and
    never carries a ``style`` attribute either: the CSP would refuse it."""
    return Markup(markdown().render(text))


def highlight_code(code: str, language: str, attrs: str) -> str:
    """A fenced block in a language Pygments knows, as ``<pre class="highlight">`` with a
    class on each token; "" (markdown-it then escapes it plain) for any other, or for a
    block too large to be worth the time. The language is never guessed."""
    if not language or len(code) > MAX_HIGHLIGHTED:
        return ""
    try:
        lexer = get_lexer_by_name(language)
    except ClassNotFound:
        return ""
    spans = highlight(code, lexer, HtmlFormatter(nowrap=True))  # escapes the code itself
    name = escape(lexer.aliases[0] if lexer.aliases else language)
    return f'<pre class="{HIGHLIGHT_CLASS}"><code class="language-{name}">{spans}</code></pre>'


def _no_inline_styles(state: StateCore) -> None:
    """Alignment becomes a class; any other ``style`` a rule may set is dropped."""
    for token in _every_token(state.tokens):
        style = token.attrs.pop("style", None)
        if isinstance(style, str) and style in ALIGN_CLASSES:
            _add_class(token, ALIGN_CLASSES[style])


def _every_token(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        if token.children:
            yield from _every_token(token.children)


def _task_lists(state: StateCore) -> None:
    """``- [x] done`` as a ticked, disabled checkbox (a note is read here, not edited):
    the item's first text loses its ``[x] `` and a ``task_box`` token takes its place."""
    tokens = state.tokens
    for i in range(2, len(tokens)):
        inline = tokens[i]
        if inline.type != "inline" or not inline.children:
            continue
        if tokens[i - 1].type != "paragraph_open" or tokens[i - 2].type != "list_item_open":
            continue
        first = inline.children[0]
        found = _TASK.match(first.content) if first.type == "text" else None
        if found is None:
            continue
        first.content = first.content[found.end() :].lstrip(" ")
        box = Token("task_box", "input", 0)
        box.meta = {"checked": found.group(1) != " "}
        inline.children.insert(0, box)
        _add_class(tokens[i - 2], "task")
        _add_class(_list_of(tokens, i - 2), "tasks")


def _add_class(token: Token, name: str) -> None:
    if name not in str(token.attrGet("class") or "").split():
        token.attrJoin("class", name)


def _list_of(tokens: list[Token], item: int) -> Token:
    """The ``*_list_open`` token an item at index ``item`` belongs to."""
    level = tokens[item].level - 1
    for j in range(item - 1, -1, -1):
        if tokens[j].level == level and tokens[j].type.endswith("_list_open"):
            return tokens[j]
    return tokens[item]  # not reached for a parsed list: the item gets the class itself


def _render_task_box(renderer: Any, tokens: list[Token], idx: int, options: Any, env: Any) -> str:
    checked = bool(tokens[idx].meta.get("checked"))
    state = " checked" if checked else ""
    label = "done" if checked else "to do"
    return f'<input type="checkbox" class="task-box" disabled{state} aria-label="{label}"> '


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
    # Validity in time, as the store decides it: `note is expired`, `note is due`.
    env.tests["expired"] = is_expired
    env.tests["due"] = is_due
    return env


def render(name: str, context: Mapping[str, Any]) -> str:
    return environment().get_template(name).render(**context)
