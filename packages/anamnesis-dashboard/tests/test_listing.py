"""The list page's query over a real store: a machine filter pages like any other."""

from __future__ import annotations

from anamnesis.dashboard.views.listing import PAGE_SIZE, ListQuery, list_page
from anamnesis.store import MemoryStore


def test_a_machine_filter_pages_through_that_machine_s_notes(store: MemoryStore) -> None:
    for index in range(PAGE_SIZE * 2):
        machine = "desk" if index % 3 else "laptop"  # interleaved with another machine's
        store.write(type="semantic", title=f"n{index}", body="x", project="p", machine_id=machine)
    desk = [note.id for note in store.list(include_body=False) if note.machine_id == "desk"]
    assert len(desk) > PAGE_SIZE
    first = list_page(store, ListQuery(machine="desk"))
    second = list_page(store, ListQuery(machine="desk", page=2))
    assert first.total == second.total == len(desk)
    assert [note.id for note in first.notes] == desk[:PAGE_SIZE]
    assert [note.id for note in second.notes] == desk[PAGE_SIZE:]
    assert list_page(store, ListQuery(machine="nobody")).total == 0
