"""Hybrid ranking skips work that cannot change its answer: prove the answer is the one
scoring every candidate fully would give. Needs sqlite-vec, not the embedding model: the
embedder here is a small deterministic bag-of-words projection."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.embedders import BagOfWordsEmbedder

from anamnesis.store import MemoryStore
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.note.model import RankReason
from anamnesis.store.search import fusion, hybrid
from anamnesis.store.search.fusion import (
    LEXICAL_WEIGHT,
    STRONG_KEYWORD,
    VECTOR_FLOOR,
    Weight,
    fuse,
    vector_floor,
    weight_for,
)
from anamnesis.store.search.query import query_tokens
from anamnesis.store.search.query_kind import classify, idf_shares
from anamnesis.store.vectors import vector_index
from anamnesis.store.vectors.embedding import as_blob, sqlite_vec_problem

PROBLEM = sqlite_vec_problem()
pytestmark = pytest.mark.skipif(PROBLEM is not None, reason=PROBLEM or "")


def reference(
    store: MemoryStore, text: str, tokens: list[str], vector: bytes, filters: Filters, k: int
) -> list[str]:
    """Every candidate fully scored: all BM25s, every near-best hit's coverage, every
    hit's share of the query's information, weighed as the query's kind says."""
    conn = store._connection()
    depth = hybrid.candidates_depth(k)
    ranker = store._search.ranker(conn)
    keyword = ranker.ranked_ids(tokens, filters, depth)
    first = hybrid.words_held_by(conn, tokens, [keyword[0][0]]) if keyword else {}
    best = hybrid._coverage_of(tokens, first)[keyword[0][0]] if keyword else 0.0
    holds = first[keyword[0][0]] if keyword else frozenset()
    kind = classify(
        text, tokens, ranker.notes_holding, ranker.note_count(), keyword, best, best_holds=holds
    )
    weight = weight_for(kind)
    model = BagOfWordsEmbedder().model_id
    cosine = dict(vector_index.nearest(conn, vector, model, filters, depth))
    bm25 = dict(keyword)
    missing = [m for m in cosine if m not in bm25]
    if missing:
        bm25.update(hybrid._bm25_of(conn, tokens, missing))
    cosine.update(vector_index.similarities(conn, vector, model, list(bm25)))
    # The relevance floor: vector evidence alone below it makes no candidate.
    floor = vector_floor(bool(keyword))
    cosine = {m: c for m, c in cosine.items() if c >= floor or m in bm25}
    near = [m for m, score in keyword if score <= keyword[0][1] * STRONG_KEYWORD]
    # A look-up weighs every keyword hit by the share of the query's information it holds.
    held = hybrid.words_held_by(conn, tokens, list(bm25))
    coverage = hybrid._coverage_of(tokens, {m: held[m] for m in near})
    information = idf_shares(tokens, held, ranker.notes_holding, ranker.note_count())
    return fuse(keyword, bm25, cosine, k, coverage, weight, information)


@pytest.fixture
def zipf_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    rng = random.Random(11)
    vocabulary = [f"w{i}" for i in range(300)]
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    with MemoryStore(tmp_path / "s", embedder=BagOfWordsEmbedder()) as store:
        for _i in range(400):
            body = " ".join(rng.choices(vocabulary, weights, k=rng.randint(5, 60)))
            store.write(type=rng.choice(["semantic", "episodic"]), title=rng.choice(vocabulary),
                        body=body, project=rng.choice(["p", "q"]))  # fmt: skip
        store.embed_missing()
        yield store


