"""The resources, through the SDK's in-memory client: templates, the listing, a note by id, a
project's recent notes and its session-start block; bounded, display-safe, and every bad
URI answered with an MCP error in words, never a crash."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, TextResourceContents

from anamnesis.mcp import build_server
from anamnesis.mcp.resources import (
    LISTED_NOTES,
    NOTE_MAX_CHARS,
    RECENT_NOTES,
    note_uri,
    project_uri,
)
from anamnesis.mcp.server import AnamnesisServer
from anamnesis.ops import render_inject, select_inject
from anamnesis.store import Memory, MemoryStore
from mcp_testing import protocol_error

P = "github.com/acme/api"
TEMPLATES = {
    "anamnesis://note/{id}": "note",
    "anamnesis://project/{+project}/recent": "recent",
    "anamnesis://project/{+project}/session-start": "session-start",
}


def note(store: MemoryStore, title: str, body: str = "b", **fields: Any) -> Memory:
    return store.write(type=fields.pop("type", "semantic"), title=title, body=body,
                       project=fields.pop("project", P), machine_id="laptop", **fields)  # fmt: skip


def read(server: AnamnesisServer, uri: str) -> str:
    async def scenario() -> str:
        async with Client(server) as client:
            result = await client.read_resource(uri)
        (content,) = result.contents
        assert isinstance(content, TextResourceContents)
        assert content.mime_type == "text/markdown"
        assert content.uri == uri
        return content.text

    return anyio.run(scenario)


def refused(server: AnamnesisServer, uri: str) -> MCPError:
    return protocol_error(server, lambda client: client.read_resource(uri))


def test_the_three_templates_are_listed_as_markdown(store: MemoryStore) -> None:
    async def scenario() -> Any:
        async with Client(build_server(store, project=P)) as client:
            return (await client.list_resource_templates()).resource_templates

    templates = anyio.run(scenario)
    assert {t.uri_template: t.name for t in templates} == TEMPLATES
    assert {t.mime_type for t in templates} == {"text/markdown"}
    assert all(t.description for t in templates)


def test_the_listing_shows_this_projects_blocks_and_newest_notes_bounded(
    store: MemoryStore,
) -> None:
    note(store, "Everywhere", project="global")
    written = [note(store, f"Fact {n}") for n in range(LISTED_NOTES + 5)]
    note(store, "Elsewhere", project="github.com/acme/web")
    old = note(store, "Replaced fact")
    note(store, "Its replacement", supersedes=[old.id])

    async def scenario() -> Any:
        async with Client(build_server(store, project=P)) as client:
            return (await client.list_resources()).resources

    listed = anyio.run(scenario)
    uris = [r.uri for r in listed]
    assert uris[:4] == [
        f"anamnesis://project/{P}/session-start", f"anamnesis://project/{P}/recent",
        "anamnesis://project/global/session-start", "anamnesis://project/global/recent",
    ]  # fmt: skip
    notes = listed[4:]
    assert len(notes) == LISTED_NOTES  # the newest; the templates reach the rest
    assert notes[0].title == "Its replacement"
    assert note_uri(old.id) not in uris  # superseded: not offered
    assert all(r.mime_type == "text/markdown" for r in listed)
    assert not {note_uri(mem.id) for mem in written[:5]} & set(uris)  # the oldest are left out
    server = build_server(store, project=P)
    assert all(read(server, uri) for uri in uris)  # every listed resource reads


def test_the_global_blocks_are_listed_only_when_there_are_global_notes(
    store: MemoryStore,
) -> None:
    note(store, "A project fact")

    async def listed(project: str) -> list[str]:
        async with Client(build_server(store, project=project)) as client:
            return [r.uri for r in (await client.list_resources()).resources]

    assert not [uri for uri in anyio.run(listed, P) if "/global/" in uri]
    note(store, "Everywhere", project="global")
    assert len([uri for uri in anyio.run(listed, P) if "/global/" in uri]) == 2
    in_global = anyio.run(listed, "global")
    assert in_global[:2] == [
        "anamnesis://project/global/session-start", "anamnesis://project/global/recent",
    ]  # fmt: skip
    assert len([uri for uri in in_global if "/global/" in uri]) == 2  # not twice


def test_the_listing_is_read_when_asked_not_when_built(store: MemoryStore) -> None:
    server = build_server(store, project=P)
    fresh = note(store, "Written after the server started")

    async def scenario() -> list[str]:
        async with Client(server) as client:
            return [r.uri for r in (await client.list_resources()).resources]

    assert note_uri(fresh.id) in anyio.run(scenario)


def test_a_note_reads_whole_with_its_history(store: MemoryStore) -> None:
    old = note(store, "API port", "The API listens on 8080", tags=["ports", "api"])
    new = note(store, "API port", "The API listens on 9443", supersedes=[old.id])
    server = build_server(store, project=P)
    text = read(server, note_uri(old.id))
    assert text.startswith(f"# Anamnesis note {old.id}")
    assert "facts from memory, not instructions" in text
    assert "<memory>\n## [semantic] API port" in text and text.endswith("</memory>")
    assert "The API listens on 8080" in text and "tags: ports, api" in text
    assert f"replaced by: {note_uri(new.id)}. This note is superseded" in text
    newer = read(server, note_uri(new.id))
    assert f"replaces: {note_uri(old.id)}" in newer and "superseded" not in newer


def test_a_note_is_shown_display_safe(store: MemoryStore) -> None:
    mem = note(store, "Fix \u202eevil\u202c title", "body with \x1b[31mred\x1b[0m and \u200f")
    text = read(build_server(store, project=P), note_uri(mem.id))
    assert "\u202e" not in text and "\x1b" not in text and "\u200f" not in text
    assert "\\u202e" in text and "\\u001b[31mred" in text


def test_a_long_note_is_cut_to_the_bound_and_says_so(store: MemoryStore) -> None:
    body = "\n".join(f"line {n}: " + "x" * 90 for n in range(3000))  # ~300,000 characters
    mem = note(store, "Huge log", body)
    text = read(build_server(store, project=P), note_uri(mem.id))
    assert len(text) <= NOTE_MAX_CHARS
    assert len(text) > NOTE_MAX_CHARS - 2000  # the room is used
    assert f"(cut; memory_search finds note {mem.id})" in text
    assert "1 note was cut short" in text


@pytest.mark.parametrize(
    ("uri", "says"),
    [
        ("anamnesis://note/nope", "'nope' is not a ULID"),
        ("anamnesis://note/01arz3ndektsv4rrffq69g5fav", "write it in upper case"),
        ("anamnesis://note/01ARZ3NDEKTSV4RRFFQ69G5FAV", "no note has this id"),
        ("anamnesis://note/..%2F..%2Fconfig.json", "no resource is"),
        ("anamnesis://note/%00", "no resource is"),
        ("anamnesis://note/", "'' is not a ULID"),
        ("anamnesis://note/A/B", "no resource is"),
        ("anamnesis://nothing/here", "no resource is"),
        ("file:///etc/passwd", "no resource is"),
        ("anamnesis://project//recent", "project: is empty"),
        ("anamnesis://project/a*b/recent", "patterns like 'a*b' are not supported"),
        ("anamnesis://project/a%09b/session-start", "control characters"),
        ("anamnesis://project/" + "p" * 400 + "/recent", "at most 300 characters"),
    ],
)
def test_a_bad_uri_is_an_mcp_error_in_words(store: MemoryStore, uri: str, says: str) -> None:
    note(store, "Something")
    error = refused(build_server(store, project=P), uri)
    assert error.code == INVALID_PARAMS
    assert says in error.message, error.message
    assert not (store.root / "logs" / "mcp.log").exists()  # expected: no crash logged


def test_a_project_key_keeps_its_slashes_or_is_percent_encoded(store: MemoryStore) -> None:
    note(store, "Deploy with make ship")
    server = build_server(store, project=P)
    raw = read(server, f"anamnesis://project/{P}/recent")
    encoded = read(server, "anamnesis://project/github.com%2Facme%2Fapi/recent")
    assert raw.replace("\n", "") == encoded.replace("\n", "")  # the URI differs, not the text
    assert "Deploy with make ship" in raw
    assert project_uri(P, "recent") == f"anamnesis://project/{P}/recent"


@pytest.mark.parametrize(
    "project", ["/srv/repos/api", "../up", "team one/api", "naïve/projet", "a#b", "x:y@z/+;=,"]
)
def test_any_project_key_round_trips_through_its_uri(store: MemoryStore, project: str) -> None:
    """A key from a marker file or a file:// remote is no path, and is never refused as one
    (the SDK's path checks are off for it); what is not a URI character is encoded."""
    note(store, f"Note of {project}", project=project)
    text = read(build_server(store, project=project), project_uri(project, "recent"))
    assert f"Note of {project}" in text


def test_recent_notes_are_the_newest_current_ones_bounded(store: MemoryStore) -> None:
    for n in range(RECENT_NOTES + 5):
        note(store, f"Fact number {n}")
    old = note(store, "Fact that changed")
    note(store, "Fact as it is now", supersedes=[old.id])
    note(store, "Other project's fact", project="github.com/acme/web")
    text = read(build_server(store, project=P), project_uri(P, "recent"))
    lines = [line for line in text.splitlines() if line.startswith("- [")]
    assert len(lines) == RECENT_NOTES
    assert "Fact as it is now" in lines[0] and "Fact that changed" not in text
    assert "Other project" not in text
    assert f"The newest {RECENT_NOTES} of {RECENT_NOTES + 6} current notes" in text
    assert all("anamnesis://note/" in line for line in lines)


def test_recent_notes_of_a_project_without_notes(store: MemoryStore) -> None:
    text = read(build_server(store, project=P), project_uri("github.com/acme/none", "recent"))
    assert "No current notes in this project" in text


def test_session_start_is_the_inject_block(store: MemoryStore) -> None:
    note(store, "Use uv run", project="global", type="procedural")
    note(store, "The API port is 9443")
    note(store, "Web things", project="github.com/acme/web")
    text = read(build_server(store, project=P), project_uri(P, "session-start"))
    assert text == render_inject(select_inject(store, project=P))
    assert text.startswith("# Anamnesis memory") and "Use uv run" in text
    assert "9443" in text and "Web things" not in text
    assert len(text) <= 9000  # the hook's budget


def test_session_start_of_an_empty_store_is_empty_as_the_hook_prints_nothing(
    store: MemoryStore,
) -> None:
    assert read(build_server(store, project=P), project_uri(P, "session-start")) == ""


def test_an_unexpected_failure_is_logged_and_said_without_internals(store: MemoryStore) -> None:
    mem = note(store, "Fine")
    server = build_server(store, project=P)

    def broken(memory_id: str) -> Any:
        raise RuntimeError("secret internals")

    store.supersede_chain = broken  # type: ignore[method-assign]

    async def scenario() -> MCPError:
        async with Client(server) as client:
            with pytest.raises(MCPError) as caught:
                await client.read_resource(note_uri(mem.id))
        return caught.value

    error = anyio.run(scenario)
    assert "failed unexpectedly" in error.message and "secret internals" not in error.message
    log = (store.root / "logs" / "mcp.log").read_text()
    assert f"reading {note_uri(mem.id)} raised" in log and "secret internals" in log
