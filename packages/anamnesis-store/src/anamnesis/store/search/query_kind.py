"""What kind of evidence a query carries, and so which side of hybrid search leads.

A query is **lexical** (a look-up) when three things hold (thresholds as the grid chose them,
``bench/results/2026-11-29-fusion-by-held-information.md``):

* it has evidence of a look-up: its best keyword hit holds at least :data:`INFORMATIVE`
  of the query's information (below); or an exact anchor that few notes share: a proper
  name ("Tunde", "Access Bank"), a date ("March 3rd", "2026-10-21"), a number ("75,000"),
  an identifier ("INC-2200", "max_connections", "E1234") held by at most
  :data:`ANCHOR_SHARE` of the notes, or a word held by at most :data:`RARE_NOTES` notes
  or :data:`RARE_SHARE` of them; or a best keyword hit far above the rest (the second
  best scores at most :data:`STANDOUT` of its BM25);
* its best keyword hit holds at least :data:`MIN_COVERAGE` of the query's information
  (the words found the note they describe, not a note sharing one common word);
* it is a look-up, not a long prompt: at most :data:`LONGEST` words (a conversational
  turn of 40 words names people and dates in passing; measured, keywords must not lead it).

With :data:`INFORMATIVE` equal to :data:`MIN_COVERAGE` (the grid's choice) the first
condition follows from the second: the anchors then say why a query is a look-up (``search
--json`` names them), the information share decides.

A query's **information** is its words weighed by their IDF, as BM25 weighs them
(``ln(1 + (N - n + 0.5) / (n + 0.5))`` for a word ``n`` of ``N`` notes hold): a hit's share
of it (:func:`idf_share`) counts a rare name or date for much and a template word ("talk",
"remind", "about") for little, where a share of the words counts them alike. Measured, it
tells look-ups from paraphrases better than the share of words: the look-ups of
realmem-turns ("when did we talk about gathered and easy?") have a best hit holding most of
their information but few of their words, devmemory's paraphrases the other way round.

Then the words decide which note it wants, and keyword evidence leads the fusion.
Otherwise it is a **paraphrase**, and vectors lead. Which weight each kind gets is
:mod:`.fusion`'s; the thresholds come from one grid over every corpus
(``bench/studies/query_fusion.py``;
``bench/results/2026-11-29-query-aware-fusion-by-information.md``,
``bench/results/2026-11-29-fusion-by-held-information.md``).

Everything here is read from the query's text, the number of notes holding each of its
words and the keyword ranking: no model, deterministic, and each anchor is named with
why it counts, so a search can say why it ranked as it did (``search --json``).
"""

from __future__ import annotations

import math
import re
from itertools import pairwise

from anamnesis.store.record import Record
from anamnesis.store.search.stop_words import STOP_WORDS as _STOP

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence

LEXICAL = "lexical"
PARAPHRASE = "paraphrase"

# A word held by at most this many notes, or this share of them, is an anchor by itself.
RARE_NOTES = 3
RARE_SHARE = 0.01
# A typed anchor (name, date, number, identifier) counts while at most this share of the
# notes hold it: a project's own name, in every note, tells nothing apart.
ANCHOR_SHARE = 0.1
# The best keyword hit stands out when the second best scores at most this share of it.
STANDOUT = 0.5
# The best keyword hit must hold at least this share of the query's information (IDF).
# 0.45 before a look-up's keyword hits were weighed by the information each holds
# (fusion.LEXICAL_WEIGHT); with that, the grid (bench/studies/query_fusion.py) chose 0.35:
# at 0.3 devmemory's paraphrases start to count as look-ups (R@8 0.930, under 7be1448's).
MIN_COVERAGE = 0.35
# A best keyword hit holding at least this share of the query's information is evidence
# by itself, with or without a typed anchor. The grid chose it equal to MIN_COVERAGE
# (bench/studies/query_fusion.py): a short query whose best hit holds that much of its
# information is a look-up, and anchors then name why rather than decide.
INFORMATIVE = 0.35
# The longest query (in words) that can be lexical. At 17 (stop_words.SHORT_QUERY) a few
# of realmem's shorter prompts counted as look-ups and its MRR fell 0.001; at 10 and 14
# realmem is untouched (bench/studies/query_fusion.py chose 10 with coverage 0.5).
LONGEST = 10

_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december"
    "|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = re.compile(
    rf"\b(?:(?:{_MONTHS})\.?\s+{_DAY}\b(?:,?\s+\d{{4}})?"
    rf"|{_DAY}\s+(?:of\s+)?(?:{_MONTHS})\b(?:,?\s+\d{{4}})?"
    r"|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?"
    rf"|(?:{_MONTHS})\s+\d{{4}}|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
