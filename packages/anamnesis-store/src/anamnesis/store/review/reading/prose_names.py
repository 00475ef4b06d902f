"""Names prose gives by their shape or their place, not by a capital or code: a branch
pushed to or merged into ("Pushing to master deploys", "merge the PR into main"), and a
chat channel by its mark ("alerts go to #eng-releases")."""

from __future__ import annotations

import re

from anamnesis.store.review.reading.value import Spans, Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final


def branch_names(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A branch a text names in prose by its usual name, where the words around it say
    it is a branch: pushed to, merged into, deployed from, "the master branch"
    (:data:`_BRANCH`). "main" and "master" are English words elsewhere ("the main page")."""
    for match in _BRANCH.finditer(text):
        name = match.group(1) or match.group(2)
        at = match.start(1) if match.group(1) else match.start(2)
        if spans.free(at, at + len(name)):
            spans.take(at, at + len(name))
            yield at, Value("name", name.lower(), name, slot=BRANCH, clause=clause)


# The slot of a branch's name read in prose (:func:`branch_names`).
BRANCH: Final = "branch"
# The names a branch usually has, and the words that say a name is a branch's.
_BRANCHES: Final = r"(master|main|develop|trunk)"
_BRANCH: Final = re.compile(
    r"\b(?:push(?:es|ed|ing)?|merg(?:e|es|ed|ing)|land(?:s|ed|ing)?|rebas(?:e|es|ed|ing)"
    r"|deploy(?:s|ed|ing)?|branch(?:es|ed)?\s+off)\s+(?:[\w-]+\s+){0,3}?"
    r"(?:to|into|from|onto|off|on)\s+(?:the\s+)?`?" + _BRANCHES + r"`?(?![\w./-])"
    r"|(?<![\w./-])`?" + _BRANCHES + r"`?\s+branch\b",
    re.IGNORECASE,
)


def channel_names(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A chat channel named by its mark in prose ("deploy notices go to #eng-releases"):
    a name of its own, compared with another channel's (:func:`.names_renamed.kind_beside`
    knows it by its mark). Not an issue's number (``#123``), a colour (``#2e5e4e``) or a
    heading."""
    for match in _CHANNEL.finditer(text):
        if _HEX.fullmatch(match.group(0)[1:]) or not spans.free(*match.span()):
            continue
        spans.take(*match.span())
        yield match.start(), Value("name", match.group(0).lower(), match.group(0), clause=clause)


_CHANNEL: Final = re.compile(r"(?<![\w&#/])#[a-z][a-z0-9_-]*[a-z0-9](?![\w-])")
_HEX: Final = re.compile(r"[0-9a-f]{3,8}")
