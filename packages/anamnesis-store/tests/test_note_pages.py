"""every_note: a listing a page at a time gives exactly what one list call gives."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

from anamnesis.store import MemoryStore, every_note

sys.path.insert(0, str(Path(__file__).parent))
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
