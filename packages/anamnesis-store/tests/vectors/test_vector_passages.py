"""Long notes are embedded as passages (issue 28): how passages are made, the best passage
deciding a note's similarity, the passage cache across reindexes and edits, the migration
from the single-vector index, and k distinct notes from a KNN over passages.

How passages are made needs nothing. The store tests need sqlite-vec (a small
deterministic bag-of-words embedder stands in for the model); the one about a fact deep in
a long note needs the real offline model as well. Each skips, with the reason, where what
it needs is missing.
"""

from __future__ import annotations

import itertools
import math
import random
import re
import sqlite3
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason
from anamnesis_testsupport.embedders import BagOfWordsEmbedder

from anamnesis.store import MemoryStore
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.vectors import vector_index
from anamnesis.store.vectors.embedding import VectorsUnavailableWarning, as_blob, sqlite_vec_problem
from anamnesis.store.vectors.passages import (
    HEADER_MAX,
    MAX_PASSAGES,
    OVERLAP,
    WINDOW,
    passages,
    window_starts,
)
from store_testing import long_body, passage_rows

SQLITE_VEC = sqlite_vec_problem()
needs_sqlite_vec = pytest.mark.skipif(SQLITE_VEC is not None, reason=SQLITE_VEC or "")
MODEL_MISSING = vectors_unavailable_reason()
needs_model = pytest.mark.skipif(MODEL_MISSING is not None, reason=MODEL_MISSING or "")

PIECE = re.compile(r"\w+|[^\w\s]")


def words(count: int, prefix: str = "w") -> str:
    return " ".join(f"{prefix}{i}" for i in range(count))


# -- how passages are made ---------------------------------------------------------------


def test_a_short_note_is_one_passage_its_title_and_body() -> None:
    assert passages("Title", "a short body") == ["Title\na short body"]
    exactly = words(WINDOW)
    assert passages("Title", exactly) == [f"Title\n{exactly}"]
    assert passages("Title", "") == ["Title\n"]


def test_a_long_note_is_overlapping_windows_each_with_the_title_and_header() -> None:
    header = "Session Planning_4 | 2025-12-20 | user: Ada"
    body = header + "\n\n" + words(1000)
    texts = passages("Plan the trip", body)
    pieces = PIECE.findall(body)
    starts = window_starts(len(pieces))
    assert len(texts) == len(starts) > 1
    assert texts[0].startswith("Plan the trip\nSession Planning_4")  # the body's start
    for text in texts[1:]:
        assert text.startswith(f"Plan the trip\n{header}\n")
    windows = [PIECE.findall(text.split("\n", 2 if i else 1)[-1]) for i, text in enumerate(texts)]
    assert all(len(window) == WINDOW for window in windows)
    assert windows[0] == pieces[:WINDOW] and windows[-1] == pieces[-WINDOW:]
    for start, next_start in itertools.pairwise(starts):
        assert 0 < next_start - start <= WINDOW - OVERLAP  # consecutive windows overlap enough
    assert all(window == pieces[s : s + WINDOW] for window, s in zip(windows, starts, strict=True))


def test_every_piece_of_a_long_body_is_in_some_passage() -> None:
    rng = random.Random(3)
    for count in (WINDOW + 1, WINDOW + OVERLAP, 2 * WINDOW, 3 * WINDOW - 7, 5000):
        starts = window_starts(count)
        covered: set[int] = set()
        for start in starts:
            covered.update(range(start, start + WINDOW))
        assert covered == set(range(count)), count
        assert starts[-1] + WINDOW == count  # the last window ends with the body
        assert all(b - a >= 1 for a, b in itertools.pairwise(starts))
    body = " ".join(rng.choice(["alpha", "beta,", "gamma.", "(delta)"]) for _ in range(900))
    joined = " ".join(passages("T", body))
    assert set(PIECE.findall(body)) <= set(PIECE.findall(joined))


def test_a_long_first_line_is_no_header() -> None:
    first = words(HEADER_MAX + 1, "h")
    texts = passages("Title", first + "\n" + words(600))
    assert all(text.startswith("Title\n") for text in texts)
    assert not any(text.startswith(f"Title\n{first}\n") for text in texts[1:])


