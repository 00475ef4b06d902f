"""Neighbours by meaning in a review, where vectors run: notes whose embeddings are alike
pair even when their words do not bring them together. Needs sqlite-vec; a deterministic
bag-of-words embedder stands in for the model (texts sharing words are near)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.embedders import BagOfWordsEmbedder

from anamnesis.store import Memory, MemoryStore
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


@pytest.fixture
def port_change(vstore: MemoryStore) -> tuple[Memory, Memory]:
    """Two notes of project ``p`` that disagree: the metrics port, then a note that it
    changed, worded differently (few words shared: only meaning, or a review, pairs them)."""
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
    return older, newer


def _staging_host(store: MemoryStore, project: str, host: str) -> Memory:
    """A note of ``project`` saying which database host staging connects to."""
    body = f"staging connects to the database host {host} staging internal"
    return store.write(type="semantic", title="Staging database host", project=project, body=body)


def _pairs_of(store: MemoryStore, project: str, floor: float) -> list[tuple[str, str]]:
    conn = store._connection()
    store._vectors().load_into(conn)
    span = project_seq.rowid_range(conn, project)
    assert span is not None
    ids = dict(conn.execute("SELECT seq, id FROM memories").fetchall())
    model = store._vectors().embedder().model_id
    return [(ids[a], ids[b]) for a, b in similar_pairs(conn, model, span, floor, 2, 4096)]


def test_alike_notes_are_neighbours_and_others_are_not(vstore: MemoryStore) -> None:
    first, second = _staging_host(vstore, "p", "db"), _staging_host(vstore, "p", "db2")
    vstore.write(
        type="semantic", title="Lunch menu", project="p", body="soup on mondays and fish on fridays"
    )
    other = _staging_host(vstore, "q", "db")
    vstore.embed_missing()  # the same text twice is embedded once (cached by content)

    assert _pairs_of(vstore, "p", 0.6) == [(first.id, second.id)]
    assert _pairs_of(vstore, "p", 0.999) == []
    assert all(other.id not in pair for pair in _pairs_of(vstore, "q", 0.0))  # alone there


def test_a_review_with_vectors_finds_the_pair_and_says_the_same_twice(
    vstore: MemoryStore, port_change: tuple[Memory, Memory]
) -> None:
    older, newer = port_change
    vstore.embed_missing()
    assert vstore.default_search_mode() == "hybrid"

    first = [pair.to_dict() for pair in vstore.contradictions()]
    assert [pair["notes"] for pair in first] == [[older.id, newer.id]]
    assert [pair.to_dict() for pair in vstore.contradictions()] == first


def test_notes_without_vectors_are_fine(
    vstore: MemoryStore, port_change: tuple[Memory, Memory]
) -> None:
    older, newer = port_change
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
