"""A search hit's snippet: the note's text as a person reads it (markdown syntax gone), cut
around the first word of the query it holds, that word and the others marked.

The one rule for snippets: the store's search returns notes, not snippets, and nothing
else shows one. Words are read as search reads a query: ``\\w+`` runs of the text as the
index sees it (the store's ``match_text``), without the stop words a short query drops
(``content_terms``). The index stems words (``porter``), so a word counts as the query's
when one of the two begins with the other and the shorter has at least
:data:`MIN_STEM` letters: ``pool`` marks ``pools``, ``deploy`` marks ``deployment``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from markdown_it.token import Token
from markupsafe import Markup, escape

from anamnesis.dashboard.markup.rendering import markdown
from anamnesis.store import content_terms, display_safe, match_text

SNIPPET_CHARS = 240
LEAD_CHARS = 60  # how much text comes before the first marked word, when there is more
MIN_STEM = 3
BLOCK_SEPARATOR = " · "  # between a heading, a paragraph, a list item...
_WORD = re.compile(r"\w+")


def query_words(query: str) -> list[str]:
    """The query's words a snippet marks, casefolded, each once, in order."""
    words = content_terms(_WORD.findall(match_text(query)))
    return list(dict.fromkeys(word.casefold() for word in words))


def plain_text(body: str) -> str:
    """A markdown body as text: headings, emphasis, links and fences give their text only;
    blocks are separated by :data:`BLOCK_SEPARATOR`, lines within one by a space."""
    blocks = [" ".join(text.split()) for text in _block_texts(markdown().parse(body))]
    return BLOCK_SEPARATOR.join(block for block in blocks if block)


def snippet(body: str, query: str, length: int = SNIPPET_CHARS) -> Markup:
    """About ``length`` characters of ``body`` as plain text, from a little before the
    first word of ``query`` it holds (the start when none), the query's words in
    ``<mark>``; everything else escaped."""
    text = display_safe(plain_text(body))
    words = query_words(query)
    spans = [m.span() for m in _WORD.finditer(text) if _matches(m.group().casefold(), words)]
    return _marked(text, spans, length)


def value_snippet(body: str, values: Sequence[str], length: int = SNIPPET_CHARS) -> Markup:
    """A snippet as :func:`snippet` cuts one, marking ``values`` where the text holds them
    (each found as written, case aside): the values two notes disagree on, on the review
    page. A value is found whole (``20`` is not marked inside ``2026``); one the text does
    not hold (a negation's absent side) marks nothing."""
    text = display_safe(plain_text(body))
    spans: list[tuple[int, int]] = []
    # A value is read as the text is (a clause's `code` loses its backticks, as here).
    needles = (display_safe(plain_text(v)) for v in values if v.strip())
    for needle in dict.fromkeys(n for n in needles if n):
        whole = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)", re.IGNORECASE)
        spans.extend(m.span() for m in whole.finditer(text))
    return _marked(text, _disjoint(spans), length)


def _disjoint(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` in order, a span overlapping an earlier one merged into it."""
    merged: list[tuple[int, int]] = []
    for begin, finish in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], finish))
        else:
            merged.append((begin, finish))
    return merged


def _marked(text: str, spans: list[tuple[int, int]], length: int) -> Markup:
    """About ``length`` characters of ``text`` from a little before the first span, the
    spans in ``<mark>``, everything else escaped."""
    start = _window_start(text, spans[0][0]) if spans else 0
    end = min(len(text), start + length)
    if end < len(text):  # end on a word boundary when one is near
        space = text.rfind(" ", start + length // 2, end)
        end = space if space > 0 else end
    out = [Markup("…")] if start > 0 else []
    cursor = start
    for begin, finish in spans:
        if begin < start or finish > end:
            continue
        out.append(escape(text[cursor:begin]))
        out.append(Markup("<mark>{}</mark>").format(text[begin:finish]))
        cursor = finish
    out.append(escape(text[cursor:end]))
    if end < len(text):
        out.append(Markup("…"))
    return Markup("").join(out)


def _matches(word: str, query: Sequence[str]) -> bool:
    for term in query:
        if word == term:
            return True
        short, long = sorted((word, term), key=len)
        if len(short) >= MIN_STEM and long.startswith(short):
            return True
    return False


def _window_start(text: str, first_hit: int) -> int:
    """Where the snippet starts: at a word boundary about :data:`LEAD_CHARS` before the
    first hit, or at the start of the text when that is close."""
    if first_hit <= LEAD_CHARS:
        return 0
    space = text.find(" ", first_hit - LEAD_CHARS, first_hit)
    return first_hit - LEAD_CHARS if space < 0 else space + 1


def _block_texts(tokens: Sequence[Token]) -> Iterator[str]:
    """The text of each block: an inline run's words, a code block's lines."""
    for token in tokens:
        if token.type == "inline":
            yield "".join(_inline_text(token.children or []))
        elif token.type in ("fence", "code_block"):
            yield token.content


def _inline_text(children: Sequence[Token]) -> Iterator[str]:
    for child in children:
        if child.type in ("text", "code_inline"):
            yield child.content
        elif child.type in ("softbreak", "hardbreak"):
            yield " "
        elif child.type == "image":  # its alt text is in its children
            yield from _inline_text(child.children or [])
