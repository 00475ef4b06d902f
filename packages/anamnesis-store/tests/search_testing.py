"""Helpers of the search tests: spec 002's literal SQL to compare against, random and
Zipf-shaped stores, and switches for rare-first planning."""

from __future__ import annotations

import random
import sqlite3

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.search import rare_first
from anamnesis.store.search.query import match_expression, query_tokens
from anamnesis.store.search.rare_first import Hit

# --- differential: the store against the spec's literal SQL --------------------------------

SPEC_SQL = (
    "SELECT m.id FROM memories_fts f JOIN memories m ON m.seq = f.rowid WHERE memories_fts MATCH ?"
    "{filters} AND m.id NOT IN (SELECT superseded_id FROM memory_supersedes)"
    " ORDER BY bm25(memories_fts), m.updated_at DESC LIMIT ?"
)
WORDS = [
    "the", "a", "to", "of", "and", "in", "is", "for", "on", "with",
    "sqlite", "lock", "error", "deploy", "staging", "database", "migration", "cache",
    "redis", "token", "rotate", "secret", "build", "flaky", "test", "login", "timeout",
    "retry", "queue", "worker", "cron", "backup", "restore", "index", "vacuum",
]  # fmt: skip


def _random_store(store: MemoryStore, rng: random.Random, size: int) -> list[str]:
    ids: list[str] = []
    for i in range(size):
        words = rng.choices(WORDS, k=rng.randint(3, 60))
        supersedes = [rng.choice(ids)] if ids and rng.random() < 0.1 else []
        mem = store.write(
            type=rng.choice(["semantic", "procedural", "episodic"]),
            title=" ".join(rng.choices(WORDS, k=rng.randint(1, 6))),
            body=" ".join(words),
            project=rng.choice(["p", "q", "global"]),
            tags=rng.sample(WORDS, rng.randint(0, 2)),
            supersedes=supersedes,
        )
        # distinct, deterministic timestamps so the tie-break is well defined
        ts = f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00"
        store.put(mem.replace(created_at=ts, updated_at=ts))
        ids.append(mem.id)
    return ids


def _spec_ids(
    conn: sqlite3.Connection, tokens: list[str], limit: int, project: str | None = None
) -> list[str]:
    """The ids spec 002's literal SQL returns, best first (filtered by project, if given)."""
    where, params = (" AND m.project = ?", [project]) if project else ("", [])
    sql = SPEC_SQL.format(filters=where)
    return [row[0] for row in conn.execute(sql, [match_expression(tokens), *params, limit])]


def _assert_every_hit_where_the_spec_puts_it(
    conn: sqlite3.Connection, query: str, ranked: list[Hit], k: int, project: str | None = None
) -> None:
    """Every hit a ranking returned, not only the ``k`` asked for, is in the spec's place,
    and it returned at least ``k`` where that many notes match."""
    spec = _spec_ids(conn, query_tokens(query), max(k, len(ranked)), project)
    assert len(ranked) >= min(k, len(spec)), query
    ranked_ids = [memory_id for _score, _updated, memory_id in ranked]
    assert _scores(conn, query, ranked_ids) == _scores(conn, query, spec[: len(ranked)]), query


def _scores(conn: sqlite3.Connection, query: str, ids: list[str]) -> list[tuple[float, str]]:
    rows = dict(
        conn.execute(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts f JOIN memories m ON m.seq = f.rowid"
            " WHERE memories_fts MATCH ?",
            (match_expression(query_tokens(query)),),
        ).fetchall()
    )
    updated = dict(conn.execute("SELECT id, updated_at FROM memories").fetchall())
    return [(round(rows[i], 9), updated[i]) for i in ids]


# --- rare words first: the same answers as the full query, proven on a Zipf store ------------


def _counting_rounds(patch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the rounds rare-first ranking plans: "widened", those ranking the notes of
    newly essential words; "bounded", those of them leaving the notes that hold only the
    new words unranked (the new words could not reach the k-th hit)."""
    counts = {"widened": 0, "bounded": 0}
    round_queries = rare_first._round_queries

    def counting(
        plan: rare_first.Plan, done: int, essential: int, *, alone: bool = True
    ) -> list[str]:
        counts["widened"] += done > 0
        counts["bounded"] += not alone
        return round_queries(plan, done, essential, alone=alone)

    patch.setattr(rare_first, "_round_queries", counting)
    return counts


def _zipf_store(store: MemoryStore, rng: random.Random) -> list[str]:
    """500 notes of words drawn by Zipf's law, some superseded, with distinct timestamps;
    the vocabulary, commonest word first."""
    vocabulary = [f"w{i}" for i in range(300)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    ids: list[str] = []
    for i in range(500):
        mem = store.write(
            type=rng.choice(["semantic", "episodic"]),
            title=" ".join(rng.choices(vocabulary, weights, k=rng.randint(1, 4))),
            body=" ".join(rng.choices(vocabulary, weights, k=rng.randint(5, 80))),
            project=rng.choice(["p", "q"]),
            supersedes=[rng.choice(ids)] if ids and rng.random() < 0.05 else [],
        )
        ts = f"2026-01-01T{i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}+00:00"
        store.put(mem.replace(created_at=ts, updated_at=ts))
        ids.append(mem.id)
    return vocabulary


def _plan_by_budget(patch: pytest.MonkeyPatch, share: float) -> None:
    """Plan as in a large store, with essential words holding ``share`` of the notes
    (shares this small make most queries take the shortcut at a few hundred notes)."""
    patch.setattr(rare_first, "LARGE_STORE", 0)
    patch.setattr(rare_first, "ESSENTIAL_SHARE", share)


def _plan_small(patch: pytest.MonkeyPatch) -> None:
    """Plan as in a small store, however few notes a plan would skip (at a few hundred
    notes it would skip too few to be tried at all)."""
    patch.setattr(rare_first, "MIN_SKIPPED", 0)


def _never_plan(patch: pytest.MonkeyPatch) -> None:
    """Always run the full query."""
    patch.setattr(rare_first, "plan_query", lambda *_args: None)
