"""The pure functions behind the tools, against real temp stores: search, list, status,
write, and secrets masked before anything reaches disk."""

from __future__ import annotations

import json

import pytest

from anamnesis.mcp import (
    list_memories,
    search_memories,
    status_report,
    write_memory,
)
from anamnesis.mcp.arguments import check_call
from anamnesis.store import MemoryStore
from anamnesis.sync import GitSyncBackend

SPEC_KEYS = {
    "id",
    "type",
    "title",
    "project",
    "machine_id",
    "scope",
    "tags",
    "created_at",
    "updated_at",
}


def test_search_returns_bodies_and_metadata_best_first(store: MemoryStore) -> None:
    best = write_memory(
        store,
        type="procedural",
        title="SQLite busy errors",
        body="Set busy_timeout and WAL mode; busy errors vanish.",
        project="demo",
        tags=["sqlite"],
        machine_id="laptop",
    )
    write_memory(store, type="semantic", title="Unrelated", body="The busy season is June.")
    hits = search_memories(store, query="sqlite busy_timeout WAL")
    assert hits[0]["id"] == best["id"]
    assert SPEC_KEYS | {"body"} <= set(hits[0])
    assert hits[0]["body"].startswith("Set busy_timeout")
    assert hits[0]["tags"] == ["sqlite"]
    assert hits[0]["machine_id"] == "laptop"
    json.dumps(hits)  # plain JSON, nothing the transport cannot send


def test_search_filters_and_k(store: MemoryStore) -> None:
    for project in ("a", "b"):
        for note_type in ("procedural", "semantic"):
            for scope in ("portable", "machine-local"):
                write_memory(
                    store,
                    type=note_type,
                    title=f"deploy {project} {note_type} {scope}",
                    body="deploy notes",
                    project=project,
                    scope=scope,
                )
    hits = search_memories(store, query="deploy", project="a", type="semantic", scope="portable")
    assert [(h["project"], h["type"], h["scope"]) for h in hits] == [("a", "semantic", "portable")]
    assert len(search_memories(store, query="deploy", k=3)) == 3
    checked = check_call("memory_search", {"query": "deploy", "k": "5"})  # "5": the intent is plain
    assert len(search_memories(store, **checked)) == 5
    assert search_memories(store, query="deploy", project="nope") == []
    assert search_memories(store, query="!!! ???") == []  # no word tokens: nothing, no error


def test_superseded_notes_are_hidden_from_search_but_listed(store: MemoryStore) -> None:
    old = write_memory(store, type="semantic", title="Port", body="The API listens on 8080")
    new = store.write(
        type="semantic", title="Port", body="The API listens on 9090", supersedes=[old["id"]]
    )
    assert [h["id"] for h in search_memories(store, query="API listens")] == [new.id]
    assert {n["id"] for n in list_memories(store)} == {old["id"], new.id}


def test_list_is_newest_first_without_bodies(store: MemoryStore) -> None:
    first = write_memory(store, type="episodic", title="one", body="first", project="p")
    second = write_memory(store, type="episodic", title="two", body="second", project="p")
    # Timestamps have one-second resolution: date the second note explicitly to make the
    # edit the newest (a date in the future would rank as now, tied to the second).
    store.update(second["id"], updated_at="2020-01-01T00:00:00+00:00")
    store.update(first["id"], body="edited later")
    write_memory(store, type="semantic", title="elsewhere", body="x", project="q")
    items = list_memories(store, project="p")
    assert [i["id"] for i in items] == [first["id"], second["id"]]
    assert all("body" not in item for item in items)
    assert set(items[0]) >= SPEC_KEYS
    assert [i["title"] for i in list_memories(store, type="semantic")] == ["elsewhere"]


def test_status_reports_counts_problems_and_sync_state(store: MemoryStore) -> None:
    write_memory(store, type="procedural", title="a", body="x", project="p")
    write_memory(store, type="semantic", title="b", body="y", scope="machine-local")
    broken = store.memory_dir / "episodic" / "01ARZ3NDEKTSV4RRFFQ69G5FAV.md"
    broken.parent.mkdir(parents=True, exist_ok=True)
    broken.write_text("---\ntitle: [unclosed\n---\nbody\n")
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="laptop")
    report = status_report(store, backend)
    assert report["root"] == str(store.root)
    assert report["db_path"] == str(store.db_path)
    assert report["total"] == 2
    assert report["by_type"] == {"procedural": 1, "semantic": 1}
    assert report["by_project"] == {"global": 1, "p": 1}
    assert report["by_scope"] == {"machine-local": 1, "portable": 1}
    assert [p["path"] for p in report["problems"]] == [str(broken)]
    assert report["sync"]["initialized"] is False
    assert report["sync"]["remote"] is None
    assert report["machine_id"] == "env-machine"  # as the server would bind it
    assert status_report(store, backend, machine_id="laptop")["machine_id"] == "laptop"
    # The tests pin keyword search and point the model path at an empty folder.
    vectors = report["vectors"]
    assert vectors["available"] is False
    assert vectors["default_mode"] == "keyword"
    assert vectors["reason"]
    assert "pending" not in vectors
    json.dumps(report)


