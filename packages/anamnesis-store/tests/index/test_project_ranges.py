"""Each project's notes live in a rowid range of their own, so that a search within the
project scores none of the others: the answers stay spec 002's, notes that move between
projects move ranges, and the rowids stay where their project says."""

from __future__ import annotations

import random

import pytest

from anamnesis.store import MemoryStore
from anamnesis.store.index import project_seq
from anamnesis.store.search.query import query_tokens
from search_testing import WORDS, _random_store, _scores, _spec_ids

PROJECTS = ["p", "q", "r", "global"]


def _assert_rowids_in_their_project_ranges(store: MemoryStore) -> None:
    conn = store._connection()
    rows = conn.execute("SELECT seq, project FROM memories").fetchall()
    assert rows
    for seq, project in rows:
        span = project_seq.rowid_range(conn, project)
        assert span is not None, project
        assert span[0] <= seq <= span[1], (seq, project)


def test_project_searches_match_the_spec_after_notes_move_between_projects(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_KEYWORD_RANKING", "spec")  # every word, as the spec
    rng = random.Random(29)
    ids = _random_store(store, rng, 150)
    for memory_id in rng.sample(ids, 40):  # a new project's range, or another's
        store.update(memory_id, project=rng.choice(PROJECTS))
    _assert_rowids_in_their_project_ranges(store)
    conn = store._connection()
    found_in_r = 0
    for _ in range(60):
        query = " ".join(rng.choices(WORDS, k=rng.randint(1, 6)))
        project = rng.choice([*PROJECTS, "never-used"])
        k = rng.choice([1, 3, 8, 20])
        expected = _spec_ids(conn, query_tokens(query), k, project)
        got = store.search(query, project=project, k=k, mode="keyword")
        assert all(note.project == project for note in got), query
        assert len(got) == len(expected), (query, project)
        assert _scores(conn, query, [m.id for m in got]) == _scores(conn, query, expected)
        found_in_r += project == "r" and bool(got)
    assert found_in_r > 0  # the project only moved notes are in is searched too


def test_a_reindex_puts_every_note_in_its_project_range(store: MemoryStore) -> None:
    _random_store(store, random.Random(3), 40)
    store.reindex()
    _assert_rowids_in_their_project_ranges(store)
    slots = store._connection().execute("SELECT count(*) FROM project_slots").fetchone()[0]
    assert slots == 3  # p, q, global


def test_a_project_no_note_was_ever_in_has_no_range(store: MemoryStore) -> None:
    store.write(type="semantic", title="gateway", body="gateway timeout", project="p")
    conn = store._connection()
    assert project_seq.rowid_range(conn, "elsewhere") is None
    assert store.search("gateway", project="elsewhere", mode="keyword") == []
    assert [m.title for m in store.search("gateway", project="p", mode="keyword")] == ["gateway"]
