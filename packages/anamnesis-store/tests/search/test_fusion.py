"""Hybrid fusion as a pure function: what it promises for any input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anamnesis.store.search.fusion import (
    KEYWORD_WEIGHT,
    LEXICAL_WEIGHT,
    PARAPHRASE_WEIGHT,
    STRONG_KEYWORD,
    VECTOR_WEIGHT,
    Weight,
    fuse,
    fused_score,
    keyword_evidence,
)

IDS = [f"n{i:02d}" for i in range(30)]


Ranked = tuple[list[tuple[str, float]], dict[str, float], dict[str, float], dict[str, float]]


@st.composite
def rankings(draw: st.DrawFn) -> Ranked:
    keyword_ids = draw(st.lists(st.sampled_from(IDS), unique=True, max_size=20))
    scores = sorted(
        draw(
            st.lists(
                st.floats(min_value=-30, max_value=-0.01),
                min_size=len(keyword_ids),
                max_size=len(keyword_ids),
            )
        )
    )
    keyword = list(zip(keyword_ids, scores, strict=True))
    vector_ids = draw(st.lists(st.sampled_from(IDS), unique=True, max_size=20))
    cosine = {memory_id: draw(st.floats(min_value=-1, max_value=1)) for memory_id in vector_ids}
    coverage = {
        memory_id: draw(st.sampled_from([0.0, 0.25, 0.5, 1.0])) for memory_id in keyword_ids
    }
    return keyword, dict(keyword), cosine, coverage


@settings(max_examples=300, deadline=None)
@given(rankings(), st.integers(min_value=1, max_value=12))
def test_results_are_distinct_candidates_k_at_most(ranked: Ranked, k: int) -> None:
    keyword, bm25, cosine, coverage = ranked
    out = fuse(keyword, bm25, cosine, k, coverage)
    candidates = set(bm25) | set(cosine)
    assert len(out) == len(set(out)) == min(k, len(candidates))
    assert set(out) <= candidates


@settings(max_examples=300, deadline=None)
@given(
    rankings(),
    st.integers(min_value=1, max_value=12),
    st.sampled_from([PARAPHRASE_WEIGHT, LEXICAL_WEIGHT]),
    st.lists(st.floats(min_value=0, max_value=1), min_size=30, max_size=30),
)
def test_exact_keyword_hits_are_never_pushed_out(
    ranked: Ranked, k: int, weight: Weight, shares: list[float]
) -> None:
    keyword, bm25, cosine, coverage = ranked
    information = dict(zip(IDS, shares, strict=True))  # read by the look-up's weight only
    out = fuse(keyword, bm25, cosine, k, coverage, weight, information)
    assert len(out) == len(set(out)) == min(k, len(set(bm25) | set(cosine)))
    if keyword:
        best = keyword[0][1]
        strong = [
            memory_id
            for memory_id, score in keyword
            if score / best >= STRONG_KEYWORD and coverage[memory_id] == 1.0
        ]
        assert set(strong[:k]) <= set(out)


def test_without_vector_evidence_the_keyword_order_stands() -> None:
    keyword = [("a", -9.0), ("b", -5.0), ("c", -1.0)]
    assert fuse(keyword, dict(keyword), {}, 3) == ["a", "b", "c"]
    flat = {"a": 0.3, "b": 0.3, "c": 0.3}
    assert fuse(keyword, dict(keyword), flat, 3) == ["a", "b", "c"]


def test_a_confident_vector_match_lifts_a_paraphrase_over_weak_word_overlap() -> None:
    # "a" and "b" share a common word or two with the query; "p" shares none but means
    # the same thing. The best keyword hit holds a quarter of the query's words.
    keyword = [("a", -4.0), ("b", -3.0)]
    cosine = {"a": 0.20, "b": 0.15, "p": 0.62}
    out = fuse(keyword, dict(keyword), cosine, 2, {"a": 0.25})
    assert out == ["p", "a"]  # 0.6 * 0.62 beats 0.4 * 0.25 * 1.0 + 0.6 * 0.20


def test_a_query_covered_whole_keeps_its_keyword_order() -> None:
    keyword = [("a", -4.0), ("b", -3.0)]
    cosine = {"a": 0.20, "b": 0.15, "p": 0.62}
    out = fuse(keyword, dict(keyword), cosine, 2, {"a": 1.0})
    assert out == ["a", "b"]  # 0.4 + 0.12 and 0.3 + 0.09 beat 0.372


def test_an_exact_match_is_never_pushed_out_a_partial_one_can_be() -> None:
    keyword = [("exact", -10.0)]
    cosine = {"exact": 0.0, "x": 0.9, "y": 0.8}
    assert fuse(keyword, dict(keyword), cosine, 2, {"exact": 1.0}) == ["x", "exact"]
    assert fuse(keyword, dict(keyword), cosine, 2, {"exact": 0.5}) == ["x", "y"]


def test_the_weights_are_what_the_documentation_says() -> None:
    keyword = [("a", -10.0), ("b", -5.0)]
    cosine = {"a": 0.1, "b": 0.5}
    # a: 0.4 * 1.0 + 0.6 * 0.1 = 0.46; b: 0.4 * 0.5 + 0.6 * 0.5 = 0.50. With one slot, a
    # stays anyway: it holds every word of the query (coverage 1) and is the best hit.
    assert KEYWORD_WEIGHT + VECTOR_WEIGHT == 1.0
    assert fuse(keyword, dict(keyword), cosine, 2) == ["b", "a"]
    assert fuse(keyword, dict(keyword), cosine, 1) == ["a"]


def test_a_look_up_weighs_each_hit_by_the_share_of_its_information_it_holds() -> None:
    # "when did we talk about Okonkwo and the invoice": "name" holds the rare name and the
    # template word "talk" (a short note: the best BM25), "both" the name and the subject
    # word "invoice"; "near" holds the name and sits nearest the query's vector.
    keyword = [("name", -10.0), ("both", -8.0), ("near", -7.0)]
    cosine = {"name": 0.30, "both": 0.10, "near": 0.60}
    coverage = {"name": 2 / 3}
    information = {"name": 0.55, "both": 0.95, "near": 0.50}
    # By relative BM25 alone the vector-favoured "near" pushes "both" out of the top 2.
    by_bm25 = fuse(keyword, dict(keyword), cosine, 2, coverage, Weight(0.7, 1), information)
    assert by_bm25 == ["name", "near"]
    # Counting what each holds, the note holding the name *and* the subject stays.
    out = fuse(keyword, dict(keyword), cosine, 2, coverage, LEXICAL_WEIGHT, information)
    assert out == ["both", "near"]
    # The score is the documented one: 0.7 x 2/3 x 0.8 ** 0.3 x 0.95 ** 0.7 + 0.3 x 0.10.
    expected = 0.7 * (2 / 3) * 0.8**0.3 * 0.95**0.7 + 0.3 * 0.10
    got = fused_score(keyword, cosine, coverage, "both", dict(keyword), LEXICAL_WEIGHT, information)
    assert got == pytest.approx(expected)
    # A paraphrase's weight reads no information: the same order with it or without.
    assert fuse(keyword, dict(keyword), cosine, 3, coverage, PARAPHRASE_WEIGHT, information) == (
        fuse(keyword, dict(keyword), cosine, 3, coverage, PARAPHRASE_WEIGHT)
    )


def test_keyword_evidence_is_a_weighted_geometric_mean_of_bm25_and_information() -> None:
    assert Weight(0.7, 1, 0.7) == LEXICAL_WEIGHT and PARAPHRASE_WEIGHT.information == 0.0
    assert keyword_evidence(0.6, 0.2, PARAPHRASE_WEIGHT) == 0.6  # relative BM25 alone
    assert keyword_evidence(0.6, 1.0, LEXICAL_WEIGHT) == pytest.approx(0.6**0.3)
    assert keyword_evidence(1.0, 0.5, LEXICAL_WEIGHT) == pytest.approx(0.5**0.7)
    assert keyword_evidence(0.0, 1.0, LEXICAL_WEIGHT) == 0.0  # sharing no word: no evidence
    # More of either, more evidence; a missing share counts as the most a note could hold.
    assert keyword_evidence(0.8, 0.9, LEXICAL_WEIGHT) > keyword_evidence(0.8, 0.6, LEXICAL_WEIGHT)
    assert keyword_evidence(0.9, 0.6, LEXICAL_WEIGHT) > keyword_evidence(0.8, 0.6, LEXICAL_WEIGHT)
    keyword = [("a", -4.0), ("b", -2.0)]
    cosine = {"a": 0.2, "b": 0.2}
    assert fused_score(keyword, cosine, {}, "b", dict(keyword), LEXICAL_WEIGHT) == pytest.approx(
        0.7 * 0.5**0.3 + 0.3 * 0.2
    )


def test_no_keyword_hits_means_vector_order() -> None:
    assert fuse([], {}, {"x": 0.1, "y": 0.9, "z": 0.5}, 3) == ["y", "z", "x"]
