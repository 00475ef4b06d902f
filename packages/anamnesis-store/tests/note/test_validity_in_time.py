"""Validity in time: ``valid_until`` hides a note from recall once past (like a superseded
note), ``review_after`` marks it due, ``as_of`` asks the memory as it stood on a date, and
all four new fields round-trip through the file exactly, read by older readers as extras."""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.store import (
    InvalidNote,
    InvalidQuery,
    Memory,
    MemoryStore,
    check_when,
    expiry_bound,
    is_due,
    is_expired,
    is_unconfirmed,
    parse_note,
    serialize_note,
    source_word,
    validate_note,
)


def _note(**changes: object) -> Memory:
    base = Memory(
        id="01JZ0000000000000000000001",
        type="semantic",
        title="Dev server port",
        body="The dev server listens on port 3000.",
        created_at="2026-01-01T00:00:00+00:00",
        updated_at="2026-01-01T00:00:00+00:00",
    )
    return base.replace(**changes)


def test_the_new_fields_round_trip_through_the_file_exactly() -> None:
    note = _note(
        valid_until="2027-01-31",
        review_after="2026-12-01T09:30:00+00:00",
        reviewed_at="2026-11-02T10:00:00+00:00",
        compatible_with=["01JZ0000000000000000000002"],
    )
    text = serialize_note(note)
    assert "valid_until: '2027-01-31'" in text or "valid_until: 2027-01-31" in text
    back = parse_note(text)
    assert back == note
    assert serialize_note(back) == text


def test_a_note_without_them_is_written_as_before() -> None:
    text = serialize_note(_note())
    for key in ("valid_until", "review_after", "reviewed_at", "compatible_with"):
        assert key not in text


def test_a_hand_written_unquoted_date_reads_as_the_date() -> None:
    text = serialize_note(_note()).replace("tags: []", "tags: []\nvalid_until: 2027-01-31")
    assert parse_note(text).valid_until == "2027-01-31"


@pytest.mark.parametrize("bad", ["2027-02-30", "next week", "31/01/2027", "2027-13-01"])
def test_a_date_that_is_none_is_refused_naming_the_field(bad: str) -> None:
    with pytest.raises(InvalidNote, match="valid_until"):
        check_when(bad, "valid_until")


def test_a_note_cannot_be_compatible_with_itself() -> None:
    with pytest.raises(InvalidNote, match="compatible_with"):
        validate_note(_note(compatible_with=[_note().id]))


def test_a_date_means_the_whole_of_that_day_in_utc() -> None:
    note = _note(valid_until="2027-01-31")
    assert expiry_bound("2027-01-31") == "2027-02-01T00:00:00+00:00"
    assert not is_expired(note, now="2027-01-31T23:59:59+00:00")
    assert is_expired(note, now="2027-02-01T00:00:00+00:00")


def test_due_from_review_after_until_a_person_confirms_it() -> None:
    note = _note(review_after="2026-12-01")
    assert not is_due(note, now="2026-11-30T23:59:59+00:00")
    assert is_due(note, now="2026-12-01T00:00:00+00:00")
    assert not is_due(
        note.replace(reviewed_at="2026-12-02T08:00:00+00:00"), now="2026-12-03T00:00:00+00:00"
    )


def test_provenance_words_and_unconfirmed_model_notes() -> None:
    assert source_word(_note()) == "you"
    captured = _note(prov_source="session-end")
    assert source_word(captured) == "captured"
    assert is_unconfirmed(captured)
    assert not is_unconfirmed(captured.replace(reviewed_at="2026-11-02T10:00:00+00:00"))
    assert not is_unconfirmed(_note(prov_source="import"))
    assert is_unconfirmed(_note(extra={"rewritten_by": "some-model"}))


def _write(store: MemoryStore, title: str, body: str, **fields: object) -> Memory:
    return store.write(type="semantic", title=title, body=body, project="web", **fields)  # type: ignore[arg-type]


def test_an_expired_note_is_hidden_from_search_and_live_listings(store: MemoryStore) -> None:
    old = _write(
        store, "Staging URL", "staging is at staging-old.example.com", valid_until="2020-01-01"
    )
    live = _write(store, "Staging URL today", "staging is at staging.example.com")
    found = [n.id for n in store.search("staging", k=5, mode="keyword")]
    assert found == [live.id]
    with_expired = [
        n.id for n in store.search("staging", k=5, mode="keyword", include_expired=True)
    ]
    assert set(with_expired) == {old.id, live.id}
    assert [n.id for n in store.list(include_superseded=False)] == [live.id]
    assert {n.id for n in store.list()} == {old.id, live.id}  # the history stays browsable
    assert store.count(include_superseded=False) == 1
    assert store.count(include_superseded=False, include_expired=True) == 2


def test_a_note_valid_until_a_future_date_is_recalled(store: MemoryStore) -> None:
    note = _write(store, "Freeze", "code freeze for the release", valid_until="2999-12-31")
    assert [n.id for n in store.search("freeze", k=5, mode="keyword")] == [note.id]


def _dated(store: MemoryStore, title: str, body: str, created: str, **fields: object) -> Memory:
    note = Memory(
        id=store.write(type="semantic", title=title, body=body, project="web").id,
        type="semantic",
        title=title,
        body=body,
        project="web",
        created_at=created,
        updated_at=created,
        **fields,  # type: ignore[arg-type]
    )
    return store.put(note)


def test_as_of_answers_as_the_memory_stood_on_that_date(store: MemoryStore) -> None:
    first = _dated(store, "Deploy command", "deploy with make deploy", "2026-01-10T10:00:00+00:00")
    second = _dated(
        store,
        "Deploy command",
        "deploy with just ship",
        "2026-03-05T10:00:00+00:00",
        supersedes=[first.id],
    )
    temp = _dated(
        store,
        "Deploy window",
        "deploy only on tuesdays",
        "2026-01-12T10:00:00+00:00",
        valid_until="2026-02-28",
    )

    def ids(as_of: str | None) -> set[str]:
        return {n.id for n in store.search("deploy", k=10, mode="keyword", as_of=as_of)}

    assert ids("2026-01-09") == set()
    assert ids("2026-01-10") == {first.id}
    assert ids("2026-02-28") == {first.id, temp.id}  # valid through the whole day
    assert ids("2026-03-01") == {first.id}  # expired; not superseded yet
    assert ids("2026-03-05") == {second.id}  # superseded that day
    assert ids(None) == {second.id}


def test_a_bad_as_of_is_a_clear_query_error(store: MemoryStore) -> None:
    with pytest.raises(InvalidQuery, match="as_of"):
        store.search("deploy", as_of="yesterday")


def test_the_index_reads_the_fields_back_after_a_rebuild(
    store: MemoryStore, tmp_path: Path
) -> None:
    note = _write(
        store,
        "Token rotation",
        "rotate the token monthly",
        valid_until="2030-01-01",
        review_after="2027-01-01",
        compatible_with=["01JZ0000000000000000000009"],
    )
    store.reindex()
    again = store.get(note.id)
    assert (again.valid_until, again.review_after, again.compatible_with) == (
        "2030-01-01",
        "2027-01-01",
        ["01JZ0000000000000000000009"],
    )
    assert store.list(include_body=False)[0].valid_until == "2030-01-01"
