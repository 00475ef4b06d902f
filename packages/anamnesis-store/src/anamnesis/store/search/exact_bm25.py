"""The full query's bm25 for a few notes, to the last bit: recomputed, or asked of FTS5.

Settling a near tie needs the full query's own score for a handful of notes. Asked of
FTS5 (:func:`fts5_scores`, all the notes in one statement), that costs bm25's set-up: a
count of every phrase over the whole table, about 3.5 ms for each phrase found in most of
100,000 notes. Recomputing (:func:`scores`) costs a pass over each note's text per phrase
instead, about 32 us for a 4 KB note: cheaper in a large store, dearer in a small one, so
the caller passes what asking FTS5 would cost (:func:`fts5_cost_us`) and :func:`scores`
declines when it would cost more. It runs the same formula (``fts5Bm25Function`` in
SQLite's fts5_aux.c) in Python on the same inputs:

* the row count and total token count from FTS5's averages record, and each note's
  token count from its docsize record (both SQLite varints);
* each phrase's note count, which the ranker has already counted (exact below half of
  all notes; at or above half FTS5 floors the IDF to 1e-6, so the exact count is moot);
* each phrase's occurrences in each note, counted from ``highlight()``, which re-reads one
  note and does no counting pass. A search may settle ties twice (without and with the
  words FTS5 weighs at almost nothing), usually among the same notes: an
  :class:`Occurrences` kept for the search counts each phrase in each note once.

The arithmetic is IEEE doubles in FTS5's own order, with the same libm ``log``. Whether
this build of SQLite agrees is checked once per process against FTS5 itself; if it does
not (a compiler fusing multiply-adds, say), or a phrase is more than one plain ASCII word,
:func:`scores` returns None and the caller asks FTS5.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence

# fts5_aux.c: k1, b, and the IDF given to a phrase in at least half of all rows.
K1 = 1.2
B = 0.75
IDF_FLOOR = 1e-6
# FTS5 keeps its averages (row count, then total tokens per column) in this data record.
_AVERAGES_ID = 1
# Put before each highlighted phrase instance: characters a note is very unlikely to hold
# (a note holding them is simply scored by FTS5 instead).
_MARK = "\ue000\U000f0000"
_COLUMNS = ("title", "body", "tags")

_HIGHLIGHTS_SQL = (
    "SELECT rowid, "
    + ", ".join(f"highlight(memories_fts, {i}, ?, '')" for i in range(len(_COLUMNS)))
    + " FROM memories_fts WHERE memories_fts MATCH ? AND rowid IN ({marks})"
)
# One note's score under an expression, asked of FTS5 (which first counts every phrase).
FTS5_SCORE_SQL = (
    "SELECT bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ? AND rowid = ?"
)
# Several notes' scores in one statement. The unary plus keeps the rowids from FTS5: given
# them, it would run the query (and bm25's set-up) once per rowid; without, it walks the
# notes the expression matches (about 0.045 us each) and scores only the listed ones.
_FTS5_SCORES_SQL = (
    "SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?"
    " AND +rowid IN ({marks})"
)
# What each way costs, in microseconds, measured at 2,000 notes of ~4 KB (bench/common/corpus.py's
# zipf corpus): recomputing, per token of a note counted for one phrase (highlight()
# tokenizes the note again: 32 us for a 4 KB note); asking FTS5, per phrase of the
# expression and per note holding one (bm25's count, then the MATCH's walk).
RECOMPUTE_US_PER_TOKEN = 0.05
FTS5_US_PER_PHRASE = 25.0
FTS5_US_PER_POSTING = 0.075

# Whether this process's SQLite computes bm25 exactly as below: None until first checked.
_agrees_with_fts5: bool | None = None


class Occurrences:
    """How often each phrase occurs in each note, for the notes counted so far.

    Valid only while the index does not change under it: keep one per search, which reads
    one snapshot of the index.
    """

    __slots__ = ("counts",)

    def __init__(self) -> None:
        # phrase -> rowid -> occurrences, for every note counted (0 where it has none)
        self.counts: dict[str, dict[int, int]] = {}


def scores(
    conn: sqlite3.Connection,
    tokens: Sequence[str],
    expression: str,
    doc_freq: Callable[[str], int],
    total: int,
    rowids: Sequence[int],
    seen: Occurrences | None = None,
    budget_us: float = math.inf,
) -> dict[int, float] | None:
    """The bm25 score FTS5 gives each of ``rowids`` under ``expression``, the OR of
    ``tokens`` (spec 002's quoted phrases, in order, repeats kept), or None when it cannot
    be recomputed here, or would cost more than ``budget_us``. ``doc_freq`` counts a
    phrase's notes among ``total`` exactly below half of them, and at least half of them
    otherwise. ``seen``: the occurrences this search has already counted (added to as
    notes are counted)."""
    global _agrees_with_fts5
    if _agrees_with_fts5 is False or not rowids:
        return None
    if not all(token.isascii() and token.isalnum() for token in tokens):
        return None  # one unicode61 token per phrase only: plain ASCII letters and digits
    known = seen if seen is not None else Occurrences()
    computed = _computed(conn, tokens, doc_freq, total, rowids, known, budget_us)
    if computed is None or _agrees_with_fts5:
        return computed
    rowid = rowids[0]
    row = conn.execute(FTS5_SCORE_SQL, (expression, rowid)).fetchone()
    if row is None:
        return None  # that note left the index meanwhile: check another time
    _agrees_with_fts5 = row[0] == computed[rowid]
    return computed if _agrees_with_fts5 else None


def _computed(
    conn: sqlite3.Connection,
    tokens: Sequence[str],
    doc_freq: Callable[[str], int],
    total: int,
    rowids: Sequence[int],
    seen: Occurrences,
    budget_us: float,
) -> dict[int, float] | None:
    averages = conn.execute(
        "SELECT block FROM memories_fts_data WHERE id = ?", (_AVERAGES_ID,)
    ).fetchone()
    if averages is None:
        return None
    totals = _varints(averages[0])
    rows, tokens_in_all = totals[0], sum(totals[1:])
    if rows <= 0 or rows != total:
        return None  # the counts came from another state of the index
    avgdl = float(tokens_in_all) / float(rows)
    if _missing(tokens, rowids, seen) * avgdl * RECOMPUTE_US_PER_TOKEN > budget_us:
        return None  # asking FTS5 costs less
    idf: dict[str, float] = {}
    for token in tokens:
        if token not in idf:
            hits = doc_freq(token)
            value = math.log((rows - hits + 0.5) / (hits + 0.5))
            idf[token] = value if value > 0.0 else IDF_FLOOR
    sizes = _sizes(conn, rowids)
    occurrences = _occurrences(conn, list(idf), rowids, seen)
    if occurrences is None:
        return None
    result: dict[int, float] = {}
    for rowid in rowids:
        if rowid not in sizes:
            return None
        size = float(sizes[rowid])
        score = 0.0
        for token in tokens:  # fts5Bm25Function, term by term, in phrase order
            freq = float(occurrences[token].get(rowid, 0))
            score += idf[token] * ((freq * (K1 + 1.0)) / (freq + K1 * (1 - B + B * size / avgdl)))
        result[rowid] = -1.0 * score
    return result


def _missing(tokens: Sequence[str], rowids: Sequence[int], seen: Occurrences) -> int:
    """How many (phrase, note) occurrence counts recomputing would still have to make."""
    missing = 0
    for token in set(tokens):
        counted = seen.counts.get(token, {})
        missing += sum(1 for rowid in rowids if rowid not in counted)
    return missing


def fts5_scores(
    conn: sqlite3.Connection, expression: str, rowids: Sequence[int]
) -> dict[int, float]:
    """The bm25 score FTS5 gives each of ``rowids`` under ``expression``, asked of FTS5 in
    one statement (a note the expression does not match is missing)."""
    if not rowids:
        return {}
    sql = _FTS5_SCORES_SQL.format(marks=",".join("?" * len(rowids)))
    return dict(conn.execute(sql, [expression, *rowids]).fetchall())


def fts5_cost_us(phrases: int, postings: int) -> float:
    """About what :func:`fts5_scores` costs for an expression of ``phrases`` phrases that
    ``postings`` (note, phrase) pairs match in all (repeats counted again)."""
    return phrases * FTS5_US_PER_PHRASE + postings * FTS5_US_PER_POSTING


def _sizes(conn: sqlite3.Connection, rowids: Sequence[int]) -> dict[int, int]:
    """Each note's token count over all columns (FTS5's ``xColumnSize(-1)``)."""
    marks = ",".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT id, sz FROM memories_fts_docsize WHERE id IN ({marks})", list(rowids)
    ).fetchall()
    return {rowid: sum(_varints(blob)) for rowid, blob in rows}


def _occurrences(
    conn: sqlite3.Connection, distinct: list[str], rowids: Sequence[int], seen: Occurrences
) -> dict[str, dict[int, int]] | None:
    """How often each phrase occurs in each note, over all columns (weight 1 each);
    only the notes ``seen`` has not counted for a phrase are highlighted."""
    marks = ",".join("?" * len(rowids))
    texts = conn.execute(
        f"SELECT {', '.join(_COLUMNS)} FROM memories_text WHERE seq IN ({marks})", list(rowids)
    ).fetchall()
    if any(_MARK in (text or "") for row in texts for text in row):
        return None
    for token in distinct:
        counts = seen.counts.setdefault(token, {})
        missing = [rowid for rowid in rowids if rowid not in counts]
        if not missing:
            continue
        sql = _HIGHLIGHTS_SQL.format(marks=",".join("?" * len(missing)))
        marked = conn.execute(sql, [_MARK] * len(_COLUMNS) + [f'"{token}"', *missing])
        counts.update(dict.fromkeys(missing, 0))  # highlight() returns only notes holding it
        for row in marked.fetchall():
            counts[row[0]] = sum((text or "").count(_MARK) for text in row[1:])
    return {token: seen.counts[token] for token in distinct}


def _varints(blob: bytes) -> list[int]:
    """SQLite's varints (big-endian, 7 bits a byte, a ninth byte of 8), one after another."""
    values: list[int] = []
    i = 0
    while i < len(blob):
        value = 0
        for n in range(9):
            byte = blob[i]
            i += 1
            if n == 8:
                value = (value << 8) | byte
                break
            value = (value << 7) | (byte & 0x7F)
            if byte < 0x80:
                break
        values.append(value)
    return values
