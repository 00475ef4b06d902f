"""The pure functions behind the tools, against real temp stores and git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from anamnesis.mcp import (
    InvalidArgument,
    list_memories,
    search_memories,
    status_report,
    sync_memory,
    write_memory,
)
from anamnesis.mcp.arguments import MAX_BODY_BYTES
from anamnesis.mcp.functions import (
    MAX_REASON_CHARS,
    fit_listing,
    keyword_fallback_notice,
    search_telling_mode,
    vectors_report,
)
from anamnesis.store import SEARCH_MODES, MemoryStore, VectorsUnavailableWarning
from anamnesis.sync import GitSyncBackend
from mcp_testing import bare_remote, index_hits

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
    assert len(search_memories(store, query="deploy", k="5")) == 5  # type: ignore[arg-type]
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
    # Timestamps have one-second resolution: date the edit explicitly to make it the newest.
    store.update(first["id"], body="edited later", updated_at="2099-01-01T00:00:00+00:00")
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
    note = write_memory(store, type="procedural", title="  Run   tests  ", body="uv run nox")
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


@pytest.mark.parametrize(
    ("changes", "field", "hint"),
    [
        ({"type": "fact"}, "type", "procedural"),
        ({"type": None}, "type", "procedural"),
        ({"scope": "shared"}, "scope", "machine-local"),
        ({"title": "   "}, "title", "non-empty"),
        ({"title": 7}, "title", "non-empty"),
        ({"body": ""}, "body", "empty"),
        ({"body": "x" * (MAX_BODY_BYTES + 1)}, "body", "1 MB"),
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
        write_memory(store, **arguments)  # type: ignore[arg-type]
    assert caught.value.name == field
    assert hint in str(caught.value)
    assert list(store.root.rglob("*.md")) == []


def test_a_body_of_exactly_one_megabyte_is_accepted(store: MemoryStore) -> None:
    body = "é" * (MAX_BODY_BYTES // 2)  # two bytes each in UTF-8
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
        search_memories(store, **call)  # type: ignore[arg-type]
    assert caught.value.name == field
    assert hint in str(caught.value)


def test_bad_list_filters_are_refused(store: MemoryStore) -> None:
    with pytest.raises(InvalidArgument, match="type"):
        list_memories(store, type="notes")
    with pytest.raises(InvalidArgument, match="project"):
        list_memories(store, project=["x"])  # type: ignore[arg-type]


def test_sync_without_a_remote_commits_locally_and_says_remote(store: MemoryStore) -> None:
    write_memory(store, type="semantic", title="t", body="b")
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="laptop")
    outcome = sync_memory(store, backend)
    assert outcome["pushed"] is False
    assert outcome["conflicted"] is False
    assert "remote" in outcome["detail"]
    assert outcome["head"]
    assert backend.state().dirty is False  # the note is committed
    assert set(outcome) >= {"pushed", "pulled", "conflicted", "head", "indexed", "detail"}


def test_sync_then_search_across_two_stores(tmp_path: Path) -> None:
    remote = str(bare_remote(tmp_path / "remote.git"))
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        laptop_git = GitSyncBackend(laptop.memory_dir, remote=remote, machine_id="laptop")
        desktop_git = GitSyncBackend(desktop.memory_dir, remote=remote, machine_id="desktop")
        note = write_memory(
            laptop, type="procedural", title="Flaky CI", body="retry the esbuild step",
            machine_id="laptop",
        )  # fmt: skip
        write_memory(laptop, type="semantic", title="Laptop only", body="esbuild cache in /tmp",
                     scope="machine-local")  # fmt: skip
        pushed = sync_memory(laptop, laptop_git)
        assert pushed["pushed"] is True
        pulled = sync_memory(desktop, desktop_git)
        assert pulled["pulled"] >= 1
        assert pulled["indexed"] == 1  # the portable note only
        hits = search_memories(desktop, query="esbuild")
        assert [h["id"] for h in hits] == [note["id"]]
        assert hits[0]["machine_id"] == "laptop"


def test_sync_reindexes_what_it_pulled_before_returning(tmp_path: Path) -> None:
    """Added, edited and deleted notes are in the index when sync_memory returns.

    The store's reads would catch up with the files on their own, so this looks at the
    index file directly: without the reindex it would still hold the old text.
    """
    remote = str(bare_remote(tmp_path / "remote.git"))
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        laptop_git = GitSyncBackend(laptop.memory_dir, remote=remote, machine_id="laptop")
        desktop_git = GitSyncBackend(desktop.memory_dir, remote=remote, machine_id="desktop")
        edited = write_memory(laptop, type="semantic", title="Zoo", body="the zebra fact")
        deleted = write_memory(laptop, type="semantic", title="Zoo", body="the giraffe fact")
        sync_memory(laptop, laptop_git)
        first = sync_memory(desktop, desktop_git)
        assert (first["indexed"], first["removed"]) == (2, 0)
        assert index_hits(desktop.db_path, "zebra") == [edited["id"]]

        laptop.update(edited["id"], body="the okapi fact")
        laptop.delete(deleted["id"])
        added = write_memory(laptop, type="procedural", title="Llama", body="the llama fact")
        sync_memory(laptop, laptop_git)
        second = sync_memory(desktop, desktop_git)

        assert (second["indexed"], second["removed"]) == (2, 1)
        assert index_hits(desktop.db_path, "okapi") == [edited["id"]]
        assert index_hits(desktop.db_path, "zebra") == []
        assert index_hits(desktop.db_path, "giraffe") == []
        assert index_hits(desktop.db_path, "llama") == [added["id"]]
        # And search agrees, of course.
        assert [h["id"] for h in search_memories(desktop, query="okapi")] == [edited["id"]]
        assert search_memories(desktop, query="zebra giraffe") == []


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


def test_sync_to_an_unreachable_remote_reports_instead_of_raising(
    store: MemoryStore, tmp_path: Path
) -> None:
    write_memory(store, type="semantic", title="t", body="b")
    backend = GitSyncBackend(
        store.memory_dir, remote=str(tmp_path / "no-such-remote.git"), machine_id="laptop"
    )
    outcome = sync_memory(store, backend)
    assert outcome["pushed"] is False
    assert "no-such-remote" in outcome["detail"]
    assert backend.state().dirty is False  # the local commit is kept for the next try


NOT_AVAILABLE = {"available": False, "reason": "sqlite-vec is not installed", "fix": "install it"}


def test_the_fallback_notice_is_given_only_when_vectors_were_asked_for_and_unavailable() -> None:
    assert keyword_fallback_notice("keyword", NOT_AVAILABLE) is None  # nothing was missed
    for mode in ("vector", "hybrid"):
        assert keyword_fallback_notice(mode, {"available": True, "pending": 3}) is None
        notice = keyword_fallback_notice(mode, NOT_AVAILABLE)
        assert notice is not None
        assert notice.startswith("searched by keywords only: sqlite-vec is not installed.")
        assert "exact words" in notice  # what the model should do next
    assert keyword_fallback_notice("hybrid", {"available": False}) == keyword_fallback_notice(
        "hybrid", {"available": False, "reason": ""}
    )


@given(reason=st.text(max_size=2_000))
def test_the_fallback_notice_stays_one_short_line(reason: str) -> None:
    notice = keyword_fallback_notice("hybrid", {"available": False, "reason": reason})
    assert notice is not None
    assert notice.startswith("searched by keywords only: ")
    assert "\n" not in notice
    assert len(notice) <= MAX_REASON_CHARS + 300


def test_a_search_that_asked_for_vectors_says_it_ran_on_keywords_each_time(
    store: MemoryStore,
) -> None:
    """Vectors cannot run in these tests (no model): hybrid and vector searches give the
    keyword results and a notice, on every call, though the store warns only once."""
    wanted = write_memory(store, type="semantic", title="Deploy key", body="rotate the deploy key")
    write_memory(store, type="semantic", title="Other", body="nothing to see")
    keyword, ran, notice = search_telling_mode(store, query="deploy key")
    assert (ran, notice) == ("keyword", None)  # the default here, and nothing asked for
    assert [hit["id"] for hit in keyword] == [wanted["id"]]
    with pytest.warns(VectorsUnavailableWarning):
        hits, ran, notice = search_telling_mode(store, query="deploy key", mode="hybrid")
    assert hits == keyword and ran == "keyword"
    assert notice is not None and notice.startswith("searched by keywords only: ")
    reason = store.embedding_status()["reason"]
    assert " ".join(reason.split())[:40] in notice  # the store's own reason, not a guess
    again = search_telling_mode(store, query="deploy key", mode="Vector")
    assert again == (keyword, "keyword", notice)


def test_search_memories_passes_the_mode_and_checks_it(store: MemoryStore) -> None:
    write_memory(store, type="semantic", title="Deploy key", body="rotate the deploy key")
    assert [h["title"] for h in search_memories(store, query="deploy", mode="keyword")] == [
        "Deploy key"
    ]
    with pytest.raises(InvalidArgument) as caught:
        search_memories(store, query="deploy", mode="fuzzy")
    assert caught.value.name == "mode"
    for mode in SEARCH_MODES:
        assert mode in str(caught.value)


def test_the_vectors_report_follows_the_configured_mode(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "hybrid")
    report = vectors_report(store)
    # Asked for hybrid, but what runs without vectors is keyword search; the reason says why.
    assert report["available"] is False
    assert report["default_mode"] == "keyword"
    assert report["reason"] == store.embedding_status()["reason"]
