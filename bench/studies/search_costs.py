"""Where keyword search time goes in a large store, fitted to FTS5's two costs.

store_bench.py reports the 100,000-note search p95 against its 20 ms target; this script
explains the figure. It runs the benchmark queries through the store's ranker with every
SQL statement timed, then times each distinct FTS5 ranking statement again and fits its
time to what FTS5 does in it:

* bm25()'s set-up counts every posting (note holding the phrase) of every phrase in the
  statement, however few rows the statement returns (``xQueryPhrase`` in fts5_aux.c);
* bm25() then scores every row the MATCH expression matches.

It prints the fitted cost of a counted posting and of a scored row, the share of ranking
time spent in those statements, and for the slowest queries how many postings and rows
their statements hold. Not in ``bench.suites``, which ``nox -s bench`` runs: building a
100,000-note store takes minutes. ``--root`` reuses a store it built before.

    python -m bench.studies.search_costs [--notes 100000] [--root DIR]
"""

from __future__ import annotations

import json
import re
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

from anamnesis.store.index.db import connect
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.search.query import Ranker, query_tokens
from anamnesis.store.search.rare_first import RANK_SQL
from bench.common import corpus
from bench.common.large_store import ensure_store, store_arguments
from bench.common.stats import p95

_PHRASE = re.compile(r'"([^"]*)"')
# Timed rounds over the queries, after one untimed round (term counts get cached).
ROUNDS = 2
# Each distinct ranking statement is timed this often for the fit; the fastest run is the
# one least disturbed by the rest of the machine (the work itself does not vary).
REPEATS = 5


class Statement:
    """One executed statement: its SQL, parameters and time (execute and fetch)."""

    __slots__ = ("params", "seconds", "sql")

    def __init__(self, sql: str, params: Sequence[Any], seconds: float) -> None:
        self.sql = sql
        self.params = tuple(params)
        self.seconds = seconds


