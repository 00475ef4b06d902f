"""Keyword recall as spec 002 describes it: overlap, stemming, punctuation, filters, k,
BM25 then recency."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anamnesis.store import InvalidQuery, Memory, MemoryStore
from anamnesis.store.search.query import match_expression, query_tokens


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
