"""Exact keyword ranking that scores only the notes holding a query's rarer words.

An OR query costs FTS5 one BM25 evaluation per note holding *any* query word (about
2.4 microseconds each), and a few words found in a few percent of all notes make that
tens of thousands of notes in a large store. Yet one phrase adds at most
``idf * (k1 + 1)`` to a note's score, so a note holding only the commoner words cannot
outscore one that holds several rare ones. This is MaxScore over FTS5:

* The query's words are ordered rarest first, and the first few (the *essential* words)
  are ranked, in two FTS5 queries: the essential words alone, which yields every note's
  essential score (and, for a note that holds no other query word, its whole score, bit
  for bit: absent phrases add exactly 0.0); and the essential words AND the others,
  scored on every phrase of the query, which yields the whole score of the notes holding
  both.
* A note holding none of the essential words scores at most the sum of the other words'
  bounds; notes past either query's limit score no better than its last row. When the
  k-th best known note beats all of that, the answer is the one the full query gives.
* Otherwise the k-th best score found so far is a floor the answer must reach, so more
  words become essential, exactly until the remaining ones cannot reach it together, and
  the notes holding the newly essential words but none of the earlier ones (FTS5's NOT:
  phrases under it add nothing to a note it returns) are ranked the same way, except that
  those holding none of the remaining words are only bounded, not ranked, when the new
  words together cannot reach that floor.

How many words start essential depends on the store's size (:func:`plan_query`). Two
scores so close that the order FTS5 summed the phrases in could matter are replaced by
the full query's own (:mod:`.exact_bm25`), so their order is the full query's.
When the rounds prove nothing, the caller runs the full query. Nothing here changes a
result; it only skips work.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from itertools import pairwise
from operator import itemgetter

from anamnesis.store.record import Record
from anamnesis.store.search.exact_bm25 import IDF_FLOOR, K1

# Small stores: the share of all notes the first essential words may hold. Ranker time
# at 2,000 notes (median; topical / mixed / zipf corpora of bench/suites/store_bench.py): 0.42 /
# 0.76 / 0.54 ms at 20 %; 0.39 / 0.93 / 0.58 at 10 %; 0.43 / 0.81 / 0.58 at 30 %. The rule
# this replaced (one round, only when the rare words outweighed the rest fourfold) took
# 0.43 / 1.01 / 0.65: on Zipf-shaped frequencies the fourfold weight is seldom there, yet
# the k-th best note mostly beats what the commoner words can add. Planning by a cost
# model instead (the k-th best score estimated from the words' note counts) did worse on
# mixed, 0.94-0.99 ms, whose notes repeat words far more than such an estimate expects.
SMALL_ESSENTIAL_SHARE = 0.2
# Small stores: plan only when the full query would score at least this many times as many
# notes as the essential words hold (2 and 5 measured no better), and at least MIN_SKIPPED
# more: each statement costs some 20 us a phrase however few notes it scores, so at 300
# notes planning cost more than it saved (mean 0.20 against 0.18 ms on zipf, 0.32 against
# 0.26 on mixed), and 400 lost nothing at 1,000 or 2,000 notes.
MIN_GAIN = 3.0
MIN_SKIPPED = 400
# Stores of at least this many notes plan by ESSENTIAL_SHARE. (Measured with the topical
# queries when small stores split once, median search time, split against budget: at
# 2,000 notes 1.4-1.6 against 1.7-1.9 ms; at 5,000, 2.9-3.1 against 2.2-2.3 ms; at
# 40,000, 13-15 against 9-10 ms.)
LARGE_STORE = 4_000
# Large stores: the share of all notes the first essential words may hold (the full
# query is simply run when it scores no more notes than that). With the topical queries
# at 100,000 notes, 1.5 % and 3 % proved too little in the first round, 12 % scored too
# much.
ESSENTIAL_SHARE = 0.06
# Rounds of widening before giving the query back to the caller.
MAX_ROUNDS = 3
# Rows ranked beyond the wanted number, so that filters and ties rarely force the full query.
MARGIN = 24
# Bounds get 1 % headroom: FTS5 counts its own rows, which a concurrent writer may have moved.
HEADROOM = 1.01
# Scores this close (relative) may be ordered differently by a different summation order.
_CLOSE = 1e-9

# The best rows for a MATCH expression, by FTS5 score alone (no note row is read).
RANK_SQL = (
    "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
    " ORDER BY bm25(memories_fts) LIMIT ?"
)
# The same among the rows of a rowid range (one project's notes, see project_seq.py):
# FTS5 seeks to the range in each doclist and scores only the rows in it.
_RANK_IN_SPAN_SQL = (
    "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
    " AND rowid BETWEEN ? AND ? ORDER BY bm25(memories_fts) LIMIT ?"
)
# The rowids a search may return (first, last); None: all of them.
Span = tuple[int, int] | None

# (score, ranked_at, id) of one hit; lower score is better (FTS5 bm25 is negative).
Hit = tuple[float, str, str]
Eligible = Callable[[list[tuple[int, float]]], list[Hit]]
Expression = Callable[[Sequence[str]], str]
# The full query's own scores for some note ids: the same bits the full query gives them
# (a note that left the index meanwhile is missing).
ExactScores = Callable[[list[str]], dict[str, float]]


class Plan(Record):
    """A query's distinct words, rarest first, with how many notes hold each, what each
    can add to a note's score (all its repeats together: each repeat is a phrase of its
    own), how many are essential in the first round, and how many rounds may widen that."""

    __slots__ = ("bounds", "expression", "first", "freq", "rounds", "words")

    def __init__(
        self,
        repeats: dict[str, list[str]],
        freq: dict[str, int],
        total: int,
        expression: Expression,
    ) -> None:
        order = sorted(repeats, key=lambda token: (freq[token], token))
        self.words = [repeats[token] for token in order]  # one word as often as the query has it
        self.freq = [freq[token] for token in order]
        self.bounds = [len(repeats[token]) * most_added(freq[token], total) for token in order]
        self.first = 0
        self.rounds = 1
        self.expression = expression

    def rest_bound(self, essential: int) -> float:
        """The most the words after the first ``essential`` can add together (positive)."""
        return self.bound(essential, len(self.words))

    def bound(self, start: int, stop: int) -> float:
        """The most the words from ``start`` to ``stop`` can add together (positive)."""
        return sum(self.bounds[start:stop]) * HEADROOM

    def postings(self, start: int, stop: int) -> int:
        """How many (note, phrase) pairs the words from ``start`` to ``stop`` make."""
        pairs = zip(self.freq[start:stop], self.words[start:stop], strict=True)
        return sum(notes * len(repeats) for notes, repeats in pairs)

    def phrases(self, start: int, stop: int) -> list[str]:
        return [word for repeats in self.words[start:stop] for word in repeats]


def most_added(doc_freq: int, total: int) -> float:
    """An upper bound on what one phrase found in ``doc_freq`` of ``total`` notes adds to
    any note's BM25 (as a positive number): term frequency saturates below ``k1 + 1``."""
    idf = math.log((total - doc_freq + 0.5) / (doc_freq + 0.5))
    return max(idf, IDF_FLOOR) * (K1 + 1)