def test_hybrid_skips_only_what_cannot_change_the_answer(zipf_store: MemoryStore) -> None:
    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(300)]
    conn = zipf_store._connection()
    zipf_store._vectors().load_into(conn)
    embedder = BagOfWordsEmbedder()
    full_keyword_lists = 0
    kinds: set[str | None] = set()
    for _ in range(200):
        text = " ".join(rng.choices(vocabulary, k=rng.randint(1, 8)))
        tokens = query_tokens(text)
        k = rng.choice([1, 3, 8, 15])
        filters = Filters(project=rng.choice([None, "p"]), types=rng.choice([None, ("semantic",)]))
        vector = as_blob(embedder.embed_query(text))
        depth = hybrid.candidates_depth(k)
        keyword = zipf_store._search.ranker(conn).ranked_ids(tokens, filters, depth)
        full_keyword_lists += len(keyword) == depth
        got = hybrid.hybrid_ranking(
            conn, zipf_store._search.ranker(conn), tokens, vector, embedder.model_id, filters, k,
            text=text,
        )  # fmt: skip
        assert [m for m, _ in got] == reference(zipf_store, text, tokens, vector, filters, k), text
        why: dict[str, RankReason] = {}
        hybrid.hybrid_ranking(
            conn, zipf_store._search.ranker(conn), tokens, vector, embedder.model_id, filters, k,
            text=text, why=why,
        )  # fmt: skip
        kinds.update(reason.query_kind for reason in why.values())
    assert full_keyword_lists >= 50  # the skipping path really ran
    assert kinds == {"lexical", "paraphrase"}  # under either weight


def test_search_in_hybrid_mode_is_that_ranking(zipf_store: MemoryStore) -> None:
    zipf_store._connection()
    zipf_store.search("w1", mode="hybrid")  # loads sqlite-vec into the connection
    embedder = BagOfWordsEmbedder()
    for text in ("w1 w7 w99", "w250", "w3 w3 w40"):
        vector = as_blob(embedder.embed_query(text))
        expected = reference(zipf_store, text, query_tokens(text), vector, Filters(), 8)
        assert [m.id for m in zipf_store.search(text, mode="hybrid")] == expected


def test_a_query_sharing_nothing_with_any_note_finds_nothing_in_every_mode(
    zipf_store: MemoryStore,
) -> None:
    # No note holds these words; a bag-of-words vector still lies at some angle to every
    # note, and only the relevance floor keeps those angles from becoming results.
    for mode in ("keyword", "vector", "hybrid"):
        found = zipf_store.search_scored("zzq xylophone quokka", mode=mode)
        assert found.hits == [], mode
        assert found.mode == mode


def test_vector_and_hybrid_hits_carry_scores_above_the_floor(zipf_store: MemoryStore) -> None:
    conn = zipf_store._connection()
    zipf_store._vectors().load_into(conn)
    embedder = BagOfWordsEmbedder()
    for text in ("w1 w7 w99", "w250 w12"):
        vector = as_blob(embedder.embed_query(text))
        nearest = dict(vector_index.nearest(conn, vector, embedder.model_id, Filters(), 50))
        found = zipf_store.search_scored(text, mode="vector", k=50)
        assert found.hits, text
        for hit in found.hits:
            assert hit.score >= VECTOR_FLOOR
            assert hit.score == pytest.approx(nearest[hit.note.id])
        below = [m for m, cosine in nearest.items() if cosine < VECTOR_FLOOR]
        assert below, "the corpus must have notes below the floor for this test to mean much"
        assert not {hit.note.id for hit in found.hits} & set(below)
        hybrid_hits = zipf_store.search_scored(text, mode="hybrid").hits
        scores = [hit.score for hit in hybrid_hits]
        assert scores == sorted(scores, reverse=True)
        assert all(0.0 < score <= 1.0 for score in scores)


def test_fused_results_are_the_same_every_time(tmp_path: Path, zipf_store: MemoryStore) -> None:
    """The same notes and query give the same hits, scores and reasons: in one store asked
    twice, and in another store written with the same notes (other ids, same order)."""
    queries = ("w1 w7 w99", "w250", "w3 w40 w41 w120", "w12 w13")
    first = [zipf_store.search_scored(q, mode="hybrid") for q in queries]
    again = [zipf_store.search_scored(q, mode="hybrid") for q in queries]
    assert first == again
    assert all(hit.why is not None for found in first for hit in found.hits)
    with MemoryStore(tmp_path / "twin", embedder=BagOfWordsEmbedder()) as twin:
        position = {}
        for note in sorted(zipf_store.list(limit=1000), key=lambda n: n.id):
            copy = twin.write(type=note.type, title=note.title, body=note.body,
                              project=note.project)  # fmt: skip
            position[copy.id] = note.id
        twin.embed_missing()
        for query, found in zip(queries, first, strict=True):
            other = twin.search_scored(query, mode="hybrid")
            assert [position[hit.note.id] for hit in other.hits] == [h.note.id for h in found.hits]
            assert [hit.score for hit in other.hits] == [hit.score for hit in found.hits]
            assert [hit.why for hit in other.hits] == [hit.why for hit in found.hits]