class TimedConnection:
    """Stands in for the ranker's connection and records every statement it runs.

    Each statement is fetched in full at once, so its time covers all of SQLite's work.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.log: list[Statement] = []

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Fetched:
        started = time.perf_counter()
        rows = self.conn.execute(sql, params).fetchall()
        self.log.append(Statement(sql, params, time.perf_counter() - started))
        return _Fetched(rows)

    @property
    def total_changes(self) -> int:
        return self.conn.total_changes


class _Fetched:
    def __init__(self, rows: list[Any]) -> None:
        self.rows = rows

    def fetchall(self) -> list[Any]:
        return self.rows

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None


class StatementCost:
    """What FTS5 does in one ranking statement, and how long it takes (fastest run)."""

    __slots__ = ("postings", "rows", "seconds")

    def __init__(self, postings: int, rows: int, seconds: float) -> None:
        self.postings = postings
        self.rows = rows
        self.seconds = seconds


def main() -> None:
    args = store_arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="anamnesis-costs-") as tmp:
        root: Path = args.root or Path(tmp)
        report(measure(ensure_store(root, args.notes), corpus.queries()))


def measure(db_path: Path, queries: list[str]) -> dict[str, Any]:
    conn = connect(db_path)
    timed = TimedConnection(conn)
    ranker = Ranker(cast(sqlite3.Connection, timed))
    per_query: dict[str, list[tuple[float, float]]] = {}
    statements_of: dict[str, list[str]] = {}  # each query's ranking statements' expressions
    for round_ in range(ROUNDS + 1):
        for query in queries:
            timed.log.clear()
            started = time.perf_counter()
            ranker.ranked_ids(query_tokens(query), Filters(), 8)
            total = time.perf_counter() - started
            ranking = [s for s in timed.log if s.sql == RANK_SQL]
            if round_:
                per_query.setdefault(query, []).append((total, sum(s.seconds for s in ranking)))
            else:
                per_query[query] = []
                statements_of[query] = [str(s.params[0]) for s in ranking]
    costs = {expression: _cost(conn, expression) for expression in _distinct(statements_of)}
    notes: int = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    conn.close()
    fit = fit_costs(list(costs.values()))
    # Each query's median over the rounds; the p95 is over queries.
    totals = sorted(statistics.median(t for t, _ in v) for v in per_query.values())
    slowest = sorted(per_query, key=lambda q: -statistics.median(t for t, _ in per_query[q]))
    tail = slowest[: max(1, len(slowest) // 20)]
    return {
        "notes": notes,
        "queries": len(queries),
        "ranking_median_ms": statistics.median(totals) * 1000,
        "ranking_p95_ms": p95(totals) * 1000,
        "fts5_share": sum(r for v in per_query.values() for _, r in v)
        / sum(t for v in per_query.values() for t, _ in v),
        "ns_per_counted_posting": fit[1] * 1e9,
        "us_per_scored_row": fit[2] * 1e6,
        "us_per_statement": fit[0] * 1e6,
        "fit_r2": fit[3],
        "tail": [_tail_row(q, per_query[q], statements_of[q], costs) for q in tail],
    }


def _distinct(by_query: dict[str, list[str]]) -> list[str]:
    return sorted({expression for expressions in by_query.values() for expression in expressions})


def _cost(conn: sqlite3.Connection, expression: str) -> StatementCost:
    count = "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?"
    postings = sum(conn.execute(count, (f'"{p}"',)).fetchone()[0] for p in _phrases(expression))
    rows = conn.execute(count, (expression,)).fetchone()[0]
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        conn.execute(RANK_SQL, (expression, 32)).fetchall()
        samples.append(time.perf_counter() - started)
    return StatementCost(postings, rows, min(samples))


def _phrases(expression: str) -> list[str]:
    """Every phrase bm25() counts: each quoted phrase, repeats and NOT operands included."""
    return _PHRASE.findall(expression)


def fit_costs(costs: list[StatementCost]) -> tuple[float, float, float, float]:
    """Least squares ``seconds = c + a * postings + b * rows``: (c, a, b, R squared)."""
    xs = [(1.0, float(c.postings), float(c.rows)) for c in costs]
    ys = [c.seconds for c in costs]
    gram = [[sum(x[i] * x[j] for x in xs) for j in range(3)] for i in range(3)]
    moment = [sum(x[i] * y for x, y in zip(xs, ys, strict=True)) for i in range(3)]
    c, a, b = _solve(gram, moment)
    mean = statistics.fmean(ys)
    residual = sum((y - (c + a * x[1] + b * x[2])) ** 2 for x, y in zip(xs, ys, strict=True))
    spread = sum((y - mean) ** 2 for y in ys)
    return c, a, b, 1.0 - residual / spread if spread else 1.0


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (3 unknowns: no numpy needed)."""
    rows = [[*row, value] for row, value in zip(matrix, vector, strict=True)]
    size = len(rows)
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, size):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    result = [0.0] * size
    for r in reversed(range(size)):
        known = sum(rows[r][c] * result[c] for c in range(r + 1, size))
        result[r] = (rows[r][size] - known) / rows[r][r]
    return result


def _tail_row(
    query: str,
    samples: list[tuple[float, float]],
    expressions: list[str],
    costs: dict[str, StatementCost],
) -> dict[str, Any]:
    return {
        "query": query,
        "ms": statistics.median(t for t, _ in samples) * 1000,
        "fts5_ms": statistics.median(r for _, r in samples) * 1000,
        "statements": len(expressions),
        "postings_counted": sum(costs[e].postings for e in expressions),
        "rows_scored": sum(costs[e].rows for e in expressions),
    }


def report(result: dict[str, Any]) -> None:
    print(f"\n== where search time goes: {result['notes']:,} notes, {result['queries']} queries ==")
    print(
        f"ranking (per query, median of {ROUNDS} rounds): median"
        f" {result['ranking_median_ms']:.1f} ms, p95 {result['ranking_p95_ms']:.1f} ms;"
        f" {result['fts5_share']:.0%} of it in FTS5 ranking statements"
    )
    print(
        f"fit (R^2 {result['fit_r2']:.2f}): {result['ns_per_counted_posting']:.0f} ns per"
        f" counted posting + {result['us_per_scored_row']:.2f} us per scored row"
        f" + {result['us_per_statement']:.0f} us per statement"
    )
    print("slowest 5 % (per query: ms, of it FTS5, statements, postings counted, rows scored):")
    for row in result["tail"]:
        print(
            f"  {row['ms']:6.1f} {row['fts5_ms']:6.1f} {row['statements']:2d}"
            f" {row['postings_counted']:8,d} {row['rows_scored']:7,d}  {row['query'][:60]}"
        )
    print(json.dumps({"bench": "search_costs", **result}))


if __name__ == "__main__":
    main()
