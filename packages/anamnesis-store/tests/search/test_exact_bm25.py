"""FTS5's bm25, recomputed in Python for a few notes, must be FTS5's to the last bit."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.search import exact_bm25
from anamnesis.store.search.query import match_expression


def _doc_freq(conn: sqlite3.Connection, total: int) -> Callable[[str], int]:
    """As the ranker counts: exact below half of all notes, stopping at half."""

    def count(token: str) -> int:
        row = conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
            (f'"{token}"', (total + 1) // 2),
        ).fetchone()
        return int(row[0])

    return count


def _fts5_scores(conn: sqlite3.Connection, tokens: list[str], rowids: list[int]) -> list[float]:
    expression = match_expression(tokens)
    return [
        conn.execute(
            "SELECT bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ? AND rowid = ?",
            (expression, rowid),
        ).fetchone()[0]
        for rowid in rowids
    ]


@pytest.fixture
def zipf_store(store: MemoryStore) -> MemoryStore:
    rng = random.Random(11)
    vocabulary = [f"w{i}" for i in range(200)] + ["Running", "runs", "RUN"]  # stems meet
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    for _ in range(300):
        store.write(
            type="semantic",
            title=" ".join(rng.choices(vocabulary, weights, k=rng.randint(1, 5))),
            body=" ".join(rng.choices(vocabulary, weights, k=rng.randint(0, 120))),
            tags=rng.sample(vocabulary[:30], rng.randint(0, 3)),
        )
    return store


def test_scores_are_fts5s_to_the_last_bit(zipf_store: MemoryStore) -> None:
    conn = zipf_store._connection()
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    doc_freq = _doc_freq(conn, total)
    clamped = [w for w in ("w0", "w1") if doc_freq(w) * 2 >= total]
    assert clamped  # words in half the notes or more, whose IDF FTS5 floors, are covered
    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(210)] + ["run", "running"]  # some in no note
    compared = 0
    for _ in range(60):
        tokens = rng.choices(vocabulary, k=rng.randint(1, 9))
        tokens += rng.sample(tokens, rng.randint(0, 2))  # a word twice is two phrases
        rowids = [
            row[0]
            for row in conn.execute(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?",
                (match_expression(tokens),),
            )
        ]
        if not rowids:
            continue
        chosen = rng.sample(rowids, min(len(rowids), rng.randint(1, 8)))
        got = exact_bm25.scores(conn, tokens, match_expression(tokens), doc_freq, total, chosen)
        assert got is not None, tokens
        # Exact equality on purpose: near ties are ordered by these bits.
        assert [got[rowid] for rowid in chosen] == _fts5_scores(conn, tokens, chosen), tokens
        compared += len(chosen)
    assert compared > 100


def test_fts5_is_asked_for_many_notes_in_one_statement(zipf_store: MemoryStore) -> None:
    conn = zipf_store._connection()
    tokens = ["w1", "w4", "w30", "w4", "naïve"]  # repeats and a word beyond ASCII too
    expression = match_expression(tokens)
    rowids = [
        row[0]
        for row in conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid LIMIT 12",
            (expression,),
        )
    ]
    statements: list[str] = []
    conn.set_trace_callback(statements.append)
    try:
        got = exact_bm25.fts5_scores(conn, expression, [*rowids, 10**6])  # one in no note
    finally:
        conn.set_trace_callback(None)
    assert [got[rowid] for rowid in rowids] == _fts5_scores(conn, tokens, rowids)
    assert 10**6 not in got
    assert len([sql for sql in statements if "bm25(" in sql]) == 1
    assert exact_bm25.fts5_scores(conn, expression, []) == {}


def test_recounting_declines_when_asking_fts5_costs_less(zipf_store: MemoryStore) -> None:
    conn = zipf_store._connection()
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    tokens = ["w2", "w5"]
    expression = match_expression(tokens)
    rowids = [1, 2, 3]

    def recounted(budget_us: float) -> dict[int, float] | None:
        doc_freq = _doc_freq(conn, total)
        return exact_bm25.scores(conn, tokens, expression, doc_freq, total, rowids, None, budget_us)

    assert recounted(0.0) is None
    assert recounted(1e9) == exact_bm25.fts5_scores(conn, expression, rowids)
    # The cost of asking grows with the phrases and the notes holding them.
    assert exact_bm25.fts5_cost_us(2, 100) < exact_bm25.fts5_cost_us(2, 10_000)
    assert exact_bm25.fts5_cost_us(2, 100) < exact_bm25.fts5_cost_us(6, 100)


def test_a_searchs_occurrences_count_each_phrase_in_each_note_once(
    zipf_store: MemoryStore,
) -> None:
    conn = zipf_store._connection()
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    doc_freq = _doc_freq(conn, total)
    tokens = ["w2", "w5", "w9", "w2"]
    expression = match_expression(tokens)
    rowids = [
        row[0]
        for row in conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid LIMIT 6",
            (expression,),
        )
    ]
    assert len(rowids) == 6
    seen = exact_bm25.Occurrences()
    highlighted: list[str] = []
    conn.set_trace_callback(lambda sql: highlighted.append(sql) if "highlight(" in sql else None)
    try:
        first = exact_bm25.scores(conn, tokens, expression, doc_freq, total, rowids[:3], seen)
        counted_first = len(highlighted)
        again = exact_bm25.scores(conn, tokens, expression, doc_freq, total, rowids[:3], seen)
        counted_again = len(highlighted)
        wider = exact_bm25.scores(conn, tokens, expression, doc_freq, total, rowids, seen)
    finally:
        conn.set_trace_callback(None)
    assert counted_first == 3  # one statement per distinct phrase
    assert again == first and counted_again == counted_first  # nothing counted twice
    # Only the three new notes are highlighted, and every score is still FTS5's.
    assert all(
        sql.endswith(f"rowid IN ({','.join(map(str, rowids[3:]))})")
        for sql in highlighted[counted_again:]
    )
    assert len(highlighted) == counted_again + 3
    assert wider is not None
    assert [wider[rowid] for rowid in rowids] == _fts5_scores(conn, tokens, rowids)


def test_phrases_of_more_than_one_plain_word_are_left_to_fts5(zipf_store: MemoryStore) -> None:
    conn = zipf_store._connection()
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    for tokens in (["w1", "snake_case"], ["naïve", "w2"]):
        assert (
            exact_bm25.scores(
                conn, tokens, match_expression(tokens), _doc_freq(conn, total), total, [1]
            )
            is None
        )


def test_a_note_holding_the_marker_is_left_to_fts5(store: MemoryStore) -> None:
    mem = store.write(type="semantic", title="w1 marked", body=f"w1 {exact_bm25._MARK} here")
    store.write(type="semantic", title="other", body="nothing")
    conn = store._connection()
    seq = conn.execute("SELECT seq FROM memories WHERE id = ?", (mem.id,)).fetchone()[0]
    assert (
        exact_bm25.scores(conn, ["w1"], match_expression(["w1"]), _doc_freq(conn, 2), 2, [seq])
        is None
    )


def test_counts_from_another_state_of_the_index_are_refused(store: MemoryStore) -> None:
    store.write(type="semantic", title="w1", body="w1")
    conn = store._connection()
    assert (
        exact_bm25.scores(conn, ["w1"], match_expression(["w1"]), _doc_freq(conn, 1), 1, [1])
        is not None
    )
    assert (
        exact_bm25.scores(conn, ["w1"], match_expression(["w1"]), _doc_freq(conn, 1), 2, [1])
        is None
    )


def test_a_sqlite_that_computes_otherwise_is_found_out_and_asked_instead(
    zipf_store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    conn = zipf_store._connection()
    total = conn.execute("SELECT count(*) FROM memories").fetchone()[0]
    monkeypatch.setattr(exact_bm25, "_agrees_with_fts5", None)  # not yet checked
    monkeypatch.setattr(exact_bm25, "K1", 1.2000000001)  # one bit of arithmetic off

    def scored() -> dict[int, float] | None:
        tokens = ["w3", "w7"]
        expression = match_expression(tokens)
        return exact_bm25.scores(conn, tokens, expression, _doc_freq(conn, total), total, [1, 2])

    assert scored() is None
    assert exact_bm25._agrees_with_fts5 is False
    monkeypatch.setattr(exact_bm25, "K1", 1.2)
    # Once found out, never trusted again in this process.
    assert scored() is None


@pytest.mark.parametrize(
    ("blob", "values"),
    [
        (b"\x00", [0]),
        (b"\x7f\x81\x00", [127, 128]),
        (b"\x08\x85\x62\x03", [8, 738, 3]),
        (b"\xff" * 9, [2**64 - 1]),
        (b"\x81\x80\x80\x80\x80\x80\x80\x80\x00\x05", [1 << 57, 5]),
    ],
)
def test_sqlite_varints_are_read(blob: bytes, values: list[int]) -> None:
    assert exact_bm25._varints(blob) == values