def test_status_never_shows_a_remote_password(store: MemoryStore) -> None:
    backend = GitSyncBackend(
        store.memory_dir, remote="https://me:hunter22@example.com/memory.git", machine_id="m"
    )
    report = status_report(store, backend)
    assert "hunter22" not in json.dumps(report)
    assert report["sync"]["remote"].startswith("https://me")


def test_write_machine_local_lands_outside_the_synced_tree(store: MemoryStore) -> None:
    note = write_memory(
        store, type="semantic", title="Local path", body="/opt/tools", scope="machine-local"
    )
    assert (store.local_dir / "semantic" / f"{note['id']}.md").is_file()
    assert list(store.memory_dir.rglob("*.md")) == []
    assert note["scope"] == "machine-local"


def test_write_stamps_machine_and_defaults(store: MemoryStore) -> None:
    arguments = {"type": "procedural", "title": "  Run   tests  ", "body": "uv run nox"}
    note = write_memory(store, **check_call("memory_write", arguments))
    assert note["machine_id"] == "unknown"
    assert note["project"] == "global"
    assert note["tags"] == []
    assert note["scope"] == "portable"
    assert note["title"] == "Run tests"  # one line, as lists show it
    assert note["created_at"] == note["updated_at"]
    assert note["redacted"] == 0
    assert store.get(note["id"]).body == "uv run nox"


SECRETS = {
    "openai": "sk-proj-" + "a1B2c3D4" * 5,
    "github": "ghp_" + "A1b2C3d4E5" * 4,
    "aws": "AKIA" + "ABCDEFGHIJKLMNOP",
    "pem": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
}


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_write_masks_secrets_before_anything_reaches_disk(store: MemoryStore, kind: str) -> None:
    secret = SECRETS[kind]
    note = write_memory(
        store,
        type="procedural",
        title="Deploy credentials",
        body=f"Use this to deploy:\n{secret}\nthen run make deploy",
        tags=["deploy"],
    )
    on_disk = (store.memory_dir / "procedural" / f"{note['id']}.md").read_text()
    assert secret not in on_disk
    assert secret not in json.dumps(note)
    assert "[REDACTED]" in on_disk
    assert "make deploy" in on_disk  # the rest of the note survives
    assert note["redacted"] == 1


def test_write_masks_secrets_in_the_project_key(store: MemoryStore) -> None:
    note = write_memory(
        store, type="semantic", title="t", body="b", project="ci token=abc123XYZ789secretvalue"
    )
    assert "abc123XYZ789secretvalue" not in json.dumps(note)
    assert note["project"] == "ci token=[REDACTED]"
    assert note["redacted"] == 1
    on_disk = (store.memory_dir / "semantic" / f"{note['id']}.md").read_text()
    assert "abc123XYZ789secretvalue" not in on_disk
    # Ordinary project keys are left alone.
    for key in ("github.com/acme/api", "gitlab.com/a/b-c_d.e", "global"):
        assert (
            write_memory(store, type="semantic", title="t", body="b", project=key)["project"] == key
        )


def test_write_masks_key_value_secrets_in_titles_and_tags(store: MemoryStore) -> None:
    note = write_memory(
        store,
        type="semantic",
        title="db password=Sup3rS3cret!",
        body="the api_key: 'q9w8e7r6t5y4' is in the vault",
        tags=["token=abc123XYZ789"],
    )
    text = json.dumps(note)
    for secret in ("Sup3rS3cret!", "q9w8e7r6t5y4", "abc123XYZ789"):
        assert secret not in text
    assert note["redacted"] == 3
    # Identifiers that only look random are left alone.
    plain = write_memory(
        store,
        type="semantic",
        title="Commit ids",
        body="fixed in 9f2c1e4b7a3d5e6f8a9b0c1d2e3f4a5b6c7d8e9f, note " + note["id"],
    )
    assert plain["body"].endswith(note["id"])
    assert plain["redacted"] == 0
