"""every_note: a listing a page at a time gives exactly what one list call gives;
each_note_once: every note exactly once, even while notes are edited and deleted."""

from __future__ import annotations

import random
from typing import Any

from anamnesis.store import MemoryStore, every_note
from anamnesis.store.exchange.note_pages import each_note_once
from search_testing import _random_store

FILTERS: list[dict[str, Any]] = [
    {},
    {"project": "p"},
    {"type": "semantic", "include_superseded": False},
    {"tag": "sqlite"},
    {"exclude_tag": "lock", "scope": "portable"},
    {"limit": 37},
    {"limit": 0},
]


def test_pages_give_the_listing(store: MemoryStore) -> None:
    rng = random.Random(8)
    ids = _random_store(store, rng, 90)
    # Ties in updated_at and confidence, so the id decides: pages must not split them wrong.
    for memory_id in ids[:30]:
        mem = store.get(memory_id)
        store.put(mem.replace(updated_at="2026-02-01T00:00:00+00:00", confidence=0.5))
    for filters in FILTERS:
        whole = [m.to_dict() for m in store.list(**filters)]
        assert whole or filters.get("limit") == 0, filters
        for page in (1, 7, 1000):
            paged = [m.to_dict() for m in every_note(store, page=page, **filters)]
            assert paged == whole, (filters, page)
    paged_bare = list(every_note(store, page=10, include_body=False))
    assert paged_bare == store.list(include_body=False)
    assert all(note.body == "" for note in paged_bare)


def _walk_while_editing(store: MemoryStore, walk: Any, ids: list[str]) -> list[str]:
    """The ids a walk hands on while, after its 8th note, the oldest note (not reached
    yet) is edited, moving it to the front of the recency order, and the second oldest
    is deleted."""
    handed: list[str] = []
    oldest, second = ids[0], ids[1]
    for note in walk:
        handed.append(note.id)
        if len(handed) == 8:
            edited = store.get(oldest)
            store.put(
                edited.replace(body=edited.body + " edited", updated_at="2027-01-01T00:00:00+00:00")
            )
            store.delete(second)
    return handed


def test_each_note_once_hands_on_a_note_edited_during_the_walk(store: MemoryStore) -> None:
    ids = _random_store(store, random.Random(3), 30)  # ids[0] is the oldest
    handed = _walk_while_editing(store, each_note_once(store, page=5), ids)
    assert len(handed) == len(set(handed))
    assert set(handed) == set(ids) - {ids[1]}  # the deleted one was never reached
    assert ids[0] in handed


def test_a_plain_listing_misses_it_which_is_why(store: MemoryStore) -> None:
    ids = _random_store(store, random.Random(3), 30)
    handed = _walk_while_editing(store, every_note(store, page=5), ids)
    assert ids[0] not in handed