def test_a_huge_note_stops_at_max_passages() -> None:
    count = (WINDOW - OVERLAP) * (MAX_PASSAGES + 10)
    assert len(window_starts(count)) == MAX_PASSAGES
    assert len(passages("T", words(count))) == MAX_PASSAGES


def test_the_passage_scheme_is_part_of_the_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = vector_index.content_hash("t", "b")
    monkeypatch.setattr(vector_index, "SCHEME", "another scheme")
    assert vector_index.content_hash("t", "b") != before


# -- stores, with a small deterministic embedder ------------------------------------------

DIMENSIONS = 64


@pytest.fixture
def embedder() -> BagOfWordsEmbedder:
    return BagOfWordsEmbedder(DIMENSIONS)


@pytest.fixture
def store(tmp_path: Path, embedder: BagOfWordsEmbedder) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "s", embedder=embedder) as opened:
        yield opened


def cached_hashes(store: MemoryStore) -> set[str]:
    conn = store._connection()
    return {digest for (digest,) in conn.execute("SELECT content_hash FROM passage_cache")}


@needs_sqlite_vec
def test_each_note_gets_all_its_passages_and_only_new_text_is_embedded(
    store: MemoryStore, embedder: BagOfWordsEmbedder
) -> None:
    short = store.write(type="semantic", title="Short", body="a few words")
    long = store.write(type="episodic", title="Long", body=long_body("trip"))
    expected = len(passages("Long", long_body("trip")))
    assert expected > 3
    assert store.embed_missing() == 2
    assert len(embedder.embedded) == expected + 1
    assert passage_rows(store, short.id) == [0]
    assert passage_rows(store, long.id) == list(range(expected))

    store.reindex()  # every table rebuilt: the passages come back from the cache
    assert store.embed_missing() == 0
    assert len(embedder.embedded) == expected + 1
    assert passage_rows(store, long.id) == list(range(expected))

    store.update(short.id, tags=["unchanged-text"])  # the row is rewritten, the text is not
    assert store.embed_missing() == 0
    assert passage_rows(store, short.id) == [0]


@needs_sqlite_vec
def test_a_changed_note_re_embeds_its_own_passages_and_drops_the_old_ones(
    store: MemoryStore, embedder: BagOfWordsEmbedder
) -> None:
    other = store.write(type="episodic", title="Other", body=long_body("budget"))
    long = store.write(type="episodic", title="Long", body=long_body("trip", 900))
    store.embed_missing()
    old_hashes = cached_hashes(store)
    embedder.embedded.clear()

    new_body = long_body("trip", 400)
    store.update(long.id, body=new_body)
    assert passage_rows(store, long.id) == []  # the old passages went with the old row
    assert store.embed_missing() == 1
    new_count = len(passages("Long", new_body))
    assert sorted(embedder.embedded) == sorted(passages("Long", new_body))  # its own only
    assert passage_rows(store, long.id) == list(range(new_count))
    assert len(passage_rows(store, other.id)) == len(passages("Other", long_body("budget")))
    assert len(cached_hashes(store)) == 2  # the old text's passages were pruned
    assert cached_hashes(store) != old_hashes


@needs_sqlite_vec
def test_k_distinct_notes_come_back_when_one_note_has_many_near_passages(
    store: MemoryStore,
) -> None:
    # Every passage of the long note is about the query; the short notes less so.
    long = store.write(type="episodic", title="alpha", body=long_body("alpha", 3000))
    others = [
        store.write(type="semantic", title=f"alpha note {i}", body=f"alpha{i} beta{i} gamma{i}")
        for i in range(12)
    ]
    store.embed_missing()
    assert len(passage_rows(store, long.id)) > 10
    query = " ".join(f"alpha{i}" for i in range(20))
    conn = store._connection()
    store._vectors().load_into(conn)
    vector = as_blob(BagOfWordsEmbedder(DIMENSIONS).embed_query(query))
    for k in (1, 5, 10, 13):
        nearest = vector_index.nearest(
            conn, vector, BagOfWordsEmbedder(DIMENSIONS).model_id, Filters(), k
        )
        ids = [memory_id for memory_id, _ in nearest]
        assert len(ids) == len(set(ids)) == k
        assert ids[0] == long.id
        similarities = [similarity for _, similarity in nearest]
        assert similarities == sorted(similarities, reverse=True)
    everything = vector_index.nearest(
        conn, vector, BagOfWordsEmbedder(DIMENSIONS).model_id, Filters(), 50
    )
    assert len(everything) == 1 + len(others)
    # A note's similarity is its best passage's.
    bag = BagOfWordsEmbedder(DIMENSIONS)
    best = max(
        1 - _cosine_distance(bag.embed_query(query), bag.embed_query(text))
        for text in passages("alpha", long_body("alpha", 3000))
    )
    assert dict(everything)[long.id] == pytest.approx(best, abs=1e-5)
    assert vector_index.similarities(
        conn, vector, BagOfWordsEmbedder(DIMENSIONS).model_id, [long.id]
    ) == {long.id: pytest.approx(best, abs=1e-5)}


