"""Checks shared by the contradiction finder's rule tests: write a pair of notes of one
project, then ask whether review and the write-time check find (or leave) the pair."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from anamnesis.store import Difference, Memory, MemoryStore
from anamnesis.store.review.compare import differences
from anamnesis.store.review.reading.facts import NoteFacts
from anamnesis.store.review.reading.text import clauses
from anamnesis.store.review.reading.values import clause_values
from store_testing import write_note

Note = tuple[str, str]  # (title, body)
Found = tuple[str, Note, Note, str]  # (rule, older, newer, the kind of difference)
LookAlike = tuple[str, Note, Note]  # (rule, older, newer)
PROJECT = "github.com/acme/shop"


def write(store: MemoryStore, note: Note, project: str = PROJECT) -> Memory:
    title, body = note
    return write_note(store, title=title, body=body, project=project)


def differing_kinds(store: MemoryStore, older: Memory, newer: Memory) -> list[list[str]]:
    """The kinds of difference `review` gives for exactly this pair (empty: not listed)."""
    return [
        [d.kind for d in pair.differs]
        for pair in store.contradictions()
        if pair.ids == (older.id, newer.id)
    ]


def compared(old: Note, new: Note) -> tuple[Difference, ...]:
    """What the compare stage says of two notes of one project, whether or not a review
    would find them neighbours (with vectors, notes in other words are)."""
    older, newer = (
        NoteFacts(
            Memory(
                id=f"01J000000000000000000000{i}A",
                type="semantic",
                title=t,
                body=b,
                project=PROJECT,
            )
        )
        for i, (t, b) in enumerate((old, new))
    )
    return differences(older, newer)


def assert_found(store: MemoryStore, rule: str, old: Note, new: Note, kind: str) -> None:
    """`review` lists the pair with a difference of ``kind``, and the write-time check
    names the older note when the newer one is written."""
    older, newer = write(store, old), write(store, new)
    found = differing_kinds(store, older, newer)
    assert found and kind in found[0], (rule, found)
    assert any(older.id in pair.ids for pair in store.possible_contradictions(newer))


def assert_left_alone(store: MemoryStore, rule: str, old: Note, new: Note) -> None:
    """Neither `review` nor the write-time check proposes the pair."""
    older, newer = write(store, old), write(store, new)
    assert differing_kinds(store, older, newer) == [], rule
    assert store.possible_contradictions(newer) == []


def wording_tests(
    found: Sequence[Found], left: Sequence[LookAlike]
) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two tests every rule file runs over its lists, one case per rule, named by it:
    each ``found`` pair is found with its kind of difference, each ``left`` pair is left
    alone. A file binds them to module names so pytest collects them there."""

    @pytest.mark.parametrize(("rule", "old", "new", "kind"), found, ids=[c[0] for c in found])
    def test_each_wording_is_found(
        store: MemoryStore, rule: str, old: Note, new: Note, kind: str
    ) -> None:
        assert_found(store, rule, old, new, kind)

    @pytest.mark.parametrize(("rule", "old", "new"), left, ids=[c[0] for c in left])
    def test_each_look_alike_is_left_alone(
        store: MemoryStore, rule: str, old: Note, new: Note
    ) -> None:
        assert_left_alone(store, rule, old, new)

    return test_each_wording_is_found, test_each_look_alike_is_left_alone


def values_read(kind: str, body: str) -> list[str]:
    """The values of ``kind`` the finder reads in a note's body, as written, in order."""
    return [
        value.shown
        for clause in clauses("", body)
        for value in clause_values(clause, False)
        if value.kind == kind
    ]


def kinds_norms_slots(body: str) -> list[tuple[str, str, str]]:
    """Each value the finder reads in a note's body: its kind, what is compared, and
    what it is a value of."""
    return [
        (value.kind, value.norm, value.slot)
        for clause in clauses("", body)
        for value in clause_values(clause, False)
    ]


def names_read(body: str) -> list[str]:
    """The names the finder reads in a note's body (:func:`values_read`)."""
    return values_read("name", body)