LOOK_UP = "when did we talk about Okonkwo and invoice?"


@pytest.fixture
def conversation_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    """Short conversational notes: "talk" in many, "invoice" in two, "Okonkwo" in three
    (one holding the name and a template word, one the name, the template word and most
    of the query's stop words, one the name and the subject word)."""
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    chatter = [
        "we talk about the build again today", "talk later about lunch plans",
        "the build broke, talk to ops", "remember to talk about holidays",
        "a quiet day of reading", "the garden needs water", "talk about music tonight",
        "cooking pasta for dinner", "a walk by the river", "the cat sleeps all day",
    ]  # fmt: skip
    with MemoryStore(tmp_path / "s", embedder=BagOfWordsEmbedder()) as store:
        for i in range(40):
            store.write(type="episodic", title=f"day {i}", body=f"{chatter[i % 10]} note {i}")
        store.write(type="episodic", title="bill 0",
                    body="the invoice for month 0 is paid in full by the bank")  # fmt: skip
        store.write(type="episodic", title="Okonkwo", body="Okonkwo wants to talk.")
        store.write(type="episodic", title="Okonkwo again",
                    body="when did we talk, Okonkwo asked about it")  # fmt: skip
        store.write(type="episodic", title="Roof",
                    body="Okonkwo sent the invoice for the barn roof repair with the materials"
                    " listed")  # fmt: skip
        store.embed_missing()
        yield store


def test_a_look_up_keeps_the_note_holding_more_of_its_information(
    conversation_store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = conversation_store
    keyword = [hit.note.title for hit in store.search_scored(LOOK_UP, mode="keyword").hits]
    assert keyword[:2] == ["Roof", "Okonkwo"]  # keyword search has the note it wants first
    found = store.search_scored(LOOK_UP, mode="hybrid", k=2).hits
    assert [hit.note.title for hit in found] == ["Okonkwo again", "Roof"]
    why = {hit.note.title: hit.why for hit in found}
    roof, again = why["Roof"], why["Okonkwo again"]
    assert roof is not None and again is not None
    assert roof.query_kind == "lexical"
    assert roof.information_weight == LEXICAL_WEIGHT.information
    # The name and the subject word hold more of the query's information than the name
    # and the template word "talk".
    assert roof.held_information is not None and again.held_information is not None
    assert roof.held_information > again.held_information
    for hit in found:
        reason = hit.why
        assert reason is not None and reason.keyword_relative is not None
        assert reason.held_information is not None and reason.keyword_evidence is not None
        assert reason.keyword_evidence == pytest.approx(
            reason.keyword_relative**0.3 * reason.held_information**0.7, abs=1e-6
        )
        assert hit.score == pytest.approx(
            reason.keyword_weight * reason.keyword_evidence
            + reason.vector_weight * (reason.vector_score or 0.0),
            abs=1e-6,
        )
    # By relative BM25 alone (main's fusion before), two vector-favoured notes holding the
    # name and "talk" push keyword search's first hit out of the top two.
    monkeypatch.setattr(fusion, "LEXICAL_WEIGHT", Weight(0.7, 1))
    before = store.search_scored(LOOK_UP, mode="hybrid", k=2).hits
    assert [hit.note.title for hit in before] == ["Okonkwo again", "Okonkwo"]
    assert all(hit.why is not None and hit.why.held_information is None for hit in before)


def test_a_paraphrase_counts_relative_bm25_alone(conversation_store: MemoryStore) -> None:
    found = conversation_store.search_scored(
        "remember the garden and the river walk we had on a quiet day of reading", mode="hybrid"
    ).hits
    assert found
    for hit in found:
        reason = hit.why
        assert reason is not None and reason.query_kind == "paraphrase"
        assert reason.information_weight == 0.0 and reason.held_information is None
        assert reason.keyword_evidence == pytest.approx(reason.keyword_relative or 0.0, abs=1e-6)