def plan_query(
    tokens: Sequence[str],
    doc_freq: Callable[[str], int],
    total: int,
    want: int,
    expression: Expression,
) -> Plan | None:
    """The rarest-first plan for the best ``want`` notes for ``tokens``, or None when it
    could not prove the answer or would not save work. ``expression`` builds a MATCH
    expression from tokens (spec 002's quoting)."""
    if total <= 0:
        return None
    repeats: dict[str, list[str]] = {}
    for token in tokens:
        repeats.setdefault(token, []).append(token)
    if len(repeats) < 2:
        return None  # one word: nothing to bound it by
    freq = {token: doc_freq(token) for token in repeats}
    plan = Plan(repeats, freq, total, expression)
    if total >= LARGE_STORE:
        return _by_budget(plan, total, ESSENTIAL_SHARE)
    return _small_by_budget(plan, total)


def _small_by_budget(plan: Plan, total: int) -> Plan | None:
    """:func:`_by_budget` at SMALL_ESSENTIAL_SHARE, when it skips enough to pay for the
    narrower statements it runs instead of one."""
    if plan.freq[0] > SMALL_ESSENTIAL_SHARE * total:
        return None  # even the rarest word is common: little to skip, and no proof likely
    if _by_budget(plan, total, SMALL_ESSENTIAL_SHARE) is None:
        return None
    held = plan.postings(0, plan.first)
    shares = [min(notes, total) / total for notes in plan.freq]
    skipped = total * _union(shares) - held
    if skipped < (MIN_GAIN - 1) * held or skipped < MIN_SKIPPED:
        return None
    return plan


def _by_budget(plan: Plan, total: int, share: float) -> Plan | None:
    """Essential: the rarest words while they hold ``share`` of all notes, widened over up
    to MAX_ROUNDS rounds."""
    budget = share * total
    # The full query scores each note holding any of the words once: at most every note.
    if min(total, sum(plan.freq)) <= budget:
        return None
    first, held = 1, plan.freq[0]
    while first < len(plan.words) - 1 and held + plan.freq[first] <= budget:
        held += plan.freq[first]
        first += 1
    plan.first = first
    plan.rounds = MAX_ROUNDS
    return plan


def _union(shares: list[float]) -> float:
    """The share of all notes holding at least one of the words, were they independent."""
    missing = 1.0
    for share in shares:
        missing *= 1.0 - share
    return 1.0 - missing


def ranked_rows(
    conn: sqlite3.Connection, expression: str, limit: int, span: Span = None
) -> list[tuple[int, float]]:
    """The best ``limit`` (rowid, bm25) rows for ``expression`` among the rowids of
    ``span``. bm25's statistics are the whole table's wherever the rows come from, so a
    row scores the same in a span as in the whole table."""
    if span is None:
        return conn.execute(RANK_SQL, (expression, limit)).fetchall()
    return conn.execute(_RANK_IN_SPAN_SQL, (expression, *span, limit)).fetchall()


