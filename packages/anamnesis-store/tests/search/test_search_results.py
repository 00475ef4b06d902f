"""What a search returns besides notes: each hit's score and the mode that ran; and ids
given by a unique prefix, as git takes a short hash."""

from __future__ import annotations

import pytest

from anamnesis.store import (
    AmbiguousId,
    InvalidNote,
    MemoryStore,
    NoteNotFound,
    VectorsUnavailableWarning,
)


def test_keyword_hits_carry_bm25_as_higher_is_better(store: MemoryStore) -> None:
    best = store.write(type="semantic", title="sqlite locked", body="database is locked: wal")
    other = store.write(type="semantic", title="postgres", body="the sqlite docs say little")
    found = store.search_scored("sqlite locked", mode="keyword")
    assert found.mode == found.asked == "keyword" and found.fallback == ""
    assert [hit.note.id for hit in found.hits] == [best.id, other.id]
    conn = store._connection()
    spec = dict(
        conn.execute(
            "SELECT m.id, bm25(memories_fts) FROM memories_fts JOIN memories m"
            " ON m.seq = memories_fts.rowid WHERE memories_fts MATCH ?",
            ('"sqlite" OR "locked"',),
        ).fetchall()
    )
    for hit in found.hits:
        assert hit.score == pytest.approx(-spec[hit.note.id])
    assert found.hits[0].score > found.hits[1].score > 0


def test_search_still_returns_the_notes_of_search_scored(store: MemoryStore) -> None:
    for i in range(5):
        store.write(type="semantic", title=f"note {i}", body=f"shared word {'x' * i}")
    assert store.search("shared word") == store.search_scored("shared word").notes


def test_a_query_without_words_finds_nothing(store: MemoryStore) -> None:
    store.write(type="semantic", title="anything", body="at all")
    found = store.search_scored("?! ...")
    assert found.hits == [] and found.mode == "keyword"


def test_vectors_asked_for_but_unavailable_say_keyword_ran_and_why(store: MemoryStore) -> None:
    store.write(type="semantic", title="wal mode", body="sqlite locked")
    # The fixture's model folder does not exist: vectors cannot run, whatever the Python.
    with pytest.warns(VectorsUnavailableWarning, match="keywords only"):
        found = store.search_scored("sqlite", mode="hybrid")
    assert found.asked == "hybrid" and found.mode == "keyword"
    assert found.fallback
    assert [hit.note.title for hit in found.hits] == ["wal mode"]


def test_an_id_prefix_of_six_or_more_characters_names_its_note(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="one", body="body")
    assert store.resolve_id(note.id) == note.id
    assert store.resolve_id(note.id[:6]) == note.id
    assert store.resolve_id(note.id[:10].lower()) == note.id  # typed ids ignore case
    assert store.resolve_id(f"  {note.id[:8]} ") == note.id


def test_an_ambiguous_prefix_lists_the_candidates(store: MemoryStore) -> None:
    notes = [store.write(type="semantic", title=f"n{i}", body="b") for i in range(3)]
    common = notes[0].id[:6]  # written within the same millisecond range: same time part
    assert all(n.id.startswith(common) for n in notes)
    with pytest.raises(AmbiguousId) as caught:
        store.resolve_id(common)
    assert sorted(caught.value.candidates) == sorted(n.id for n in notes)
    assert "ambiguous" in str(caught.value) and notes[0].id in str(caught.value)


def test_prefixes_that_cannot_name_a_note_are_refused_clearly(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="one", body="body")
    with pytest.raises(InvalidNote, match="at least 6"):
        store.resolve_id(note.id[:5])
    with pytest.raises(InvalidNote, match=r"ids have no '\.', '/'"):
        store.resolve_id("../../etc/passwd")
    with pytest.raises(InvalidNote, match="longer than a note id"):
        store.resolve_id(note.id + "0")
    with pytest.raises(NoteNotFound, match="no note starts with ZZZZZZZ"):
        store.resolve_id("zzzzzzz")  # no id starts past 7: a prefix that finds nothing
    with pytest.raises(InvalidNote):
        store.resolve_id("")
    with pytest.raises(NoteNotFound):
        store.resolve_id("7ZZZZZZZ")
    # A whole id is returned as it is: get() says whether a note has it.
    assert store.resolve_id("7" + "Z" * 25) == "7" + "Z" * 25
