"""The pages over a real store, through a real dashboard process: what a person sees."""

from __future__ import annotations

import re

import httpx
import pytest
from anamnesis_testsupport.dashboard_server import DashboardProcess
from dulwich.objects import Commit
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.store import MemoryStore
from anamnesis.sync import GitSyncBackend


def test_list_shows_notes_newest_first_with_counts(store: MemoryStore) -> None:
    from anamnesis_testsupport.dashboard_server import start_dashboard

    older = store.write(type="semantic", title="Postgres pool size", body="use 20", project="api")
    newer = store.write(type="episodic", title="Fixed the deploy", body="retry", project="web")
    running = start_dashboard(store.root)
    try:
        with httpx.Client(base_url=running.base) as client:
            page = client.get(running.link, follow_redirects=True)
    finally:
        running.stop()
    assert page.status_code == 200
    assert page.text.index(newer.title) < page.text.index(older.title)
    assert re.search(r"<strong>2</strong> notes", page.text)
    assert f'href="/notes/{older.id}"' in page.text


def test_filters_by_project_type_machine_and_tag(
    store: MemoryStore, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    a = store.write(type="semantic", title="alpha", body="x", project="api", tags=["db"],
                    machine_id="laptop")  # fmt: skip
    b = store.write(type="episodic", title="beta", body="x", project="web", machine_id="desk")
    assert a.title in client.get("/?project=api").text
    assert b.title not in client.get("/?project=api").text
    assert b.title in client.get("/?type=episodic").text
    assert a.title not in client.get("/?machine=desk").text
    assert b.title in client.get("/?machine=desk").text
    assert a.title in client.get("/?tag=db").text
    assert b.title not in client.get("/?tag=db").text


def test_a_bad_filter_is_a_clear_400(client: httpx.Client) -> None:
    answer = client.get("/?type=bogus")
    assert answer.status_code == 400
    assert "type must be one of" in answer.text


def test_superseded_notes_are_hidden_until_asked(store: MemoryStore, client: httpx.Client) -> None:
    old = store.write(type="semantic", title="old port", body="5432", project="api")
    store.write(type="semantic", title="new port", body="6432", project="api", supersedes=[old.id])
    assert "old port" not in client.get("/").text
    shown = client.get("/?superseded=1").text
    assert "old port" in shown and "superseded" in shown


def test_paging(store: MemoryStore, client: httpx.Client) -> None:
    for n in range(55):
        store.write(type="episodic", title=f"session {n:02d}", body="x", project="p")
    first = client.get("/").text
    assert "notes 1–50 of 55" in first
    assert '<a href="/?page=2" rel="next">' in first and 'rel="prev"' not in first
    second = client.get("/?page=2").text
    assert "session 00" in second and "session 54" not in second
    assert "notes 51–55 of 55" in second
    assert '<a href="/" rel="prev">' in second and 'rel="next"' not in second
    past = client.get("/?page=9").text  # past the end: the way back leads to the last page
    assert "no notes on page 9 of 2" in past and '<a href="/?page=2" rel="prev">' in past


def test_search_shows_mode_scores_and_keeps_filters(
    store: MemoryStore, client: httpx.Client
) -> None:
    store.write(type="semantic", title="Redis eviction", body="allkeys-lru policy", project="api")
    store.write(type="semantic", title="Redis in web", body="allkeys-lru too", project="web")
    page = client.get("/search", params={"q": "allkeys-lru", "project": "api"}).text
    assert "Redis eviction" in page and "Redis in web" not in page
    assert 'class="mode">keyword<' in page
    assert 'name="project" value="api"' in page


def test_search_scores_read_relative_to_the_best_hit(
    store: MemoryStore, client: httpx.Client
) -> None:
    store.write(type="semantic", title="Redis eviction", body="redis redis allkeys-lru policy")
    store.write(type="semantic", title="Cache notes", body="redis, once, among many other words")
    page = client.get("/search", params={"q": "redis"}).text
    shown = re.findall(r'class="score" title="([^"]*)">([^<]*)<', page)
    assert len(shown) == 2, shown
    (best_title, best), (_, second) = shown
    assert best == "1.00"  # the best hit, whatever BM25's scale (often around 1e-06)
    assert re.fullmatch(r"0\.\d\d", second) and second != "1.00", second
    assert "the keyword score: " in best_title  # the raw score is still there, on hover


def test_search_refuses_bad_arguments(client: httpx.Client) -> None:
    assert client.get("/search", params={"q": "x", "k": "0"}).status_code == 400
    assert client.get("/search", params={"q": "x", "mode": "psychic"}).status_code == 400


def test_note_page_renders_markdown_metadata_and_chain(
    store: MemoryStore, client: httpx.Client
) -> None:
    old = store.write(type="semantic", title="v1", body="old", project="api")
    mid = store.write(type="semantic", title="v2", body="mid", project="api", supersedes=[old.id])
    new = store.write(type="semantic", title="v3", body="# Heading\n\n- item", project="api",
                      supersedes=[mid.id])  # fmt: skip
    page = client.get(f"/notes/{new.id}").text
    assert "<h1>Heading</h1>" in page and "<li>item</li>" in page
    assert f'href="/notes/{mid.id}"' in page and f'href="/notes/{old.id}"' in page
    middle = client.get(f"/notes/{mid.id}").text
    assert "Superseded by" in middle and f'href="/notes/{new.id}"' in middle


def test_note_page_says_which_agent_wrote_the_note(
    store: MemoryStore, client: httpx.Client
) -> None:
    captured = store.write(type="episodic", title="a session", body="x", project="p",
                           prov_source="session-end", prov_agent="codex")  # fmt: skip
    mine = store.write(type="semantic", title="by hand", body="y", project="p")
    page = client.get(f"/notes/{captured.id}").text
    assert "<dt>agent</dt><dd>codex</dd>" in page
    assert "<dt>agent</dt>" not in client.get(f"/notes/{mine.id}").text  # a person's: none


def test_reflection_note_links_its_episodes(store: MemoryStore, client: httpx.Client) -> None:
    episode = store.write(type="episodic", title="debugging the cache", body="x", project="p")
    lesson = store.write(type="semantic", title="cache lesson", body="y", project="p",
                         prov_source="reflection", extra={"sources": [episode.id]})  # fmt: skip
    page = client.get(f"/notes/{lesson.id}").text
    assert "Distilled from" in page and f'href="/notes/{episode.id}"' in page


def test_unknown_and_invalid_ids_are_404_never_paths(client: httpx.Client) -> None:
    assert client.get("/notes/01J00000000000000000000000").status_code == 404
    for bad in ("..%2F..%2Fetc%2Fpasswd", "not-an-id", "%2e%2e"):
        answer = client.get(f"/notes/{bad}")
        assert answer.status_code == 404, bad
        assert "root:" not in answer.text


def test_html_in_a_note_renders_as_text(store: MemoryStore, client: httpx.Client) -> None:
    evil = store.write(
        type="semantic",
        title="<script>alert(1)</script>",
        body='<img src=x onerror="alert(2)">\n\n[link](javascript:alert(3))\n\n'
        "<script>x()</script>",
        project="p",
    )
    for path in (f"/notes/{evil.id}", "/", f"/notes/{evil.id}/edit"):
        page = client.get(path).text
        assert "<script>alert" not in page and "<img src=x" not in page, path
        assert 'href="javascript:' not in page, path
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in client.get(f"/notes/{evil.id}").text


def test_a_direction_control_in_a_note_is_shown_escaped_and_edits_round_trip(
    store: MemoryStore, client: httpx.Client
) -> None:
    # U+202E reverses what follows it on screen: "gnp.exe" would read as "exe.png". Every
    # page that lists or heads the note shows the escape instead; the edit box keeps the
    # character itself, so saving the note unchanged does not rewrite it.
    disguised = store.write(
        type="semantic", title="invoice \u202egnp.exe", body="b", project="p",
        tags=["t\u2066ag"],
    )  # fmt: skip
    pages = {
        "list": client.get("/").text,
        "note": client.get(f"/notes/{disguised.id}").text,
        "search": client.get("/search", params={"q": "invoice"}).text,
    }
    for name, page in pages.items():
        assert "invoice \\u202egnp.exe" in page, name
        assert "\u202e" not in page and "\u2066" not in page, name
    assert "t\\u2066ag" in pages["note"]
    edit = client.get(f"/notes/{disguised.id}/edit").text
    assert "invoice \u202egnp.exe" in edit


def test_fleet_counts_per_machine(store: MemoryStore, client: httpx.Client) -> None:
    store.write(type="semantic", title="a", body="x", project="api", machine_id="laptop")
    store.write(type="episodic", title="b", body="x", project="web", machine_id="desk")
    store.write(type="episodic", title="c", body="x", project="web", machine_id="laptop",
                scope="machine-local")  # fmt: skip
    page = client.get("/fleet").text
    rows = re.findall(r"<tr[^>]*>\s*<td[^>]*><a href=\"/\?machine=(\w+)\"", page)
    assert rows[0] == "laptop" and "desk" in rows  # this machine first
    assert "this machine" in page


def test_static_files_and_security_headers(client: httpx.Client) -> None:
    page = client.get("/")
    assert page.headers["content-security-policy"].startswith("default-src 'self'")
    assert page.headers["x-frame-options"] == "DENY"
    assert "app;dur=" in page.headers["server-timing"]
    script = client.get("/static/htmx.min.js")
    assert script.status_code == 200 and "htmx" in script.text[:2000]
    assert client.get("/static/style.css").status_code == 200


@pytest.mark.parametrize("seconds", [10**13, 2**64])
def test_a_commit_dated_past_any_calendar_fails_no_page(
    store: MemoryStore, dashboard: DashboardProcess, client: httpx.Client, seconds: int
) -> None:
    """A commit's time is whatever its author wrote; a pull brings it in as it is."""
    note = store.write(type="semantic", title="a", body="x", machine_id="laptop")
    GitSyncBackend(store.memory_dir, remote=None, machine_id="laptop").sync()
    with Repo(str(store.memory_dir)) as repo:
        head = repo[repo.head()]
        assert isinstance(head, Commit)
        far = Commit()
        far.tree, far.parents = head.tree, [head.id]
        far.author = far.committer = b"anamnesis <anamnesis@fast>"
        far.author_time = far.commit_time = seconds
        far.author_timezone = far.commit_timezone = 0
        far.message = b"from a clock past the year 9999"
        repo.object_store.add_object(far)
        repo.refs[Ref(b"refs/heads/main")] = far.id
    fleet = client.get("/fleet")
    assert fleet.status_code == 200 and "out of range" in fleet.text
    assert client.get(f"/notes/{note.id}/history").status_code == 200


def test_search_snippets_are_plain_text_with_the_query_marked(
    store: MemoryStore, client: httpx.Client
) -> None:
    body = "## Context\n\nWe set the **pool size** to 20 <b>connections</b>.\n"
    store.write(type="semantic", title="Pool", project="api", body=body)
    page = client.get("/search", params={"q": "pool size"}).text
    found = re.search(r'<p class="snippet">(.*?)</p>', page, re.S)
    assert found is not None
    assert found.group(1) == (
        "Context · We set the <mark>pool</mark> <mark>size</mark> to 20 "
        "&lt;b&gt;connections&lt;/b&gt;."
    )
