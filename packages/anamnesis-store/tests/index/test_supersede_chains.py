"""Supersede chains: searching the history (``include_superseded``), who supersedes each hit
(``SearchHit.superseded_by``), and a note's whole chain both ways (``supersede_chain``).
Real stores throughout; keyword answers are checked against spec 002's literal SQL with the
supersession clause dropped."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.embedders import BagOfWordsEmbedder

from anamnesis.store import (
    InvalidNote,
    InvalidQuery,
    MemoryStore,
    NoteNotFound,
    SupersedeChain,
)
from anamnesis.store.index.note_queries import Filters
from anamnesis.store.search.query import Ranker, match_expression, query_tokens
from anamnesis.store.vectors.embedding import sqlite_vec_problem
from search_testing import WORDS, _plan_by_budget, _random_store, _scores, _zipf_store
from store_testing import write_note

# Spec 002's query without its supersession clause: what a search of the history returns.
HISTORY_SQL = (
    "SELECT m.id FROM memories_fts f JOIN memories m ON m.seq = f.rowid WHERE memories_fts MATCH ?"
    "{filters} ORDER BY bm25(memories_fts), m.updated_at DESC LIMIT ?"
)


def history_ids(
    conn: sqlite3.Connection, query: str, k: int, project: str | None = None
) -> list[str]:
    where, params = (" AND m.project = ?", [project]) if project else ("", [])
    sql = HISTORY_SQL.format(filters=where)
    return [
        row[0] for row in conn.execute(sql, [match_expression(query_tokens(query)), *params, k])
    ]


def port_notes(store: MemoryStore) -> tuple[str, str, str]:
    """Three notes about the API port, each superseding the one before: oldest first."""
    first = write_note(store, title="API port", body="The API listens on port 8080")
    second = write_note(store, title="API port", body="The API port is 9090 now",
                        supersedes=[first.id])  # fmt: skip
    third = write_note(store, title="API port", body="The API port is 9443 (TLS)",
                       supersedes=[second.id])  # fmt: skip
    return first.id, second.id, third.id


# -- search ---------------------------------------------------------------------------------


def test_superseded_notes_are_hidden_by_default_and_found_on_request(store: MemoryStore) -> None:
    first, second, third = port_notes(store)
    hidden = store.search_scored("API port", k=10)
    assert [hit.note.id for hit in hidden.hits] == [third]
    assert [hit.superseded_by for hit in hidden.hits] == [()]
    assert [note.id for note in store.search("API port")] == [third]

    shown = store.search_scored("API port", k=10, include_superseded=True)
    by_id = {hit.note.id: hit for hit in shown.hits}
    assert set(by_id) == {first, second, third}
    assert by_id[first].superseded_by == (second,)
    assert by_id[second].superseded_by == (third,)
    assert by_id[third].superseded_by == ()
    assert {note.id for note in store.search("API port", include_superseded=True)} == set(by_id)
    # A word only the oldest note has: found only when the history is searched.
    assert store.search("8080") == []
    assert [note.id for note in store.search("8080", include_superseded=True)] == [first]


def test_every_superseder_is_listed_sorted(store: MemoryStore) -> None:
    old = write_note(store, title="Deploy", body="deploy with the old script")
    a = write_note(store, title="Deploy A", body="deploy A", supersedes=[old.id])
    b = write_note(store, title="Deploy B", body="deploy B", supersedes=[old.id])
    [hit] = [h for h in store.search_scored("deploy", include_superseded=True).hits
             if h.note.id == old.id]  # fmt: skip
    assert hit.superseded_by == tuple(sorted([a.id, b.id]))
    assert store.superseders()[old.id] == list(hit.superseded_by)


@pytest.mark.parametrize("seed", range(4))
def test_searching_the_history_matches_the_spec_sql_without_its_supersession_clause(
    store: MemoryStore, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_KEYWORD_RANKING", "spec")  # every word, as the spec
    rng = random.Random(seed)
    _random_store(store, rng, 120)  # about one note in ten supersedes an earlier one
    superseders = store.superseders()
    assert superseders  # the store does hold a history
    conn = store._connection()
    found_superseded = 0
    for _ in range(40):
        query = " ".join(rng.choices([*WORDS, "zzz"], k=rng.randint(1, 9)))
        project = rng.choice([None, "p", "global"])
        k = rng.choice([1, 3, 8, 20])
        expected = history_ids(conn, query, k, project)
        hits = store.search_scored(query, project=project, k=k, include_superseded=True).hits
        got = [hit.note.id for hit in hits]
        # The spec leaves the order of exact (score, updated_at) ties open; ours adds id.
        assert _scores(conn, query, got) == _scores(conn, query, expected), query
        for hit in hits:
            assert hit.superseded_by == tuple(superseders.get(hit.note.id, [])), query
            found_superseded += bool(hit.superseded_by)
        # The default search still hides them, and says no hit is superseded.
        for hit in store.search_scored(query, project=project, k=k).hits:
            assert hit.note.id not in superseders and hit.superseded_by == ()
    assert found_superseded > 10  # superseded notes did rank among the others


def test_rare_first_planning_ranks_the_history_exactly(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keyword ranker's shortcuts (rare words first, in one round or by budget, and the
    clamped common words) give the full query's answer with superseded notes included too."""
    rng = random.Random(7)
    vocabulary = _zipf_store(store, rng)  # one note in twenty supersedes an earlier one
    superseded = store.superseded_ids()
    conn = store._connection()
    ranker = store._search.ranker(conn)
    history = Filters(include_superseded=True)
    before = list(ranker.rare_first_outcomes)
    reached = 0
    for _ in range(200):
        words = rng.choices(vocabulary[:8], k=rng.randint(1, 4))
        words += rng.choices(vocabulary[20:], k=rng.randint(1, 3))
        query = " ".join(rng.sample(words, len(words)))
        k = rng.choice([1, 3, 8, 20])
        with monkeypatch.context() as patch:
            if rng.random() < 0.5:
                _plan_by_budget(patch, rng.choice([0.04, 0.12, 0.3]))
            fast = [
                memory_id for memory_id, _ in ranker.ranked_ids(query_tokens(query), history, k)
            ]
        assert _scores(conn, query, fast) == _scores(conn, query, history_ids(conn, query, k)), (
            query
        )
        reached += bool(superseded & set(fast))
    assert ranker.rare_first_outcomes[1] > before[1]  # the shortcut did prove answers
    assert reached > 20  # and superseded notes were among them


