"""A note's text as the contradiction finder reads it: clauses, words and their stems.

A value's subject is the words around it, so the text is cut where a subject ends: at a
sentence's end, a semicolon, a line break, a parenthesis, a dash between spaces. Code in
backticks is never cut (``SELECT ... FOR UPDATE`` stays one span). Words are compared by
a light stem (``shards`` and ``shard``, ``retried`` and ``retry``) so a restated subject
matches; the stem is for matching, never shown.
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.note.invisible import match_text
from anamnesis.store.search.stop_words import STOP_WORDS

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

# How much of a body is read: the first screenfuls, where a note states its facts. A long
# session note past this is cut, so one note never costs the check more than this.
MAX_CHARS: Final = 6000

# A code span, or a place where a clause ends (outside code).
_CUTS = re.compile(r"(`[^`\n]{1,300}`)|[.!?](?=\s|$)|;|\n|\(|\)|\s[-\u2013\u2014]\s|\u2014")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'\u2019-]*[A-Za-z0-9]|[A-Za-z]")

# Words that say nothing about which thing a sentence is about (beyond the query stop
# words): filler, the verbs every instruction has, and the words of time and change,
# which say that a value changed, not what it belongs to.
GENERIC: Final = (
    frozenset(
        """
    also always any anymore around back but can every everything get gets got just keep
    kept let like make makes many may might much must need needs new newer now old older
    one ones please run runs same see set sets since still sure thing things today use
    used uses using via want way well within without yet default instead currently
    change changed changes moved switched fine ok okay stays unchanged something
    """.split()  # noqa: SIM905 - a word list reads best as words
    )
    | STOP_WORDS
)

_NUMBER_WORDS: Final = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "hundred": 100,
}  # fmt: skip
_ORDINALS: Final = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip


def number_word(word: str) -> int | None:
    """The number a word spells (``two``, ``Six``), else None."""
    return _NUMBER_WORDS.get(word.lower())


def ordinal_word(word: str) -> int | None:
    """The number an ordinal spells (``third``), else None."""
    return _ORDINALS.get(word.lower())


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light stem: lower case, a plural, ``-ing``, ``-ed`` or a possessive taken off.
    Deterministic and crude on purpose: it only has to make a restated word match."""
    w = word.lower().replace("\u2019", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.rstrip("'")
    if len(w) <= 3:
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ing") and len(w) > 5:
        w = w[:-3]
        return w[:-1] if len(w) > 3 and w[-1] == w[-2] else w
    if w.endswith("ied") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith("ed") and len(w) > 4:
        w = w[:-2]
        if w.endswith("e") and len(w) > 4:
            return w
        return w[:-1] if len(w) > 3 and w[-1] == w[-2] else w
    if w.endswith(("sses", "ches", "shes", "xes", "zes")):
        return w[:-2]
    if w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    if w.endswith("e") and len(w) > 4:
        return w[:-1]
    return w


def words(text: str) -> list[str]:
    """The words of a text, as written (letters, digits inside, ``_``, ``-``, ``'``)."""
    return _WORD.findall(text)


def content_stems(text: str) -> list[str]:
    """The stems of the words that say what a text is about, in order (repeats kept);
    hyphenated and snake_case words also count as their parts."""
    out: list[str] = []
    for word in _WORD.findall(text):
        out.extend(_word_stems(word))
    return out


@lru_cache(maxsize=65536)
def _word_stems(word: str) -> tuple[str, ...]:
    lower = word.lower()
    if lower in GENERIC or len(lower) < 2:
        return ()
    if "-" not in lower and "_" not in lower:
        return (stem(lower),)
    parts = [stem(part) for part in re.split(r"[-_]", lower) if len(part) > 1]
    return (stem(lower), *(part for part in parts if part not in GENERIC))


class Clause:
    """One clause of a note: its text (code spans in place), its index in the note,
    whether it is the title, and (read on first use) the stems of its words."""

    __slots__ = ("_stems", "index", "is_title", "text")

    def __init__(self, text: str, index: int, is_title: bool) -> None:
        self.text = text
        self.index = index
        self.is_title = is_title
        self._stems: frozenset[str] | None = None

    @property
    def stems(self) -> frozenset[str]:
        if self._stems is None:
            self._stems = frozenset(content_stems(self.text))
        return self._stems


def clauses(title: str, body: str) -> list[Clause]:
    """The title as the first clause, then the body's clauses, in order; empty ones left
    out. Invisible characters are read through (:func:`.invisible.match_text`)."""
    pieces = [match_text(title).strip()]
    text = match_text(body[:MAX_CHARS])
    start = 0
    for cut in _CUTS.finditer(text):
        if cut.group(1) is not None:
            continue  # a code span: part of its clause
        pieces.append(text[start : cut.start()].strip())
        start = cut.end()
    pieces.append(text[start:].strip())
    out = [Clause(pieces[0], 0, True)] if pieces[0] else []
    for piece in pieces[1:]:
        if piece:
            out.append(Clause(piece, len(out), False))
    return out
