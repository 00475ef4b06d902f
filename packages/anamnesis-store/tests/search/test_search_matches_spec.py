"""The store's keyword search returns exactly what spec 002's literal SQL returns, on random
and Zipf-shaped stores, however it plans the ranking."""

from __future__ import annotations

import random

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.search import exact_bm25
from anamnesis.store.search.query import Ranker, query_tokens
from search_testing import (
    WORDS,
    _assert_every_hit_where_the_spec_puts_it,
    _counting_rounds,
    _never_plan,
    _plan_by_budget,
    _plan_small,
    _random_store,
    _scores,
    _spec_ids,
    _zipf_store,
)


@pytest.mark.parametrize("seed", range(6))
def test_search_matches_the_spec_sql(
    store: MemoryStore, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_KEYWORD_RANKING", "spec")  # every word, as the spec
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


def test_ranking_by_rare_words_first_changes_no_answer(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(3)
    vocabulary = _zipf_store(store, rng)
    conn = store._connection()
    ranker = store._search.ranker(conn)
    rounds = _counting_rounds(monkeypatch)
    # [failed to prove, proved] by each way of planning: a small store's, a large one's
    outcomes = {"small": [0, 0], "budget": [0, 0]}
    longer = 0  # rankings that returned more than the k hits asked for
    for _ in range(400):
        # Common words with rare ones: the case rare-first ranking is for.
        words = rng.choices(vocabulary[:8], k=rng.randint(1, 4))
        words += rng.choices(vocabulary[20:], k=rng.randint(1, 3))
        query = " ".join(rng.sample(words, len(words)))
        filters = Filters(project=rng.choice([None, "p"]))
        k = rng.choice([1, 3, 8, 20])
        tokens = query_tokens(query)
        policy = rng.choice(["small", "budget"])
        share = rng.choice([0.04, 0.12, 0.3])
        before = list(ranker.rare_first_outcomes)
        with monkeypatch.context() as patch:
            if policy == "budget":
                _plan_by_budget(patch, share)
            else:
                _plan_small(patch)
            # Near ties settled either way: recounted in Python, or asked of FTS5.
            patch.setattr(exact_bm25, "FTS5_US_PER_PHRASE", rng.choice([0.0, 1e9]))
            fast = ranker.ranked_ids(tokens, filters, k)
            # Every hit a ranking returns, not only the k asked for, is in its place.
            ranked = ranker._ranked(tokens, filters, k, exact_bm25.Occurrences())[0]
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
            ranked = Ranker(conn)._ranked(tokens, Filters(), k, exact_bm25.Occurrences())[0]
        _assert_every_hit_where_the_spec_puts_it(conn, " ".join(words), ranked, k)
    assert rounds["bounded"] > 20, rounds
