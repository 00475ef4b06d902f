"""memory_write's arguments are checked at the boundary for a note's size early, for a message
a model can act on, with the store's own limits (:class:`NoteLimits`), never numbers of its
own: what it accepts the store writes and reads back, and one character or byte more it
refuses."""

from __future__ import annotations

from typing import Any

import pytest

from anamnesis.mcp import InvalidArgument, write_memory
from anamnesis.mcp.arguments import check_call
from anamnesis.store import MemoryStore, NoteLimits

AT_THE_LIMIT: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {
    "title": (
        {"title": "t" * NoteLimits.TITLE_CHARS},
        {"title": "t" * (NoteLimits.TITLE_CHARS + 1)},
    ),
    "body": (
        {"body": "é" * (NoteLimits.BODY_BYTES // 2)},
        {"body": "b" * (NoteLimits.BODY_BYTES + 1)},
    ),
    "project": (
        {"project": "p" * NoteLimits.PROJECT_CHARS},
        {"project": "p" * (NoteLimits.PROJECT_CHARS + 1)},
    ),
    "tags": (
        {"tags": [f"t{n}" for n in range(NoteLimits.TAGS)]},
        {"tags": [f"t{n}" for n in range(NoteLimits.TAGS + 1)]},
    ),
    "tag length": (
        {"tags": ["x" * NoteLimits.TAG_CHARS]},
        {"tags": ["x" * (NoteLimits.TAG_CHARS + 1)]},
    ),
}


@pytest.mark.parametrize("field", AT_THE_LIMIT)
def test_memory_write_takes_exactly_what_the_store_takes(store: MemoryStore, field: str) -> None:
    at, over = AT_THE_LIMIT[field]
    base: dict[str, Any] = {"type": "semantic", "title": "t", "body": "b"}
    written = write_memory(store, **check_call("memory_write", {**base, **at}))
    assert store.get(written["id"]).to_dict() == {
        k: v for k, v in written.items() if k not in ("redacted", "expired", "due")
    }
    assert store.reindex().skipped == ()
    with pytest.raises(InvalidArgument) as caught:
        write_memory(store, **check_call("memory_write", {**base, **over}))
    assert caught.value.name == ("tags" if field.startswith("tag") else field)
    assert [path.name for path in store.root.rglob("*.md")] == [f"{written['id']}.md"]
