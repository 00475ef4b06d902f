"""Validity in time through MCP, as a client sees it: the real server process over stdio,
driven by the SDK's client. memory_write takes valid_until and review_after (a time from
today becomes a date), memory_search hides expired notes unless include_expired and answers
as_of a date, every note says whether it is expired and due, and a bad date is a tool error
a model can act on, with nothing written."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest
from anamnesis_testsupport.checkouts import checkout
from mcp_types import TextResourceContents

from anamnesis.store import MemoryStore
from mcp_testing import INTERNALS, data, error_text, process_client

P = "github.com/acme/api"


def _days_from_now(days: int) -> str:
    return (datetime.now(UTC) + timedelta(days=days)).date().isoformat()


@pytest.fixture
def folder(isolated_home: Path, tmp_path: Path) -> Path:
    """A store with one old note (written in January 2020) and a clone of its project."""
    with MemoryStore(isolated_home) as store:
        old = store.write(type="semantic", title="Staging host", project=P,
                          body="staging runs on staging-old.example.com")  # fmt: skip
        store.put(old.replace(created_at="2020-01-10T09:00:00+00:00"))
    return checkout(tmp_path / "src" / "api", "git@github.com:acme/api.git")


def _session(folder: Path, stderr_path: Path, calls: list[tuple[str, str, dict[str, Any]]]) -> Any:
    """Each call in order (a label, a tool, its arguments) in one session; the results by
    label, and the tools' input schemas and the session-start block at the end."""

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        with stderr_path.open("w") as stderr:
            async with process_client(folder, stderr) as mcp:
                for label, tool, arguments in calls:
                    out[label] = await mcp.call_tool(tool, arguments)
                out["schemas"] = {t.name: t.input_schema for t in (await mcp.list_tools()).tools}
                (block,) = (
                    await mcp.read_resource(f"anamnesis://project/{P}/session-start")
                ).contents
                assert isinstance(block, TextResourceContents)
                out["block"] = block.text
        return out

    return anyio.run(run)


def test_write_search_and_list_carry_validity(
    folder: Path, isolated_home: Path, tmp_path: Path
) -> None:
    write = {"type": "semantic", "project": P}
    out = _session(
        folder,
        tmp_path / "stderr.txt",
        [
            ("expired", "memory_write", {**write, "title": "Staging host (old)",
             "body": "staging ran on staging-2019.example.com", "valid_until": "2020-01-31"}),
            ("freeze", "memory_write", {**write, "title": "Code freeze",
             "body": "no deploys to staging during the freeze", "valid_until": "+30d",
             "review_after": "2020-06-01"}),
            ("search", "memory_search", {"query": "staging", "mode": "keyword"}),
            ("every", "memory_search", {"query": "staging", "mode": "keyword",
                                        "include_expired": True}),
            ("then", "memory_search", {"query": "staging", "mode": "keyword",
                                       "as_of": "2020-01-31"}),
            ("later", "memory_search", {"query": "staging", "mode": "keyword",
                                        "as_of": "2020-02-01", "include_expired": "true"}),
            ("list", "memory_list", {"project": P}),
        ],
    )  # fmt: skip
    expired, freeze = data(out["expired"]), data(out["freeze"])
    assert (expired["valid_until"], expired["expired"], expired["due"]) == (
        "2020-01-31", True, False,
    )  # fmt: skip
    assert freeze["valid_until"] in (_days_from_now(30), _days_from_now(31))  # a date now
    assert (freeze["review_after"], freeze["expired"], freeze["due"]) == ("2020-06-01", False, True)

    found = {hit["title"]: hit["expired"] for hit in data(out["search"])}
    assert found == {"Staging host": False, "Code freeze": False}
    every = {hit["title"]: hit["expired"] for hit in data(out["every"])}
    assert every == {"Staging host": False, "Code freeze": False, "Staging host (old)": True}
    # As of January 2020: only the note written then existed (the others are from today).
    assert [(hit["title"], hit["expired"]) for hit in data(out["then"])] == [
        ("Staging host", False)
    ]
    assert {hit["title"] for hit in data(out["later"])} == {"Staging host"}
    listed = {note["title"]: note["expired"] for note in data(out["list"])}
    assert listed == every  # the history: expired notes listed, and said so

    # The session-start block is what recall sees: never an expired note.
    assert "Code freeze" in out["block"] and "staging-2019" not in out["block"]
    schemas = out["schemas"]
    assert {"valid_until", "review_after"} <= set(schemas["memory_write"]["properties"])
    assert {"include_expired", "as_of"} <= set(schemas["memory_search"]["properties"])
    assert "+30d" in schemas["memory_write"]["properties"]["valid_until"]["description"]
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    with MemoryStore(isolated_home) as store:
        file = store.file_of(expired["id"]).read_text()
    assert "valid_until: '2020-01-31'" in file


@pytest.mark.parametrize(
    ("tool", "arguments", "said"),
    [
        ("memory_write", {"valid_until": "next week"},
         "invalid argument for memory_write: valid_until: 'next week' is not a date "
         "(2027-01-31), an ISO-8601 timestamp (2027-01-31T18:00:00+00:00) or a time from "
         "today (+30d, +2w, +6m, +1y); leave it out for a note that does not expire"),
        ("memory_write", {"review_after": "2027-02-30"},
         "invalid argument for memory_write: review_after: '2027-02-30' is not a date on the "
         "calendar; leave it out for no review date"),
        ("memory_write", {"valid_until": 20270131},
         "invalid argument for memory_write: valid_until: must be a date ('2027-01-31'), an "
         "ISO-8601 timestamp ('2027-01-31T18:00:00Z') or a time from today (+30d, +2w, +6m, "
         "+1y) as text, got 20270131"),
        ("memory_search", {"as_of": "last spring"},
         "invalid argument for memory_search: as_of: 'last spring' is not a date"),
        ("memory_search", {"include_expired": "yes"},
         "invalid argument for memory_search: include_expired: must be true or false"),
    ],
)  # fmt: skip
def test_a_bad_date_is_a_tool_error_and_writes_nothing(
    folder: Path, isolated_home: Path, tmp_path: Path, tool: str, arguments: dict[str, Any],
    said: str,
) -> None:  # fmt: skip
    base = {
        "memory_write": {"type": "semantic", "title": "Freeze", "body": "no deploys"},
        "memory_search": {"query": "staging"},
    }[tool]
    out = _session(folder, tmp_path / "stderr.txt", [("bad", tool, {**base, **arguments})])
    result = out["bad"]
    assert result.is_error
    message = error_text(result)
    assert said in message, message
    for internal in INTERNALS:
        assert internal not in message
    with MemoryStore(isolated_home) as store:
        assert [note.title for note in store.list()] == ["Staging host"]


def test_a_note_resource_says_it_expired_or_is_due(folder: Path, isolated_home: Path) -> None:
    from anamnesis.mcp.resources import read_note

    with MemoryStore(isolated_home) as store:
        gone = store.write(type="semantic", title="Old", body="b", valid_until="2020-01-31")
        due = store.write(type="semantic", title="Due", body="b", review_after="2020-01-31")
        later = store.write(type="semantic", title="Later", body="b", valid_until="2999-01-01")
        assert "- valid until 2020-01-31. This note has expired" in read_note(store, gone.id)
        assert "- review after 2020-01-31: due for review" in read_note(store, due.id)
        text = read_note(store, later.id)
    assert "- valid until 2999-01-01\n" in text and "expired" not in text
