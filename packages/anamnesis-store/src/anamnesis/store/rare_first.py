"""Exact keyword ranking that scores only the notes holding a query's rarer words.

An OR query costs FTS5 one BM25 evaluation per note holding *any* query word, and a word
found in a tenth of all notes makes that most of the store. Yet such a word can add
little: one phrase adds at most ``idf * (k1 + 1)`` to a note's score, and its IDF is low.
So the query's words are split into rare and common ones and FTS5 is asked twice:

* the rare words alone, which yields every note's rare-word score (and, for a note that
  holds no common word, its whole score, bit for bit: absent phrases add exactly 0.0);
* the rare words AND the common words, scored on every phrase of the query, which yields
  the whole score of the notes holding both.

A note holding only common words scores at most the sum of their bounds; notes past
either query's limit score no better than its last row. When the k-th best known note
beats all of that, the answer is the one the full query gives; otherwise the caller runs
the full query. Two scores so close that the order FTS5 summed the phrases in could
matter are scored again by the full query's expression, one note at a time, so their
order is the full query's. Nothing here changes a result; it only skips work.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from itertools import pairwise

from anamnesis.store.record import Record

# FTS5's bm25 (fts5_aux.c): k1 = 1.2; IDF = ln((N - n + 0.5) / (n + 0.5)), floored at 1e-6.
K1 = 1.2
IDF_FLOOR = 1e-6
# A word in at least this share of all notes counts as common. Measured on the corpora of
# bench/store_bench.py at 2,000 and 100,000 notes: 5 % left too many answers unproved at
# 100,000, 20 % saved less there.
COMMON_SHARE = 0.1
# Split only when the rare words can add at least this many times what the common ones
# can: below it the proof mostly failed (bench/corpus.py's adversarial "mixed" corpus), and
# a failed proof costs both narrow queries on top of the full one.
MIN_RARE_WEIGHT = 4.0
# Near-tied notes scored again one by one, at most; each costs FTS5 a count of every phrase.
MAX_RESCORED = 6
# Rows ranked beyond the wanted number, so that filters and ties rarely force the full query.
MARGIN = 24
# Scores this close (relative) may be ordered differently by a different summation order.
_CLOSE = 1e-9

RANK_SQL = (
    "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
    " ORDER BY bm25(memories_fts) LIMIT ?"
)
# One note's score under a given expression: the same bits the full query gives it, as
# FTS5 counts the same phrases over the same notes and sums them in the same order.
ONE_SCORE_SQL = (
    "SELECT bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
    " AND rowid = (SELECT seq FROM memories WHERE id = ?)"
)

# (score, updated_at, id) of one hit; lower score is better (FTS5 bm25 is negative).
Hit = tuple[float, str, str]
Eligible = Callable[[list[tuple[int, float]]], list[Hit]]


class Split(Record):
    """A query's phrases in two groups (repeats kept) as MATCH expressions, and the most
    the common ones can add to a note's score."""

    __slots__ = ("common", "common_bound", "full", "rare")

    def __init__(self, rare: str, common: str, common_bound: float, full: str) -> None:
        self.rare = rare
        self.common = common
        self.common_bound = common_bound
        self.full = full  # the full query's expression


def most_added(doc_freq: int, total: int) -> float:
    """An upper bound on what one phrase found in ``doc_freq`` of ``total`` notes adds to
    any note's BM25 (as a positive number): term frequency saturates below ``k1 + 1``."""
    idf = math.log((total - doc_freq + 0.5) / (doc_freq + 0.5))
    return max(idf, IDF_FLOOR) * (K1 + 1)


