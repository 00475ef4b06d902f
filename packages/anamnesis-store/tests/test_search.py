"""Keyword recall as spec 002 describes it."""

from __future__ import annotations

import random
import re
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anamnesis.store import InvalidQuery, Memory, MemoryStore, exact_bm25, query, rare_first
from anamnesis.store.query import Filters, Ranker, match_expression, query_tokens
from anamnesis.store.rare_first import Hit


def test_partial_overlap_is_recalled_not_only_full_matches(store: MemoryStore) -> None:
    mem = store.write(
        type="procedural",
        title="Use WAL mode for SQLite",
        body="Set busy_timeout on every connection to avoid lock errors.",
        project="p",
    )
    query = "how to configure a SQLite connection to avoid lock errors on concurrent writes"
    assert [m.id for m in store.search(query, project="p")] == [mem.id]


def test_stemming_matches_word_forms(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="Connections", body="pooling")
    assert [m.id for m in store.search("connection")] == [mem.id]


@pytest.mark.parametrize(
    "query",
    [
        "state-of-the-art",
        "16:9",
        '"unbalanced',
        "a AND b",
        "NOT x",
        "x NEAR y",
        "prefix*",
        "col:umn",
        "(paren",
        "^caret",
        "a + b",
        "'single'",
        "{braces}",
        "tab\tsep",
        "ünïcödé",
        "日本語",
    ],
)
def test_any_punctuation_is_safe(store: MemoryStore, query: str) -> None:
    store.write(type="semantic", title="state of the art", body="16 9 ratio")
    store.search(query)  # must not raise


@pytest.mark.parametrize("query", ["", "   ", "-", "!!!", ":::"])
def test_queries_without_words_return_nothing(store: MemoryStore, query: str) -> None:
    store.write(type="semantic", title="anything", body="b")
    assert store.search(query) == []


@given(st.text())
@settings(max_examples=200, deadline=None)
def test_query_builder_quotes_every_token(text: str) -> None:
    expression = match_expression(query_tokens(text))
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(x, tokenize='porter unicode61')")
    conn.execute("INSERT INTO t VALUES ('some text')")
    if expression:
        conn.execute("SELECT * FROM t WHERE t MATCH ?", (expression,)).fetchall()


def test_filters_and_default_span_both_scopes(store: MemoryStore) -> None:
    portable = store.write(type="semantic", title="findme", body="b", project="p")
    local = store.write(
        type="episodic", title="findme", body="b", project="p", scope="machine-local"
    )
    store.write(type="semantic", title="findme", body="b", project="other")
    assert {m.id for m in store.search("findme", project="p")} == {portable.id, local.id}
    assert [m.id for m in store.search("findme", project="p", scope="machine-local")] == [local.id]
    assert [m.id for m in store.search("findme", project="p", type="semantic")] == [portable.id]


def test_k_limits_and_is_validated(store: MemoryStore) -> None:
    for i in range(12):
        store.write(type="semantic", title=f"common {i}", body="b")
    assert len(store.search("common")) == 8
    assert len(store.search("common", k=3)) == 3
    for bad in (0, -1, 10_000, 2.5, True):
        with pytest.raises(InvalidQuery):
            store.search("common", k=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidQuery):
        store.search("x", type="recipe")


def test_bm25_ranks_first_and_recency_breaks_ties(store: MemoryStore) -> None:
    stamp = "2026-01-0{}T00:00:00+00:00"
    older = store.put(
        Memory(
            id="01J9Z8YPM7Q3X2V4WT6B5N0KG1",
            type="semantic",
            title="kubernetes",
            body="same",
            created_at=stamp.format(1),
            updated_at=stamp.format(1),
        )
    )
    newer = store.put(
        Memory(
            id="01J9Z8YPM7Q3X2V4WT6B5N0KG2",
            type="semantic",
            title="kubernetes",
            body="same",
            created_at=stamp.format(2),
            updated_at=stamp.format(2),
        )
    )
    better = store.put(
        Memory(
            id="01J9Z8YPM7Q3X2V4WT6B5N0KG3",
            type="semantic",
            title="kubernetes kubernetes",
            body="kubernetes",
            created_at=stamp.format(1),
            updated_at=stamp.format(1),
        )
    )
    assert [m.id for m in store.search("kubernetes")] == [better.id, newer.id, older.id]


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