def _cosine_distance(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    norms = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return 1 - dot / norms


@needs_sqlite_vec
def test_filters_apply_before_the_passages_are_ranked(store: MemoryStore) -> None:
    here = [
        store.write(type="episodic", title=f"p{i}", body=long_body("alpha"), project="here")
        for i in range(3)
    ]
    for i in range(30):  # nearer notes, in another project
        store.write(type="episodic", title=f"q{i}", body=long_body("alpha", 2000), project="there")
    store.embed_missing()
    conn = store._connection()
    store._vectors().load_into(conn)
    vector = as_blob(BagOfWordsEmbedder(DIMENSIONS).embed_query("alpha1 alpha2 alpha3"))
    model = BagOfWordsEmbedder(DIMENSIONS).model_id
    nearest = vector_index.nearest(conn, vector, model, Filters(project="here"), 8)
    assert sorted(memory_id for memory_id, _ in nearest) == sorted(note.id for note in here)
    assert len(vector_index.nearest(conn, vector, model, Filters(), 8)) == 8


# -- the migration from the single-vector index (schema 107) ------------------------------

V107_TABLES = """
CREATE TABLE note_embeddings (seq INTEGER PRIMARY KEY, model TEXT NOT NULL, vector BLOB NOT NULL);
CREATE TABLE embedding_cache (content_hash TEXT NOT NULL, model TEXT NOT NULL,
  vector BLOB NOT NULL, PRIMARY KEY (content_hash, model));
"""


def _as_schema_107(db_path: Path) -> None:
    """Turn an index into what the previous release left: its two vector tables (with
    rows), no passage tables, user_version 107."""
    conn = sqlite3.connect(db_path)
    try:
        conn.execute("DROP TABLE IF EXISTS note_passages")
        conn.execute("DROP TABLE IF EXISTS passage_cache")
        conn.executescript(V107_TABLES)
        conn.execute(
            "INSERT INTO note_embeddings SELECT seq, 'bag-of-words-64', zeroblob(256) FROM memories"
        )
        conn.execute("INSERT INTO embedding_cache VALUES ('x', 'bag-of-words-64', zeroblob(256))")
        conn.execute("PRAGMA user_version = 107")
        conn.commit()
    finally:
        conn.close()


@needs_sqlite_vec
def test_an_index_of_the_previous_schema_is_rebuilt_with_passage_tables(
    tmp_path: Path, embedder: BagOfWordsEmbedder
) -> None:
    root = tmp_path / "s"
    with MemoryStore(root, embedder=embedder) as store:
        long = store.write(type="episodic", title="Long", body=long_body("trip"))
        short = store.write(type="semantic", title="Short", body="a few words")
        db_path = store.db_path
    _as_schema_107(db_path)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with MemoryStore(root, embedder=embedder) as store:
            tables = {
                name
                for (name,) in store._connection().execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                )
            }
            assert "note_embeddings" not in tables and "embedding_cache" not in tables
            assert "note_passages" in tables
            assert store.embedding_status()["pending"] == 2
            assert store.embed_missing() == 2
            assert "passage_cache" in {
                name
                for (name,) in store._connection().execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                )
            }
            assert passage_rows(store, long.id) == list(
                range(len(passages("Long", long_body("trip"))))
            )
            hits = store.search("short: a few words", mode="vector", k=1)
            assert [hit.id for hit in hits] == [short.id]
    assert any("built by another version" in str(w.message) for w in caught)


# -- the real model: a fact deep in a long note -------------------------------------------

