"""The least FTS5 time exact ranking by rare words first could take in a large store.

search_costs.py shows where the ranker's time goes; this script asks how far better
planning could take it. For each benchmark query it looks up the answer first (the full
query's 8th best score, ``theta``), which no real search knows in advance, and then finds
the fastest plan of the shape rare_first.py runs (MaxScore over FTS5):

* the fewest rarest words whose notes must be ranked (*essential*): the words after them
  together add less than ``theta`` to any note, so a note holding none of the essential
  words cannot be among the best 8;
* the essential words cut into rounds, rarest first. A round ranks the notes holding its
  words and a later word, and (only when its words alone could reach ``theta``) those
  holding its words alone; both skip notes holding an earlier round's words (NOT).

Every cut is timed, each statement the fastest of a few runs, and the cheapest cut (or
the full query, when faster) is the query's floor. The script also counts *candidates*:
notes whose essential words' score plus what the other words could add still reaches
``theta``. Each needs its full score: FTS5 gives it by scoring rows, and Python
(exact_bm25.py, timed on a sample) far more slowly.

    python -m bench.studies.search_floor [--notes 100000] [--root DIR]
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from anamnesis.store.index.db import connect
from anamnesis.store.search import exact_bm25
from anamnesis.store.search.query import match_expression, query_tokens
from anamnesis.store.search.rare_first import RANK_SQL, Plan
from bench.common import corpus
from bench.common.large_store import ensure_store, store_arguments
from bench.common.stats import p95
from bench.common.store_targets import BIG_TARGETS

K = 8
# Each statement is timed this often; the fastest run is the least disturbed one.
REPEATS = 3
# The 100,000-note search p95 target (seconds).
TARGET_P95 = BIG_TARGETS["search_p95_ms"] / 1000
# Candidates per query whose full score is recomputed in Python, to time that per note.
SAMPLE = 64


class QueryFloor:
    """One query's floor (seconds) and what it is made of."""

    __slots__ = (
        "candidates",
        "essential",
        "floor",
        "full",
        "groups",
        "python_each",
        "query",
        "words",
    )

    def __init__(self, query: str, full: float) -> None:
        self.query = query
        self.full = full
        self.floor = full
        self.python_each: float | None = None  # not recomputable here (a non-ASCII word)
        self.candidates = self.essential = self.words = 0
        self.groups = 0  # rounds of the fastest plan; 0: the full query is faster


class Counts:
    """How many notes hold each word (FTS5's own count), and how many notes there are."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.total: int = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
        self._freq: dict[str, int] = {}

    def freq(self, token: str) -> int:
        if token not in self._freq:
            self._freq[token] = self.conn.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (f'"{token}"',)
            ).fetchone()[0]
        return self._freq[token]

    def clamped(self, token: str) -> bool:
        """FTS5 gives a word in half the notes or more an IDF of 1e-6, and the ranker
        ranks without such words first (query.py), so the floor leaves them out too."""
        return self.freq(token) * 2 >= self.total


def main() -> None:
    args = store_arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="anamnesis-floor-") as tmp:
        db_path = ensure_store(args.root or Path(tmp), args.notes)
        conn = connect(db_path)
        counts = Counts(conn)
        floors = [query_floor(conn, counts, query) for query in corpus.queries()]
        conn.close()
        report(counts.total, floors)


def query_floor(conn: sqlite3.Connection, counts: Counts, query: str) -> QueryFloor:
    tokens = [t for t in query_tokens(query) if not counts.clamped(t)]
    full = match_expression(tokens)
    elapsed, rows = _fastest(lambda: conn.execute(RANK_SQL, (full, K)).fetchall())
    result = QueryFloor(query, elapsed)
    repeats: dict[str, list[str]] = {}
    for token in tokens:
        repeats.setdefault(token, []).append(token)
    if len(repeats) < 2 or len(rows) < K:
        return result  # one word, or fewer notes than wanted: the full query is the floor
    theta = -rows[K - 1][1]
    plan = Plan(repeats, {t: counts.freq(t) for t in repeats}, counts.total, match_expression)
    essential = 1
    while essential < len(plan.words) and plan.rest_bound(essential) >= theta:
        essential += 1
    result.words, result.essential = len(plan.words), essential
    if essential < len(plan.words):  # else every word is essential: the full query it is
        best, groups = _best_rounds(conn, plan, essential, theta)
        if best < result.full:
            result.floor, result.groups = best, groups
    ranked = match_expression(plan.phrases(0, essential))
    rest = plan.rest_bound(essential)
    every = conn.execute(RANK_SQL, (ranked, -1)).fetchall()
    candidates = [rowid for rowid, score in every if rest - score >= theta]
    result.candidates = len(candidates)
    result.python_each = _python_each(conn, counts, tokens, full, candidates[:SAMPLE])
    return result


def _best_rounds(
    conn: sqlite3.Connection, plan: Plan, essential: int, theta: float
) -> tuple[float, int]:
    """The fastest way to cut the essential words into rounds (rarest first, as
    rare_first.py does) when ``theta`` is known, and how many rounds it takes: each round's
    words are ranked with the words after them, and alone only when they could reach
    ``theta`` alone; both skip the notes holding an earlier round's words (NOT)."""
    fastest: dict[int, tuple[float, int]] = {0: (0.0, 0)}
    for stop in range(1, essential + 1):
        options = []
        for start in range(stop):
            cost = _round_seconds(conn, plan, start, stop, theta)
            before, rounds = fastest[start]
            options.append((before + cost, rounds + 1))
        fastest[stop] = min(options)
    return fastest[essential]