def test_include_superseded_must_be_a_bool(store: MemoryStore) -> None:
    write_note(store, body="anything")
    for wrong in ("yes", 1, None):
        with pytest.raises(InvalidQuery, match="include_superseded"):
            store.search("anything", include_superseded=wrong)  # type: ignore[arg-type]


def test_a_supersedes_added_on_disk_shows_in_the_next_search(store: MemoryStore) -> None:
    """The markdown is the truth: a file edited behind the store's back (a sync, a hand
    edit) to supersede another note hides that note and names its superseder."""
    old = write_note(store, title="Cache size", body="cache holds 64 MB")
    new = write_note(store, title="Cache size", body="cache holds 256 MB")
    path = store.file_of(new.id)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("---\n", f"---\nsupersedes: [{old.id}]\n", 1), "utf-8")
    assert [note.id for note in store.search("cache")] == [new.id]
    hits = {h.note.id: h for h in store.search_scored("cache", include_superseded=True).hits}
    assert hits[old.id].superseded_by == (new.id,)
    assert store.supersede_chain(new.id).older == (old.id,)


def test_superseders_are_looked_up_once_and_only_when_the_history_is_searched(
    store: MemoryStore,
) -> None:
    port_notes(store)
    lookups: list[str] = []
    conn = store._connection()
    conn.set_trace_callback(
        lambda sql: lookups.append(sql) if "FROM memory_supersedes WHERE" in sql else None
    )
    try:
        store.search("API port", k=10)
        assert lookups == []  # the default path pays nothing for superseded_by
        store.search("API port", k=10, include_superseded=True)
        assert len(lookups) == 1
    finally:
        conn.set_trace_callback(None)


# -- vector and hybrid --------------------------------------------------------------------

VEC_PROBLEM = sqlite_vec_problem()