def top_by_rare_first(
    conn: sqlite3.Connection,
    plan: Plan,
    want: int,
    eligible: Eligible,
    exact: ExactScores,
    span: Span = None,
) -> list[Hit] | None:
    """The best ``want`` eligible hits, exactly as the full OR query ranks them, then
    every further hit the same proof places (in order up to the last bit of a near tie),
    or None when narrower queries cannot prove that (the caller then runs the full query).
    ``span``: the rowids every eligible note is among (the proof needs to cover no other).
    """
    limit = want + MARGIN
    scores: dict[int, float] = {}
    # The best score a note that no query returned can have, among notes they cover.
    floor = 0.0
    done, essential = 0, plan.first
    reach: float | None = None  # what the want-th known hit scores (positive), once known
    for _round in range(plan.rounds):
        alone = reach is None or plan.bound(done, essential) >= reach
        if not alone:
            # A note holding newly essential words but none of the others cannot reach
            # the want-th known hit: ranking them (every note holding a new word, some
            # 10,000 at 100,000 notes, ~1.6 us each) is skipped, and they are bounded.
            floor = min(floor, -plan.bound(done, essential))
        for query in _round_queries(plan, done, essential, alone=alone):
            rows = ranked_rows(conn, query, limit, span)
            if len(rows) == limit:
                floor = min(floor, rows[-1][1])
            for rowid, score in rows:
                # A note in both queries: the score with every phrase is the better one.
                # A note past the both-query's limit keeps its essential score, which is
                # no better than that limit's floor, so it is never chosen below.
                known = scores.get(rowid)
                if known is None or score < known:
                    scores[rowid] = score
        done = essential
        hits = eligible(list(scores.items()))
        beyond = min(floor, -plan.rest_bound(essential))
        proven = proven_prefix(hits, beyond - _tolerance(beyond))
        if len(proven) >= want:
            return _with_ties_rescored(proven, want, exact)
        if essential == len(plan.words) or len(hits) < want:
            return None
        # The answer scores at least as well as the k-th known hit: every word that could
        # still help a note reach that becomes essential.
        reach = -hits[want - 1][0]
        essential += 1
        while essential < len(plan.words) and plan.rest_bound(essential) >= reach:
            essential += 1
    return None


def proven_prefix(hits: list[Hit], beyond: float) -> list[Hit]:
    """The first of the (ordered) hits that score strictly better than ``beyond``, which
    no note outside them can beat: those hits are the best that many, in that order."""
    count = 0
    for score, _ranked, _id in hits:
        if not score < beyond:
            break
        count += 1
    return hits[:count]


def _with_ties_rescored(hits: list[Hit], want: int, exact: ExactScores) -> list[Hit]:
    """The hits, after scoring again by the full query every hit that lies within
    rounding of a neighbour it might swap places with among the first ``want``."""
    close: set[int] = set()
    for i, (a, b) in enumerate(pairwise(hits)):
        if b[0] - a[0] <= _tolerance(a[0]):
            close.update((i, i + 1))
        elif i >= want - 1:
            break  # past the last wanted hit, and no tie reaches back into it
    if not close:
        return hits
    # However many: scoring them again (the cheaper of recomputing and one FTS5 statement
    # over them) costs less than the full query, which scores every note it matches.
    return rescored(hits, close, exact)


def rescored(hits: list[Hit], marked: set[int], exact: ExactScores) -> list[Hit]:
    """``hits`` with the marked ones given the full query's scores, in spec order."""
    scores = exact([hits[i][2] for i in marked])
    result = list(hits)
    for i in marked:
        score, ranked, memory_id = hits[i]
        # Missing: the note left the index meanwhile; its old score still orders it.
        result[i] = (scores.get(memory_id, score), ranked, memory_id)
    return in_spec_order(result)


def in_spec_order(hits: list[Hit]) -> list[Hit]:
    """bm25 ascending, then ranked_at (recency) descending, then id descending (two
    stable sorts)."""
    hits.sort(key=_RECENCY, reverse=True)
    hits.sort(key=_SCORE)
    return hits


_RECENCY = itemgetter(1, 2)
_SCORE = itemgetter(0)


def _round_queries(plan: Plan, done: int, essential: int, *, alone: bool = True) -> list[str]:
    """MATCH expressions for the notes holding a newly essential word and none of the
    earlier ones: the new words alone (unless ``alone`` is False), and with the
    remaining words."""
    expression = plan.expression
    new = f"({expression(plan.phrases(done, essential))})"
    rest = plan.phrases(essential, len(plan.words))
    queries = [new] if alone else []
    if rest:
        queries.append(f"({new} AND ({expression(rest)}))")
    if done:
        earlier = expression(plan.phrases(0, done))
        queries = [f"{query} NOT ({earlier})" for query in queries]
    return queries


def _tolerance(score: float) -> float:
    return _CLOSE * max(1.0, abs(score))