def split_query(
    tokens: Sequence[str],
    doc_freq: Callable[[str], int],
    total: int,
    want: int,
    expression: Callable[[Sequence[str]], str],
) -> Split | None:
    """The rare/common split of ``tokens`` for the best ``want`` notes, or None when it
    could not prove the answer or would not save work. ``expression`` builds a MATCH
    expression from tokens (spec 002's quoting)."""
    if total <= 0:
        return None
    freq = [(token, doc_freq(token)) for token in tokens]  # repeats kept: each a phrase
    rare = [(token, n) for token, n in freq if n < COMMON_SHARE * total]
    common = [(token, n) for token, n in freq if n >= COMMON_SHARE * total]
    rare_postings = sum(n for _token, n in rare)
    common_postings = sum(n for _token, n in common)
    if not common or rare_postings < want or common_postings < rare_postings:
        return None  # fewer notes hold a rare word than are wanted, or little to skip
    # 1 % headroom: FTS5 counts its own rows, which a concurrent writer may have moved.
    bound = sum(most_added(n, total) for _token, n in common) * 1.01
    if sum(most_added(n, total) for _token, n in rare) < MIN_RARE_WEIGHT * bound:
        return None
    return Split(
        expression([token for token, _n in rare]),
        expression([token for token, _n in common]),
        bound,
        expression(tokens),
    )


def top_by_rare_first(
    conn: sqlite3.Connection, split: Split, want: int, eligible: Eligible
) -> list[Hit] | None:
    """The best ``want`` eligible hits, exactly as the full OR query ranks them, or None
    when two narrower queries cannot prove that (the caller then runs the full query)."""
    limit = want + MARGIN
    by_rare = conn.execute(RANK_SQL, (split.rare, limit)).fetchall()
    both_query = f"({split.rare}) AND ({split.common})"
    both = conn.execute(RANK_SQL, (both_query, limit)).fetchall()
    full: dict[int, float] = dict(both)
    # The best score a note neither query returned can have.
    floor = -split.common_bound
    if len(both) == limit:
        floor = min(floor, both[-1][1])
    if len(by_rare) == limit:
        floor = min(floor, by_rare[-1][1])
    for rowid, score in by_rare:
        # Not among the notes holding both kinds of words: either it holds rare words only,
        # and its rare score is its whole score, or it lies past that query's limit, and
        # then its rare score is no better than the floor, so it is never chosen below.
        full.setdefault(rowid, score)
    hits = eligible(list(full.items()))
    if len(hits) < want or not hits[want - 1][0] < floor - _tolerance(floor):
        return None
    return _with_ties_rescored(conn, split.full, hits, want)


def _with_ties_rescored(
    conn: sqlite3.Connection, full: str, hits: list[Hit], want: int
) -> list[Hit] | None:
    """The best ``want`` hits, after scoring again by the full query every hit that lies
    within rounding of a neighbour it might swap places with."""
    close: set[int] = set()
    for i, (a, b) in enumerate(pairwise(hits)):
        if b[0] - a[0] <= _tolerance(a[0]):
            close.update((i, i + 1))
        elif i >= want - 1:
            break  # past the last wanted hit, and no tie reaches back into it
    if not close:
        return hits[:want]
    if len(close) > MAX_RESCORED:
        return None  # a crowd of equal notes: one full query costs less
    return rescored(conn, full, hits, close)[:want]


def rescored(
    conn: sqlite3.Connection, expression: str, hits: list[Hit], marked: set[int]
) -> list[Hit]:
    """``hits`` with the marked ones scored again by ``expression``, in spec order."""
    result = list(hits)
    for i in marked:
        score, updated, memory_id = hits[i]
        row = conn.execute(ONE_SCORE_SQL, (expression, memory_id)).fetchone()
        # No row: the note left the index meanwhile; its old score still orders it.
        result[i] = (row[0] if row is not None else score, updated, memory_id)
    return in_spec_order(result)


def in_spec_order(hits: list[Hit]) -> list[Hit]:
    """bm25 ascending, then updated_at descending, then id descending (two stable sorts)."""
    hits.sort(key=lambda hit: (hit[1], hit[2]), reverse=True)
    hits.sort(key=lambda hit: hit[0])
    return hits


def _tolerance(score: float) -> float:
    return _CLOSE * max(1.0, abs(score))
