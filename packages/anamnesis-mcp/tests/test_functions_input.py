"""Bad input is refused at the boundary with a fix and nothing is written; listings are cut to
fit."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from anamnesis.mcp import (
    InvalidArgument,
    functions,
    list_memories,
    search_memories,
    write_memory,
)
from anamnesis.mcp.arguments import check_call
from anamnesis.mcp.functions import (
    fit_listing,
    newest_that_fit,
)
from anamnesis.store import MemoryStore, NoteLimits


@pytest.mark.parametrize(
    ("changes", "field", "hint"),
    [
        ({"type": "fact"}, "type", "procedural"),
        ({"type": None}, "type", "procedural"),
        ({"scope": "shared"}, "scope", "machine-local"),
        ({"title": "   "}, "title", "non-empty"),
        ({"title": 7}, "title", "non-empty"),
        ({"body": ""}, "body", "empty"),
        ({"body": "x" * (NoteLimits.BODY_BYTES + 1)}, "body", "1 MB"),
        ({"project": ""}, "project", "global"),
        ({"project": ["a", "b"]}, "project", "global"),
        ({"tags": {"a": 1}}, "tags", "list"),
        ({"tags": ["ok", 3]}, "tags", "text"),
    ],
)
def test_bad_writes_are_refused_with_a_fix_and_write_nothing(
    store: MemoryStore, changes: dict[str, object], field: str, hint: str
) -> None:
    arguments: dict[str, object] = {"type": "semantic", "title": "t", "body": "b", **changes}
    with pytest.raises(InvalidArgument) as caught:
        write_memory(store, **check_call("memory_write", arguments))
    assert caught.value.name == field
    assert hint in str(caught.value)
    assert list(store.root.rglob("*.md")) == []


def test_a_body_of_exactly_one_megabyte_is_accepted(store: MemoryStore) -> None:
    body = "é" * (NoteLimits.BODY_BYTES // 2)  # two bytes each in UTF-8
    note = write_memory(store, type="semantic", title="big", body=body)
    assert store.get(note["id"]).body == body


@pytest.mark.parametrize(
    ("arguments", "field", "hint"),
    [
        ({"k": 0}, "k", "from 1 to 50"),
        ({"k": 51}, "k", "from 1 to 50"),
        ({"k": True}, "k", "whole number"),
        ({"k": "many"}, "k", "whole number"),
        ({"k": 2.5}, "k", "whole number"),
        ({"type": "facts"}, "type", "semantic"),
        ({"scope": "everywhere"}, "scope", "portable"),
        ({"project": {"contains": "api"}}, "project", "one project key"),
        ({"project": ["a"]}, "project", "one project key"),
        ({"project": "github.com/acme/*"}, "project", "patterns"),
        ({"project": "  "}, "project", "leave it out"),
        ({"query": 42}, "query", "text"),
    ],
)
def test_bad_searches_are_refused_with_a_fix(
    store: MemoryStore, arguments: dict[str, object], field: str, hint: str
) -> None:
    call: dict[str, object] = {"query": "deploy", **arguments}
    with pytest.raises(InvalidArgument) as caught:
        search_memories(store, **check_call("memory_search", call))
    assert caught.value.name == field
    assert hint in str(caught.value)


def test_bad_list_filters_are_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidArgument, match="type"):
        list_memories(store, **check_call("memory_list", {"type": "notes"}))
    with pytest.raises(InvalidArgument, match="project"):
        list_memories(store, **check_call("memory_list", {"project": ["x"]}))


def test_fit_listing_keeps_the_leading_notes_that_fit() -> None:
    notes = [{"id": str(index), "title": "x" * 90} for index in range(10)]
    whole = json.dumps(notes, ensure_ascii=False)
    assert fit_listing(notes, len(whole)) == notes
    cut = fit_listing(notes, len(whole) - 1)
    assert cut == notes[:9]
    assert len(json.dumps(cut, ensure_ascii=False)) <= len(whole) - 1
    for budget in range(0, len(whole), 37):
        fitted = fit_listing(notes, budget)
        assert len(json.dumps(fitted, ensure_ascii=False)) <= max(budget, 2)
        assert fitted == notes[: len(fitted)]
        assert fitted == notes or len(json.dumps(notes[: len(fitted) + 1])) > budget


def test_fit_listing_takes_no_note_past_the_first_that_does_not_fit() -> None:
    taken: list[int] = []

    def notes() -> Iterator[dict[str, str]]:
        for index in range(1_000):
            taken.append(index)
            yield {"id": str(index), "title": "x" * 90}

    fitted = fit_listing(notes(), 1_000)
    assert 0 < len(fitted) < 1_000
    assert taken == list(range(len(fitted) + 1))


def test_the_newest_that_fit_are_read_a_page_at_a_time(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for index in range(40):
        store.write(type="semantic", title=f"{index:03} " + "t" * 200, body="b", project="p")
    store.write(type="procedural", title="elsewhere", body="b", project="q")
    whole = fit_listing(list_memories(store, project="p"), 3_000)
    monkeypatch.setattr(functions, "_LIST_PAGE", 3)  # the listing spans several pages
    shown, total = newest_that_fit(store, 3_000, project="p")
    assert 3 < len(shown) < 40
    assert (shown, total) == (whole, 40)
    everything, total_all = newest_that_fit(store, 1_000_000)
    assert len(everything) == total_all == 41