FILLER = [
    "We went through the quarterly roadmap and agreed to move the billing redesign to Q3.",
    "Hiring: two backend engineers start next month; onboarding buddies are assigned.",
    "The design review for the mobile settings screen is postponed until the copy is final.",
    "Budget for conference travel stays flat; submit requests through the usual form.",
    "Customer interviews showed that exports to spreadsheets matter more than dashboards.",
    "The team retro asked for fewer meetings on Wednesdays and a shared demo on Fridays.",
]
DEEP_FACT = (
    "One more thing from the incident review: the staging Redis cluster ran out of memory "
    "because its eviction policy was noeviction, so writes failed once it filled up; we "
    "switched it to allkeys-lru and added an alert at 80% memory."
)
DISTRACTORS = [
    ("Redis TLS certificates", "Renew the Redis TLS certificates every 90 days with certbot."),
    ("Postgres pool exhausted", "The API ran out of database connections; raise the pool to 40."),
    ("Kafka consumer lag", "Consumer lag on the events topic grew after the partition change."),
    ("Web worker memory leak", "The image resizer leaked buffers; restart workers after 500 jobs."),
]


@pytest.fixture(scope="module")
def model() -> object:
    from anamnesis.store.vectors.embedding import FastEmbedEmbedder

    return FastEmbedEmbedder(model_path=OFFLINE_MODEL)


@needs_model
def test_a_fact_deep_in_a_long_note_is_found_by_its_best_passage(
    tmp_path: Path, model: object
) -> None:
    filler = " ".join(FILLER[i % len(FILLER)] for i in range(40))
    body = f"Session Weekly_sync | 2025-12-20\n\n{filler}\n\n{DEEP_FACT}"
    query = "staging redis filled up and writes failed, what did we change"
    texts = passages("Weekly team sync notes", body)
    assert len(texts) > 3 and DEEP_FACT not in texts[0]
    with MemoryStore(tmp_path / "s", embedder=model) as store:  # type: ignore[arg-type]
        meeting = store.write(type="episodic", title="Weekly team sync notes", body=body)
        for title, text in DISTRACTORS:
            store.write(type="semantic", title=title, body=text)
        hits = store.search(query, mode="vector", k=3)
        assert hits[0].id == meeting.id

    # Embedded whole (what the model reads of it: the start), the note is not found first.
    with MemoryStore(tmp_path / "first-window", embedder=model) as store:  # type: ignore[arg-type]
        start = store.write(type="episodic", title="Weekly team sync notes",
                            body=texts[0].split("\n", 1)[1])  # fmt: skip
        for title, text in DISTRACTORS:
            store.write(type="semantic", title=title, body=text)
        hits = store.search(query, mode="vector", k=3)
        assert not hits or hits[0].id != start.id


@needs_sqlite_vec
def test_a_search_waits_for_a_bounded_number_of_passages(
    store: MemoryStore, embedder: BagOfWordsEmbedder
) -> None:
    for i in range(10):
        store.write(type="episodic", title=f"Long {i}", body=long_body(f"topic{i}", 1500))
    per_note = len(passages("Long 0", long_body("topic0", 1500)))
    assert per_note * 10 > 2 * 32  # more than two groups of passages
    store.search_embed_limit = 5  # notes, or rather about this many passages
    with pytest.warns(VectorsUnavailableWarning, match="no embedding yet"):
        store.search("topic1", mode="vector")
    status = store.embedding_status()
    assert 0 < status["embedded"] < 10 and status["pending"] == 10 - status["embedded"]
    assert len(embedder.embedded) <= 32 + per_note  # one group, not the whole store
    assert status["passages"] == len(embedder.embedded)
    assert store.embed_missing() == 10  # the rest, later: the new ones and the started ones


@needs_model
def test_a_text_gets_the_same_vector_whatever_it_is_embedded_with(model: object) -> None:
    texts = [DEEP_FACT, *(f"{title}\n{text}" for title, text in DISTRACTORS), FILLER[0] * 20]
    together = model.embed_documents(texts)  # type: ignore[attr-defined]
    for text, vector in zip(texts, together, strict=True):
        alone = model.embed_documents([text])[0]  # type: ignore[attr-defined]
        assert list(map(float, vector)) == list(map(float, alone))
