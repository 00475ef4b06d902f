"""Rare-first planning never changes an answer: notes past a narrow query's limit, near
ties, notes tied without common words, ties settled twice, hits overtaken by common words."""

from __future__ import annotations

import re

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.search import exact_bm25, query, rare_first
from anamnesis.store.search.query import Ranker, match_expression
from anamnesis.store.search.rare_first import Hit, Span
from search_testing import (
    _plan_by_budget,
    _plan_small,
    _scores,
    _spec_ids,
)


@pytest.mark.parametrize("policy", ["small", "budget"])
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
        else:
            _plan_small(patch)
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
    if recomputed:  # and never asked of FTS5, however little asking would cost
        monkeypatch.setattr(exact_bm25, "_FTS5_SCORES_SQL", "SELECT no_such_function()")
        monkeypatch.setattr(exact_bm25, "FTS5_US_PER_PHRASE", 1e9)
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


def test_small_and_large_stores_plan_by_their_budgets() -> None:
    def plan(total: int, freq: dict[str, int]) -> rare_first.Plan | None:
        tokens = list(freq)  # query order: commonest first
        return rare_first.plan_query(tokens, freq.__getitem__, total, 8, match_expression)

    # 2,000 notes: the rarest words while they hold a fifth of the notes, widened in rounds.
    small = plan(2_000, {"everywhere": 800, "common": 600, "mid": 300, "rare": 40})
    assert small is not None
    assert (small.words, small.first, small.rounds) == (
        [["rare"], ["mid"], ["common"], ["everywhere"]],
        2,
        rare_first.MAX_ROUNDS,
    )
    # Even the rarest word in more than a fifth of the notes: nothing to stand a proof on.
    assert plan(2_000, {"common": 900, "mid": 500}) is None
    # Too little to skip: the other words add few notes, in all or against the rare ones.
    assert plan(2_000, {"mid": 300, "rare": 100}) is None
    assert plan(2_000, {"common": 200, "mid": 190, "rare": 160}) is None
    # A few hundred notes: never enough to skip for the statements a plan adds.
    assert plan(300, {"everywhere": 250, "rare": 5}) is None
    # 100,000 notes: the rarest words while they hold 6 % of the notes, widened in rounds.
    large = plan(100_000, {"everywhere": 40_000, "common": 30_000, "mid": 3_000, "rare": 50})
    assert large is not None
    assert (large.first, large.rounds) == (2, rare_first.MAX_ROUNDS)
    # Words that together hold under 6 % of the notes: the full query scores few enough.
    assert plan(100_000, {"mid": 3_000, "rare": 50}) is None


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
    ranked = Ranker._ranked

    def recording(
        ranker: Ranker,
        tokens: list[str],
        filters: Filters,
        want: int,
        seen: exact_bm25.Occurrences,
        *,
        span: Span = None,
        in_sql: bool = True,
    ) -> tuple[list[Hit], bool]:
        calls.append((tuple(tokens), want))
        return ranked(ranker, tokens, filters, want, seen, span=span, in_sql=in_sql)

    monkeypatch.setattr(Ranker, "_ranked", recording)
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
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two identical best notes tie twice: ranked by the rarer words first (rare_first),
    # then again with "the" (in every note, which FTS5 weighs at 1e-6). Both settlings
    # need each word's count in both notes; the second only adds what the first lacked.
    _plan_small(monkeypatch)  # 200 notes: a plan would skip too little to be tried
    monkeypatch.setattr(exact_bm25, "FTS5_US_PER_PHRASE", 1e9)  # recounted, not asked
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


def test_a_crowd_tied_without_common_words_is_settled_without_the_full_query(
    store: MemoryStore,
) -> None:
    # Forty notes tie on "gateway" (same length, one occurrence each) and differ only in
    # how often they say "the", a word in most notes that FTS5 weighs at 1e-6: far more
    # near ties than a handful, all settled by scoring just them again, not every note.
    for i in range(40):
        body = " ".join(["gateway"] + ["the"] * (1 + i % 7) + ["pad"] * (7 - i % 7))
        store.write(type="semantic", title=f"tied {i}", body=body)
    for i in range(60):
        store.write(type="semantic", title=f"filler {i}", body=f"the filler words {i}")
    conn = store._connection()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    tokens = ["the", "gateway"]
    try:
        got = Ranker(conn).ranked_ids(tokens, Filters(), 8)
    finally:
        conn.set_trace_callback(None)
    # Equal notes written in the same instant: the spec leaves their order open.
    ids = [memory_id for memory_id, _score in got]
    assert _scores(conn, "the gateway", ids) == _scores(
        conn, "the gateway", _spec_ids(conn, tokens, 8)
    )
    full = match_expression(tokens)
    assert not [sql for sql in statements if f"MATCH '{full}' ORDER BY" in sql]
    # Asked for more notes than a ranking widens to: the full query, the spec's answer.
    got = Ranker(conn).ranked_ids(tokens, Filters(), 500)
    ids = [memory_id for memory_id, _score in got]
    assert _scores(conn, "the gateway", ids) == _scores(
        conn, "the gateway", _spec_ids(conn, tokens, 500)
    )


def test_a_crowd_too_large_to_widen_past_is_left_to_the_full_query(store: MemoryStore) -> None:
    # 150 notes tie on "gateway": no ranking of it alone up to 400 rows finds where the
    # tie ends below the 3rd place, so the full query (with "the") decides.
    for i in range(150):
        body = " ".join(["gateway"] + ["the"] * (1 + i % 5) + ["pad"] * (5 - i % 5))
        store.write(type="semantic", title=f"tied {i}", body=body)
    for i in range(160):  # so that "gateway" is in under half of the notes
        store.write(type="semantic", title=f"filler {i}", body=f"the filler words {i}")
    conn = store._connection()
    tokens = ["the", "gateway"]
    ranker = Ranker(conn)
    ids = [memory_id for memory_id, _score in ranker.ranked_ids(tokens, Filters(), 3)]
    assert not ranker._is_clamped("gateway", ranker._total())
    assert _scores(conn, "the gateway", ids) == _scores(
        conn, "the gateway", _spec_ids(conn, tokens, 3)
    )


def test_a_querys_words_are_counted_together_however_many(store: MemoryStore) -> None:
    for i in range(30):
        store.write(type="semantic", title=f"note {i}", body=f"w{i} w{i + 1} common words")
    conn = store._connection()
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    ranker = Ranker(conn)
    try:
        ranker.ranked_ids(["w1", "w2", "common", "w3"], Filters(), 3)
    finally:
        conn.set_trace_callback(None)
    assert len([sql for sql in statements if "memories_fts MATCH" in sql and "count(" in sql]) == 1
    # A long prompt: more words than one compound statement may hold, counted in batches.
    tokens = [f"w{i}" for i in range(260)]
    got = [memory_id for memory_id, _score in ranker.ranked_ids(tokens, Filters(), 5)]
    query = " ".join(tokens)
    assert _scores(conn, query, got) == _scores(conn, query, _spec_ids(conn, tokens, 5))
