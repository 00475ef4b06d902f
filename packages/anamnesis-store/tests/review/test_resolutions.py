"""Answers to a review, on a real store: keep one (the other superseded, never deleted),
both are right (never proposed again, also after a reindex: the field is in the files), a
due note confirmed; and which notes are due."""

from __future__ import annotations

import pytest

from anamnesis.store import InvalidNote, MemoryStore, NoteNotFound, is_due, parse_note

OLD_PORT = "`pnpm dev` serves the dashboard on http://localhost:3000."
NEW_PORT = "After the move to Vite, `pnpm dev` listens on localhost:5173 now."


def _pair(store: MemoryStore) -> tuple[str, str]:
    older = store.write(
        type="procedural", title="Dashboard dev server port", body=OLD_PORT, project="web"
    )
    newer = store.write(
        type="procedural", title="Dashboard dev server moved to 5173", body=NEW_PORT, project="web"
    )
    return older.id, newer.id


def _pairs(store: MemoryStore) -> list[tuple[str, str]]:
    return [pair.ids for pair in store.contradictions()]


def test_keep_one_supersedes_the_other_and_deletes_nothing(store: MemoryStore) -> None:
    older, newer = _pair(store)
    assert _pairs(store) == [(older, newer)]
    before = store.get(newer)

    kept = store.keep(newer, older)

    assert kept.supersedes == [older]
    assert kept.reviewed_at and kept.reviewed_at >= before.created_at
    assert kept.updated_at == before.updated_at  # a review changes no word
    assert kept.body == before.body
    assert store.get(older).body == OLD_PORT  # still there, in the history
    assert older in store.superseded_ids()
    assert [note.id for note in store.search("dev server port", project="web")] == [newer]
    assert _pairs(store) == []
    assert store.possible_contradictions(store.get(newer)) == []
    assert parse_note(store.file_of(newer).read_text()).supersedes == [older]


def test_keep_twice_lists_the_other_once(store: MemoryStore) -> None:
    older, newer = _pair(store)
    store.keep(newer, older)
    assert store.keep(newer, older).supersedes == [older]


def test_keep_refuses_a_note_over_itself_and_unknown_notes(store: MemoryStore) -> None:
    older, _newer = _pair(store)
    with pytest.raises(InvalidNote):
        store.keep(older, older)
    with pytest.raises(NoteNotFound):
        store.keep(older, "01JZZZZZZZZZZZZZZZZZZZZZZZ")
    assert store.get(older).supersedes == []


def test_both_right_is_remembered_in_both_files_and_never_proposed_again(
    store: MemoryStore,
) -> None:
    older, newer = _pair(store)
    assert _pairs(store) == [(older, newer)]

    store.mark_compatible(older, newer)

    first, second = store.get(older), store.get(newer)
    assert first.compatible_with == [newer]
    assert second.compatible_with == [older]
    assert first.reviewed_at and second.reviewed_at
    assert _pairs(store) == []
    assert store.possible_contradictions(second) == []
    assert store.possible_contradictions(first) == []
    # the files say so: a store rebuilt from them (another machine after a sync) agrees
    assert parse_note(store.file_of(newer).read_text()).compatible_with == [older]
    store.reindex()
    assert _pairs(store) == []
    store.close()
    with MemoryStore(store.root) as reopened:
        assert _pairs(reopened) == []


def test_one_side_naming_the_other_is_enough(store: MemoryStore) -> None:
    older, newer = _pair(store)
    store.update(older, compatible_with=[newer])  # as a file edited on one side only
    assert _pairs(store) == []
    assert store.possible_contradictions(store.get(newer)) == []


def test_both_right_with_itself_is_refused(store: MemoryStore) -> None:
    older, _newer = _pair(store)
    with pytest.raises(InvalidNote):
        store.mark_compatible(older, older)


def test_due_notes_are_listed_until_a_person_confirms_them(store: MemoryStore) -> None:
    due = store.write(type="semantic", title="TLS certificate", body="Renew in March.",
                      project="web", review_after="2020-03-01")  # fmt: skip
    later = store.write(type="semantic", title="Later", body="x", project="web",
                        review_after="2999-01-01")  # fmt: skip
    store.write(type="semantic", title="Never", body="y", project="web")
    other = store.write(type="semantic", title="Other project", body="z", project="api",
                        review_after="2021-01-01")  # fmt: skip

    assert [note.id for note in store.due_for_review()] == [due.id, other.id]
    assert [note.id for note in store.due_for_review(project="web")] == [due.id]
    assert [note.id for note in store.due_for_review(now="3000-01-01")] == [
        due.id, other.id, later.id,
    ]  # fmt: skip

    confirmed = store.mark_reviewed(due.id)
    assert confirmed.reviewed_at and not is_due(confirmed)
    assert confirmed.review_after == "2020-03-01"
    assert [note.id for note in store.due_for_review()] == [other.id]

    moved = store.mark_reviewed(other.id, review_after="2030-06-30")
    assert moved.review_after == "2030-06-30"
    assert store.due_for_review() == []
    assert [note.id for note in store.due_for_review(now="2030-07-01")] == [other.id]
    cleared = store.mark_reviewed(other.id, review_after="")
    assert cleared.review_after == ""
    assert store.due_for_review(now="3000-01-01") == [store.get(later.id)]


def test_superseded_and_expired_notes_are_never_due(store: MemoryStore) -> None:
    old = store.write(type="semantic", title="Old", body="a", project="web",
                      review_after="2020-01-01")  # fmt: skip
    store.write(type="semantic", title="New", body="b", project="web", supersedes=[old.id])
    store.write(type="semantic", title="Gone", body="c", project="web",
                review_after="2020-01-01", valid_until="2020-06-01")  # fmt: skip
    assert store.due_for_review() == []


def test_mark_reviewed_checks_its_date(store: MemoryStore) -> None:
    note = store.write(type="semantic", title="T", body="b", project="web")
    with pytest.raises(InvalidNote, match="review_after"):
        store.mark_reviewed(note.id, review_after="next tuesday")
    assert store.get(note.id).reviewed_at == ""
