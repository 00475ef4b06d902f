"""Neighbours by meaning in a review, where vectors run: notes whose embeddings are alike
pair even when their words do not bring them together. Needs sqlite-vec; a deterministic
bag-of-words embedder stands in for the model (texts sharing words are near)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.embedders import BagOfWordsEmbedder

from anamnesis.store import MemoryStore
from anamnesis.store.index import project_seq
from anamnesis.store.review.neighbours import similar_pairs
from anamnesis.store.vectors.embedding import sqlite_vec_problem

SQLITE_VEC = sqlite_vec_problem()
pytestmark = pytest.mark.skipif(SQLITE_VEC is not None, reason=SQLITE_VEC or "")


@pytest.fixture
def vstore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")  # the default: hybrid, vectors used
    with MemoryStore(tmp_path / "vstore", embedder=BagOfWordsEmbedder(64)) as store:
        yield store


def _pairs_of(store: MemoryStore, project: str, floor: float) -> list[tuple[str, str]]:
    conn = store._connection()
    store._vectors().load_into(conn)
    span = project_seq.rowid_range(conn, project)
    assert span is not None
    ids = dict(conn.execute("SELECT seq, id FROM memories").fetchall())
    model = store._vectors().embedder().model_id
    return [(ids[a], ids[b]) for a, b in similar_pairs(conn, model, span, floor, 2, 4096)]


def test_alike_notes_are_neighbours_and_others_are_not(vstore: MemoryStore) -> None:
    first = vstore.write(
        type="semantic",
        title="Staging database host",
        project="p",
        body="staging connects to the database host db staging internal",
    )
    second = vstore.write(
        type="semantic",
        title="Staging database host",
        project="p",
        body="staging connects to the database host db2 staging internal",
    )
    vstore.write(
        type="semantic", title="Lunch menu", project="p", body="soup on mondays and fish on fridays"
    )
    other = vstore.write(
        type="semantic",
        title="Staging database host",
        project="q",
        body="staging connects to the database host db staging internal",
    )
    vstore.embed_missing()  # the same text twice is embedded once (cached by content)

    assert _pairs_of(vstore, "p", 0.6) == [(first.id, second.id)]
    assert _pairs_of(vstore, "p", 0.999) == []
    assert all(other.id not in pair for pair in _pairs_of(vstore, "q", 0.0))  # alone there


def test_a_review_with_vectors_finds_the_pair_and_says_the_same_twice(
    vstore: MemoryStore,
) -> None:
    older = vstore.write(
        type="procedural",
        title="Metrics endpoint",
        project="p",
        body="The exporter serves /metrics on port 9100.",
    )
    newer = vstore.write(
        type="procedural",
        title="Metrics port changed",
        project="p",
        body="The exporter listens on :9300 for /metrics since the upgrade.",
    )
    vstore.embed_missing()
    assert vstore.default_search_mode() == "hybrid"

    first = [pair.to_dict() for pair in vstore.contradictions()]
    assert [pair["notes"] for pair in first] == [[older.id, newer.id]]
    assert [pair.to_dict() for pair in vstore.contradictions()] == first


def test_notes_without_vectors_are_fine(vstore: MemoryStore) -> None:
    older = vstore.write(
        type="procedural",
        title="Metrics endpoint",
        project="p",
        body="The exporter serves /metrics on port 9100.",
    )
    newer = vstore.write(
        type="procedural",
        title="Metrics port changed",
        project="p",
        body="The exporter listens on :9300 for /metrics since the upgrade.",
    )
    # nothing embedded: the review finds its neighbours by their words alone
    assert [pair.ids for pair in vstore.contradictions()] == [(older.id, newer.id)]


def test_a_pair_crowded_out_of_its_keyword_neighbours_is_found_by_meaning(
    vstore: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    words = "alpha beta gamma delta epsilon zeta eta theta"
    older = vstore.write(type="procedural", title="Exporter port", project="p",
                         body=f"The exporter serves metrics on port 9100. {words}")  # fmt: skip
    newer = vstore.write(type="procedural", title="Exporter port", project="p",
                         body=f"The exporter serves metrics on port 9300 now. {words}")  # fmt: skip
    for word in ("iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi"):
        # shorter notes on the title's words: the keyword neighbours
        vstore.write(type="semantic", title="Exporter port", project="p", body=f"See {word}.")
    vstore.embed_missing()

    assert [pair.ids for pair in vstore.contradictions()] == [(older.id, newer.id)]
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "keyword")  # searches without vectors
    assert vstore.contradictions() == []