@pytest.fixture
def vstore(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE", raising=False)
    with MemoryStore(tmp_path / "v", embedder=BagOfWordsEmbedder(16)) as store:
        yield store


@pytest.mark.skipif(VEC_PROBLEM is not None, reason=VEC_PROBLEM or "")
@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_vector_and_hybrid_search_the_history_on_request(vstore: MemoryStore, mode: str) -> None:
    first, second, third = port_notes(vstore)
    for index in range(30):  # enough notes that the nearest ones are not simply all of them
        write_note(
            vstore, title=f"note {index}", body=" ".join(random.Random(index).choices(WORDS, k=8))
        )
    vstore.embed_missing()
    hidden = vstore.search_scored("API port", mode=mode, k=5)
    assert hidden.mode == mode
    assert {hit.note.id for hit in hidden.hits} & {first, second, third} == {third}
    assert all(hit.superseded_by == () for hit in hidden.hits)
    shown = vstore.search_scored("API port", mode=mode, k=5, include_superseded=True)
    by_id = {hit.note.id: hit.superseded_by for hit in shown.hits}
    assert {first: (second,), second: (third,), third: ()}.items() <= by_id.items()
    for memory_id, newer in by_id.items():
        assert newer == tuple(vstore.superseders().get(memory_id, []))


# -- supersede_chain ------------------------------------------------------------------------


def test_a_chain_is_followed_both_ways_nearest_first(store: MemoryStore) -> None:
    first, second, third = port_notes(store)
    middle = store.supersede_chain(second)
    assert isinstance(middle, SupersedeChain)
    assert (middle.id, middle.older, middle.newer) == (second, (first,), (third,))
    assert middle.latest == (third,)
    assert set(middle.links) == {(second, first), (third, second)}
    oldest = store.supersede_chain(first)
    assert (oldest.older, oldest.newer, oldest.latest) == ((), (second, third), (third,))
    newest = store.supersede_chain(third)
    assert (newest.older, newest.newer, newest.latest) == ((second, first), (), (third,))
    assert newest.missing == ()
    alone = write_note(store, body="unrelated")
    assert store.supersede_chain(alone.id) == SupersedeChain(alone.id)
    assert store.supersede_chain(alone.id).latest == (alone.id,)


def test_a_branching_chain_lists_every_note_once(store: MemoryStore) -> None:
    a = write_note(store, body="a").id
    b = write_note(store, body="b").id
    merged = write_note(store, body="a and b", supersedes=[a, b]).id  # a merge
    fork_one = write_note(store, body="one", supersedes=[merged]).id
    fork_two = write_note(store, body="two", supersedes=[merged]).id
    final = write_note(store, body="both forks settled", supersedes=[fork_one, fork_two]).id
    chain = store.supersede_chain(a)
    assert chain.newer == (merged, *sorted([fork_one, fork_two]), final)
    assert chain.latest == (final,)
    assert store.supersede_chain(final).older == (*sorted([fork_one, fork_two]), merged,
                                                  *sorted([a, b]))  # fmt: skip
    middle = store.supersede_chain(fork_one)
    assert (middle.older, middle.newer) == ((merged, *sorted([a, b])), (final,))


def test_a_loop_ends_the_walk_instead_of_repeating_it(store: MemoryStore) -> None:
    p = write_note(store, body="p")
    q = write_note(store, body="q", supersedes=[p.id])
    r = write_note(store, body="r", supersedes=[q.id])
    store.update(p.id, supersedes=[r.id])  # p -> r -> q -> p: every note replaced
    chain = store.supersede_chain(p.id)
    assert chain.older == (r.id, q.id)
    assert chain.newer == (q.id, r.id)
    assert chain.latest == ()  # no note ends the loop
    assert set(chain.links) == {(p.id, r.id), (r.id, q.id), (q.id, p.id)}
    # Every note of the loop is superseded: a search hides all three by default.
    assert store.search("p q r") == []
    assert len(store.search("p q r", include_superseded=True)) == 3


def test_deleted_notes_in_a_chain_are_reported_missing(store: MemoryStore) -> None:
    first, second, third = port_notes(store)
    store.delete(second)
    chain = store.supersede_chain(third)
    assert chain.older == (second,)  # the link is still in the file; the walk stops there
    assert chain.missing == (second,)
    assert store.supersede_chain(first).newer == ()  # nothing in the store names it now


def test_a_chain_needs_a_note(store: MemoryStore) -> None:
    with pytest.raises(NoteNotFound):
        store.supersede_chain("01ARZ3NDEKTSV4RRFFQ69G5FAV")
    with pytest.raises(InvalidNote):
        store.supersede_chain("not-an-id")


def test_a_long_chain_is_walked_whole(store: MemoryStore) -> None:
    ids = [write_note(store, body="v0").id]
    for version in range(1, 40):
        ids.append(write_note(store, body=f"v{version}", supersedes=[ids[-1]]).id)
    assert store.supersede_chain(ids[0]).newer == tuple(ids[1:])
    assert store.supersede_chain(ids[-1]).older == tuple(reversed(ids[:-1]))
    assert store.supersede_chain(ids[20]).latest == (ids[-1],)


def test_the_ranker_with_and_without_the_history_on_one_connection(store: MemoryStore) -> None:
    """One cached ranker serves both kinds of search, in any order, without mixing them up."""
    first, _second, third = port_notes(store)
    conn = store._connection()
    ranker = Ranker(conn)
    tokens = query_tokens("API port 8080")
    assert [m for m, _ in ranker.ranked_ids(tokens, Filters(), 5)] == [third]
    history = [m for m, _ in ranker.ranked_ids(tokens, Filters(include_superseded=True), 5)]
    assert history[0] == first and len(history) == 3
    assert [m for m, _ in ranker.ranked_ids(tokens, Filters(), 5)] == [third]
