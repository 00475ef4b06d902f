"""What a client shows of a listing or a search: direction controls and control characters
as JSON escapes, never raw, with the same values once the JSON is read."""

from __future__ import annotations

import anyio

from anamnesis.mcp import build_server
from anamnesis.store import MemoryStore
from mcp_testing import call, data, text_of

TITLE = "Release checklist \u202efdp.exe"


def test_listings_and_searches_show_direction_controls_escaped(store: MemoryStore) -> None:
    note = store.write(type="procedural", title=TITLE, project="p", tags=["\u2066ops\u2069"],
                       body="run the release \x9b\u200f checklist")  # fmt: skip
    server = build_server(store, machine_id="m-test")
    for tool, arguments in (("memory_list", {}), ("memory_search", {"query": "checklist"})):
        result = anyio.run(call, server, tool, arguments)
        text = text_of(result)
        assert not [char for char in "\u202e\u2066\u2069\u200f\x9b" if char in text], tool
        assert "Release checklist \\u202efdp.exe" in text, tool
        [shown] = data(result)  # the JSON the model reads holds the note's own values
        assert (shown["id"], shown["title"], shown["tags"]) == (note.id, TITLE, note.tags)