def _round_seconds(
    conn: sqlite3.Connection, plan: Plan, start: int, stop: int, theta: float
) -> float:
    new = f"({match_expression(plan.phrases(start, stop))})"
    later = plan.phrases(stop, len(plan.words))
    expressions = [f"({new} AND ({match_expression(later)}))"]
    if plan.bound(start, stop) >= theta:
        expressions.append(new)
    if start:
        earlier = match_expression(plan.phrases(0, start))
        expressions = [f"{e} NOT ({earlier})" for e in expressions]
    return sum(_statement_seconds(conn, expression) for expression in expressions)


def _statement_seconds(conn: sqlite3.Connection, expression: str) -> float:
    return _fastest(lambda: conn.execute(RANK_SQL, (expression, K)).fetchall())[0]


def _python_each(
    conn: sqlite3.Connection, counts: Counts, tokens: list[str], full: str, rowids: list[int]
) -> float | None:
    """Seconds per note to recompute the full query's score in Python (exact_bm25)."""
    if not rowids:
        return 0.0
    started = time.perf_counter()
    computed = exact_bm25.scores(conn, tokens, full, counts.freq, counts.total, rowids)
    elapsed = time.perf_counter() - started
    return None if computed is None else elapsed / len(rowids)


def _fastest(run: Callable[[], list[Any]]) -> tuple[float, list[Any]]:
    samples: list[float] = []
    rows: list[Any] = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        rows = run()
        samples.append(time.perf_counter() - started)
    return min(samples), rows


def _median_p95(values: Sequence[float]) -> tuple[float, float]:
    return statistics.median(values), p95(values)


def report(notes: int, floors: list[QueryFloor]) -> None:
    split = [f for f in floors if f.words]
    figures = {
        "full_query_ms": _median_p95([f.full * 1000 for f in floors]),
        "floor_ms": _median_p95([f.floor * 1000 for f in floors]),
        "candidates": _median_p95([float(f.candidates) for f in split]),
        "python_ms_for_all_candidates": _median_p95(
            [f.python_each * f.candidates * 1000 for f in split if f.python_each is not None]
        ),
    }
    print(f"\n== least FTS5 time, given the answer: {notes:,} notes, {len(floors)} queries ==")
    print(f"{len(split)} queries have words enough to split; each figure is (median, p95):")
    for name, (median, high) in figures.items():
        print(f"  {name:>30}: {median:9.1f} {high:9.1f}")
    over = sum(1 for f in floors if f.floor > TARGET_P95)
    print(f"{over} of {len(floors)} queries have a floor above {TARGET_P95 * 1000:.0f} ms")
    print("highest floors (ms: floor, full query; rounds; essential words; candidates):")
    for f in sorted(floors, key=lambda f: -f.floor)[: max(1, len(floors) // 20)]:
        print(
            f"  {f.floor * 1000:6.1f} {f.full * 1000:6.1f}  {f.groups}"
            f"  {f.essential:2d}/{f.words:2d}  {f.candidates:6,d}  {f.query[:50]}"
        )
    print(
        json.dumps({"bench": "search_floor", "notes": notes, "floors_over_target": over, **figures})
    )


if __name__ == "__main__":
    main()