# A run of word characters joined by - _ . / : # that has a digit, an underscore, an
# inner capital (camelCase) or is all capitals (two letters or more): "INC-2200",
# "max_connections", "v1.2", "getUserId", "OOM".
_CHUNK = re.compile(r"\w+(?:[-_./:#]\w+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_NAME_WORD = re.compile(r"[A-Z][\w'’]*")
_SENTENCE_END = re.compile(r"[.!?:;\n\"“(\[]\s*$")
_WORD = re.compile(r"\w+")


class Anchor(Record):
    """One exact anchor of a query: its text as the query has it, what kind of anchor it
    is (``name``, ``date``, ``number``, ``identifier``, ``rare``) and how many notes hold
    its rarest word."""

    __slots__ = ("text", "why", "notes")

    def __init__(self, text: str, why: str, notes: int) -> None:
        self.text = text
        self.why = why
        self.notes = notes

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "why": self.why, "notes": self.notes}


class QueryKind(Record):
    """A query's kind (:data:`LEXICAL` or :data:`PARAPHRASE`), its anchors, whether its
    best keyword hit stood out (``standout``: the second best's share of the best BM25,
    None with fewer than two keyword hits), that hit's coverage of the query's words and
    its share of the query's information (``information``, :func:`idf_share`)."""

    __slots__ = ("kind", "anchors", "standout", "coverage", "information")

    def __init__(
        self,
        kind: str,
        anchors: tuple[Anchor, ...] = (),
        standout: float | None = None,
        coverage: float = 0.0,
        information: float = 0.0,
    ) -> None:
        self.kind = kind
        self.anchors = anchors
        self.standout = standout
        self.coverage = coverage
        self.information = information

    @property
    def lexical(self) -> bool:
        return self.kind == LEXICAL


class KindRule(Record):
    """The classifier's thresholds (the module's constants by default; the grid that
    chose them passes others: ``bench/studies/query_fusion.py``). ``kinds``: which typed
    anchors count."""

    __slots__ = (
        "rare_notes", "rare_share", "anchor_share", "standout", "min_coverage", "longest",
        "kinds", "informative",
    )  # fmt: skip

    def __init__(
        self,
        rare_notes: int = RARE_NOTES,
        rare_share: float = RARE_SHARE,
        anchor_share: float = ANCHOR_SHARE,
        standout: float = STANDOUT,
        min_coverage: float = MIN_COVERAGE,
        longest: int = LONGEST,
        kinds: tuple[str, ...] = ("name", "date", "number", "identifier", "rare"),
        informative: float = INFORMATIVE,
    ) -> None:
        self.rare_notes = rare_notes
        self.rare_share = rare_share
        self.anchor_share = anchor_share
        self.standout = standout
        self.min_coverage = min_coverage
        self.longest = longest
        self.kinds = kinds
        self.informative = informative


DEFAULT_RULE = KindRule()


def typed_anchors(query: str) -> list[tuple[str, str]]:
    """(text, kind) of the names, dates, numbers and identifiers in ``query``, in order;
    each stretch of text is one anchor (a date's number is not a number too)."""
    found: list[tuple[int, int, str, str]] = []
    taken: list[tuple[int, int]] = []

    def free(start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in taken)

    def add(start: int, end: int, kind: str) -> None:
        if free(start, end):
            taken.append((start, end))
            found.append((start, end, query[start:end], kind))

    for match in _DATE.finditer(query):
        add(match.start(), match.end(), "date")
    for match in _CHUNK.finditer(query):
        text = match.group()
        if _is_identifier(text):
            add(match.start(), match.end(), "identifier")
    for match in _NUMBER.finditer(query):
        add(match.start(), match.end(), "number")
    for start, end in _name_runs(query):
        add(start, end, "name")
    return [(text, kind) for _s, _e, text, kind in sorted(found)]


def _is_identifier(text: str) -> bool:
    letters = any(c.isalpha() for c in text)
    digits = any(c.isdigit() for c in text)
    if not letters:
        return False  # a number, a date: read as those
    if digits or "_" in text:
        return True
    if any(sep in text for sep in "./:#") and len(text) > 3:
        return True  # a dotted path, a URL's piece, a ref
    upper = sum(c.isupper() for c in text)
    inner_capital = any(a.islower() and b.isupper() for a, b in pairwise(text))
    return inner_capital or (upper >= 2 and upper == sum(c.isalpha() for c in text))


def _name_runs(query: str) -> list[tuple[int, int]]:
    """Runs of capitalised words that do not start a sentence ("Access Bank", "Tunde")."""
    runs: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for match in _WORD.finditer(query):
        word = match.group()
        start = match.start()
        capital = _NAME_WORD.fullmatch(word) is not None and word not in ("I",)
        opens_sentence = start == 0 or _SENTENCE_END.search(query[:start]) is not None
        if capital and not opens_sentence and word.lower() not in _STOP:
            if current is not None and query[current[1] : start].strip() == "":
                current = (current[0], match.end())
            else:
                if current is not None:
                    runs.append(current)
                current = (start, match.end())
        elif current is not None:
            runs.append(current)
            current = None
    if current is not None:
        runs.append(current)
    return runs


def idf(notes: int, total: int) -> float:
    """A word's information: BM25's IDF of a word ``notes`` of ``total`` notes hold."""
    return math.log(1 + (total - notes + 0.5) / (notes + 0.5))


def idf_share(
    tokens: Sequence[str], held: Collection[str], doc_freq: Callable[[str], int], total: int
) -> float:
    """The share of the query's information (its distinct words' IDF, case-folded as the
    index matches them) held by a note holding the words ``held`` (case-folded)."""
    return idf_shares(tokens, {"": held}, doc_freq, total)[""]


def idf_shares(
    tokens: Sequence[str],
    held_by: Mapping[str, Collection[str]],
    doc_freq: Callable[[str], int],
    total: int,
) -> dict[str, float]:
    """:func:`idf_share` of each note of ``held_by`` (id: the query's words it holds,
    case-folded): how much of the query's information each keyword hit holds, which a
    look-up's fusion weighs (:func:`.fusion.keyword_evidence`)."""
    weights = {token.casefold(): idf(doc_freq(token), total) for token in tokens}
    mass = sum(weights.values())
    if mass <= 0:
        return dict.fromkeys(held_by, 0.0)
    return {
        memory_id: sum(w for word, w in weights.items() if word in held) / mass
        for memory_id, held in held_by.items()
    }


def classify(
    query: str,
    tokens: Sequence[str],
    doc_freq: Callable[[str], int],
    total: int,
    keyword: Sequence[tuple[str, float]],
    coverage: float,
    rule: KindRule = DEFAULT_RULE,
    best_holds: Collection[str] | None = None,
) -> QueryKind:
    """The kind of ``query`` (see the module docstring). ``tokens``: the words keywords
    rank by; ``doc_freq``: how many notes hold a word (at least); ``total``: how many notes
    there are; ``keyword``: the keyword ranking, (id, BM25 as FTS5 gives it), best first;
    ``coverage``: the share of the query's words its best keyword hit holds;
    ``best_holds``: which of them (case-folded), to weigh them by IDF (None: the query's
    information is taken as its words' share, ``coverage``, and is no evidence by itself)."""
    ranked = {token.casefold(): token for token in tokens}
    anchors: list[Anchor] = []
    seen: set[str] = set()
    for text, kind in typed_anchors(query):
        if kind not in rule.kinds:
            continue
        words = [w for w in _WORD.findall(text) if w.casefold() in ranked]
        if not words:
            continue
        notes = min(doc_freq(ranked[w.casefold()]) for w in words)
        if 0 < notes <= max(rule.rare_notes, rule.anchor_share * total):
            anchors.append(Anchor(text, kind, notes))
            seen.update(w.casefold() for w in words)
    rare = max(rule.rare_notes, rule.rare_share * total)
    for folded, token in ranked.items():
        if "rare" not in rule.kinds or folded in seen or folded in _STOP:
            continue
        notes = doc_freq(token)
        if 0 < notes <= rare:
            anchors.append(Anchor(token, "rare", notes))
    standout = None
    if len(keyword) >= 2 and keyword[0][1] < 0:
        standout = keyword[1][1] / keyword[0][1]
    weighed = best_holds is not None
    information = coverage
    if best_holds is not None:
        information = idf_share(tokens, best_holds, doc_freq, total)
    evidence = (
        bool(anchors)
        or (standout is not None and standout <= rule.standout)
        or (weighed and information >= rule.informative)
    )
    lexical = (
        evidence
        and bool(keyword)
        and information >= rule.min_coverage
        and len(_WORD.findall(query)) <= rule.longest
    )
    kind = LEXICAL if lexical else PARAPHRASE
    return QueryKind(kind, tuple(anchors), standout, coverage, information)