@pytest.mark.parametrize("seed", range(6))
def test_search_matches_the_spec_sql(store: MemoryStore, seed: int) -> None:
    rng = random.Random(seed)
    _random_store(store, rng, 120)
    conn = store._connection()
    for _ in range(40):
        query = " ".join(rng.choices([*WORDS, "zzz", "unknownword"], k=rng.randint(1, 9)))
        project = rng.choice([None, "p", "global"])
        k = rng.choice([1, 3, 8, 20])
        expected = _spec_ids(conn, query_tokens(query), k, project)
        got = [m.id for m in store.search(query, project=project, k=k)]
        # The spec leaves the order of exact (score, updated_at) ties open; ours adds id.
        assert len(got) == len(expected), query
        assert _scores(conn, query, got) == _scores(conn, query, expected), query


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


def test_ranking_by_rare_words_first_changes_no_answer(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(3)
    vocabulary = _zipf_store(store, rng)
    conn = store._connection()
    ranker = store._ranker(conn)
    rounds = _counting_rounds(monkeypatch)
    # [failed to prove, proved] by each way of planning: split once, or by budget in rounds
    outcomes = {"split": [0, 0], "budget": [0, 0]}
    longer = 0  # rankings that returned more than the k hits asked for
    for _ in range(400):
        # Common words with rare ones: the case rare-first ranking is for.
        words = rng.choices(vocabulary[:8], k=rng.randint(1, 4))
        words += rng.choices(vocabulary[20:], k=rng.randint(1, 3))
        query = " ".join(rng.sample(words, len(words)))
        filters = Filters(project=rng.choice([None, "p"]))
        k = rng.choice([1, 3, 8, 20])
        tokens = query_tokens(query)
        policy = rng.choice(["split", "budget"])
        share = rng.choice([0.04, 0.12, 0.3])
        before = list(ranker.rare_first_outcomes)
        with monkeypatch.context() as patch:
            if policy == "budget":
                _plan_by_budget(patch, share)
            fast = ranker.ranked_ids(tokens, filters, k)
            # Every hit a ranking returns, not only the k asked for, is in its place.
            ranked = ranker._top(tokens, filters, k, exact_bm25.Occurrences())
        for i, count in enumerate(ranker.rare_first_outcomes):
            outcomes[policy][i] += count - before[i]
        with monkeypatch.context() as patch:
            _never_plan(patch)
            full = Ranker(conn).ranked_ids(tokens, filters, k)
        # The same notes in the same order; a score may differ in its last bit, as FTS5
        # summed the same phrases in another order.
        assert [i for i, _ in fast] == [i for i, _ in full], query
        assert [s for _, s in fast] == pytest.approx([s for _, s in full], rel=1e-12), query
        spec = _spec_ids(conn, tokens, k, filters.project)
        assert _scores(conn, query, [i for i, _ in fast]) == _scores(conn, query, spec), query
        longer += len(ranked) > k
        _assert_every_hit_where_the_spec_puts_it(conn, query, ranked, k, filters.project)
    assert longer > 100, longer  # rankings do prove more than was asked for
    for unproved, proved in outcomes.values():
        assert proved > 10, outcomes  # each shortcut really ran
        assert unproved > 0, outcomes  # and its fallback too
    assert rounds["widened"] > 10, rounds  # and the later rounds of planning by budget


def test_notes_holding_only_words_that_cannot_reach_the_kth_are_bounded_not_ranked(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Queries of mid-frequency words, planned by budget over several rounds: a later round
    # often adds words that together cannot lift a note to the k-th hit found so far, so
    # the notes holding only those are bounded instead of ranked. Every hit returned, and
    # not only the k asked for, must still be where the spec's query puts it.
    rng = random.Random(5)
    vocabulary = _zipf_store(store, rng)
    conn = store._connection()
    rounds = _counting_rounds(monkeypatch)
    for _ in range(300):
        words = rng.choices(vocabulary[:40], k=rng.randint(1, 4))
        words += rng.choices(vocabulary[40:], k=rng.randint(1, 2))
        tokens = query_tokens(" ".join(words))
        k = rng.choice([1, 3, 8, 20])
        with monkeypatch.context() as patch:
            _plan_by_budget(patch, rng.choice([0.04, 0.12, 0.3]))
            ranked = Ranker(conn)._top(tokens, Filters(), k, exact_bm25.Occurrences())
        _assert_every_hit_where_the_spec_puts_it(conn, " ".join(words), ranked, k)
    assert rounds["bounded"] > 20, rounds


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


def _never_plan(patch: pytest.MonkeyPatch) -> None:
    """Always run the full query: every word counts as rare, and no store is large."""
    patch.setattr(rare_first, "COMMON_SHARE", 2.0)
    patch.setattr(rare_first, "LARGE_STORE", 10**9)


@pytest.mark.parametrize("policy", ["split", "budget"])
def test_a_note_past_the_narrow_querys_limit_is_not_lost(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, policy: str
) -> None:
    # The rare word's query returns only its best rows, all in another project. The one
    # eligible note it returns is weak; a better eligible note lies past its limit, and
    # the proof must see that the limit's last row bounds it, not just the common word.
    limit = 1 + rare_first.MARGIN
    for i in range(limit + 5):
        store.write(type="semantic", title="strong", body=f"zeta zeta zeta filler{i}", project="p")
    hidden = store.write(type="semantic", title="hidden", body="zeta once here", project="q")
    weak = store.write(
        type="semantic",
        title="weak",
        body="zeta alpha " + " ".join(f"padding{i}" for i in range(10)),
        project="q",
    )
    for i in range(160):
        store.write(type="semantic", title="common", body=f"alpha filler{i}", project="p")
    for i in range(200):
        store.write(type="semantic", title="other", body=f"unrelated filler{i}", project="p")
    conn = store._connection()
    zeta_rows = conn.execute(rare_first.RANK_SQL, ('"zeta"', 10**6)).fetchall()
    seq = dict(conn.execute("SELECT id, seq FROM memories").fetchall())
    order = [rowid for rowid, _score in zeta_rows]
    assert order.index(seq[hidden.id]) >= limit  # past the narrow query's limit
    assert order.index(seq[hidden.id]) < order.index(seq[weak.id])  # and better than weak
    with monkeypatch.context() as patch:
        if policy == "budget":
            _plan_by_budget(patch, 0.05)
        ranker = Ranker(conn)
        got = ranker.ranked_ids(["zeta", "alpha"], Filters(project="q"), 1)
        assert sum(ranker.rare_first_outcomes) == 1  # the shortcut was tried
    assert [memory_id for memory_id, _score in got] == [hidden.id]


@pytest.mark.parametrize("recomputed", [True, False], ids=["recomputed", "asked-of-fts5"])
def test_near_tied_hits_take_the_full_querys_scores_and_order(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch, recomputed: bool
) -> None:
    # Scores that differ only in the last bits may come out of a narrower query in either
    # order; the full query's own score for each such note must decide.
    better = store.write(type="semantic", title="gateway timeout", body="gateway timeout twice")
    worse = store.write(type="semantic", title="gateway", body="unrelated words here")
    for i in range(6):  # so that "gateway" is in few enough notes to count for something
        store.write(type="semantic", title=f"filler {i}", body="nothing shared at all")
    conn = store._connection()
    full = match_expression(["gateway", "timeout"])
    by_fts5 = dict(
        conn.execute(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories m"
            " ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ?",
            (full,),
        ).fetchall()
    )
    assert by_fts5[better.id] < by_fts5[worse.id]
    # The narrower query's view: the two tied to the last bit, in the wrong order.
    tied = -1.5
    hits = [
        (tied, worse.updated_at, worse.id),
        (tied * (1 + 1e-12), better.updated_at, better.id),
    ]
    if recomputed:  # and never asked of FTS5
        monkeypatch.setattr(query, "FTS5_SCORE_SQL", "SELECT no_such_function()")
    else:  # as where this SQLite's bm25 arithmetic is not Python's
        monkeypatch.setattr(exact_bm25, "_agrees_with_fts5", False)
    exact = Ranker(conn)._exact_scores(["gateway", "timeout"], exact_bm25.Occurrences())
    assert rare_first._with_ties_rescored(hits, 2, exact) == [
        (by_fts5[better.id], better.updated_at, better.id),
        (by_fts5[worse.id], worse.updated_at, worse.id),
    ]
    # Well separated hits are returned as they are, without asking FTS5 again.
    apart = [(-3.0, worse.updated_at, worse.id), (-1.0, better.updated_at, better.id)]
    assert rare_first._with_ties_rescored(apart, 2, exact) == apart


def test_small_stores_split_once_and_large_ones_plan_by_budget() -> None:
    def plan(total: int, freq: dict[str, int]) -> rare_first.Plan | None:
        tokens = list(freq)  # query order: commonest first
        return rare_first.plan_query(tokens, freq.__getitem__, total, 8, match_expression)

    # 2,000 notes: the words in under a tenth of them are essential, for one round.
    small = plan(2_000, {"everywhere": 800, "common": 600, "mid": 60, "rare": 1})
    assert small is not None
    assert (small.words, small.first, small.rounds) == (
        [["rare"], ["mid"], ["common"], ["everywhere"]],
        2,
        1,
    )
    # 100,000 notes: the rarest words while they hold 6 % of the notes, widened in rounds.
    large = plan(100_000, {"everywhere": 40_000, "common": 30_000, "mid": 3_000, "rare": 50})
    assert large is not None
    assert (large.first, large.rounds) == (2, rare_first.MAX_ROUNDS)
    # Words that together hold under 6 % of the notes: the full query scores few enough.
    assert plan(100_000, {"mid": 3_000, "rare": 50}) is None
    # A split that would skip little: the common words hold fewer notes than the rare ones.
    assert plan(2_000, {"common": 200, "mid": 180, "rare": 160}) is None


def test_notes_tied_without_common_words_are_ordered_by_them(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Five notes alike but for how often they say "the" (a word in most notes, which
    # FTS5 weighs at 1e-6): without it they tie, with it the one saying it most wins.
    tied = []
    for n in (2, 5, 1, 4, 3):
        body = " ".join(["gateway"] + ["the"] * n + ["filler"] * (8 - n))
        tied.append((n, store.write(type="semantic", title="note", body=body)))
    for i in range(1, 8):  # other gateway notes, longer, so scoring clearly below the tie
        body = " ".join(["gateway", "the"] + [f"pad{j}" for j in range(8 + i * 5)])
        store.write(type="semantic", title="other", body=body)
    for i in range(30):
        store.write(type="semantic", title="filler", body=f"the filler {i}")
    conn = store._connection()
    calls: list[tuple[tuple[str, ...], int]] = []
    top = Ranker._top

    def recording(
        ranker: Ranker,
        tokens: list[str],
        filters: Filters,
        want: int,
        seen: exact_bm25.Occurrences,
    ) -> list[Hit]:
        calls.append((tuple(tokens), want))
        return top(ranker, tokens, filters, want, seen)

    monkeypatch.setattr(Ranker, "_top", recording)
    k = 3
    got = Ranker(conn).ranked_ids(["the", "gateway"], Filters(), k)
    # The tied notes, best first: the most "the", each a score of its own.
    assert [memory_id for memory_id, _score in got] == [
        mem.id for _n, mem in sorted(tied, key=lambda pair: pair[0], reverse=True)[:k]
    ]
    assert [memory_id for memory_id, _score in got] == _spec_ids(conn, ["the", "gateway"], k)
    # Settled without "the", by the first ranking: it returns every note it proves, so
    # it shows where the tie ends although that is past the k + 1 asked for.
    assert calls == [(("gateway",), k + 1)]


def test_a_search_settling_ties_twice_counts_each_word_in_each_note_once(
    store: MemoryStore,
) -> None:
    # Two identical best notes tie twice: ranked by the rarer words first (rare_first),
    # then again with "the" (in every note, which FTS5 weighs at 1e-6). Both settlings
    # need each word's count in both notes; the second only adds what the first lacked.
    for minute in range(2):  # told apart by updated_at alone, as the spec orders a tie
        twin = store.write(type="semantic", title="alpha note", body="alpha common the words")
        stamp = f"2026-01-01T00:0{minute}:00+00:00"
        store.put(twin.replace(created_at=stamp, updated_at=stamp))
    for i in range(8):
        pads = " ".join(f"pad{j}" for j in range(i + 3))
        store.write(type="semantic", title=f"alpha other {i}", body=f"alpha the {pads}")
    for i in range(80):
        store.write(type="semantic", title=f"c {i}", body=f"common the filler{i}")
    for i in range(110):
        store.write(type="semantic", title=f"f {i}", body=f"the filler{i}")
    conn = store._connection()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    ranker = Ranker(conn)
    tokens = ["the", "alpha", "common"]
    try:
        got = ranker.ranked_ids(tokens, Filters(), 3)
    finally:
        conn.set_trace_callback(None)
    assert [memory_id for memory_id, _score in got] == _spec_ids(conn, tokens, 3)
    assert ranker.rare_first_outcomes == [0, 1]
    counted = [
        (word, int(rowid))
        for sql in statements
        if "highlight(" in sql
        for word, rowids in re.findall(r"MATCH '\"(\w+)\"' AND rowid IN \(([\d,]+)\)", sql)
        for rowid in rowids.split(",")
    ]
    assert sorted({word for word, _rowid in counted}) == ["alpha", "common", "the"]
    assert len(counted) == len(set(counted)) == 6  # three words in two notes, once each


def test_a_hit_just_behind_the_kth_can_overtake_it_with_common_words() -> None:
    # Ranked without one clamped phrase (worth < 2.2e-6), "c" trails "b" by 1e-6: the
    # phrase may still put it ahead, so both are scored by the full query.
    hits = [
        (-3.0, "2026-01-01T00:00:00+00:00", "a"),
        (-2.0, "2026-01-01T00:00:00+00:00", "b"),
        (-2.0 + 1e-6, "2026-01-01T00:00:00+00:00", "c"),
        (-1.0, "2026-01-01T00:00:00+00:00", "d"),
    ]
    full = {"b": -2.0, "c": -2.0 - 1e-6}
    asked: list[list[str]] = []

    def exact(ids: list[str]) -> dict[str, float]:
        asked.append(sorted(ids))
        return {memory_id: full[memory_id] for memory_id in ids}

    settled = query._settled_without_clamped(hits, 2, 1, exact)
    assert settled is not None
    assert [memory_id for _score, _updated, memory_id in settled] == ["a", "c"]
    assert asked == [["b", "c"]]  # "a" and "d" are too far apart to swap with anyone
    # Too close to the end of the hits: a note beyond them might overtake too.
    assert query._settled_without_clamped(hits[:3], 2, 1, exact) is None
