"""The page's two actions that run the `anamnesis` command: a sync, and doctor's checks."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import httpx
from anamnesis_testsupport.dashboard_server import DashboardProcess, csrf_of, start_dashboard
from dulwich.refs import Ref
from dulwich.repo import Repo

from anamnesis.store import MemoryStore


def _served(home: Path, remote: str) -> Iterator[tuple[DashboardProcess, httpx.Client]]:
    running = start_dashboard(home, env={"ANAMNESIS_GIT_REMOTE": remote})
    try:
        with httpx.Client(
            base_url=running.base, headers={"Origin": running.origin}, timeout=120
        ) as client:
            client.get(running.link)
            yield running, client
    finally:
        running.stop()


def _remote_paths(remote: Path) -> list[str]:
    from dulwich.object_store import iter_tree_contents
    from dulwich.objects import Commit

    repo = Repo(str(remote))
    try:
        commit = repo[repo.refs[Ref(b"refs/heads/main")]]
        assert isinstance(commit, Commit)
        return [
            e.path.decode() for e in iter_tree_contents(repo.object_store, commit.tree) if e.path
        ]
    finally:
        repo.close()


def test_the_sync_button_runs_one_sync(store: MemoryStore, remote: Path) -> None:
    note = store.write(type="semantic", title="to share", body="x", project="p")
    for _, client in _served(store.root, str(remote)):
        csrf = csrf_of(client.get("/").text)
        answer = client.post("/sync", data={"csrf": csrf}, headers={"HX-Request": "true"})
        assert answer.status_code == 200, answer.text
        assert 'class="sync-result ok"' in answer.text
        assert f"semantic/{note.id}.md" in _remote_paths(remote)
        # Without htmx (a plain form post) the result is a whole page.
        again = client.post("/sync", data={"csrf": csrf})
        assert again.status_code == 200 and "<h1>Sync</h1>" in again.text


def test_a_failing_sync_says_why(store: MemoryStore, tmp_path: Path) -> None:
    store.write(type="semantic", title="to share", body="x", project="p")
    missing = tmp_path / "no-such-remote.git"
    for _, client in _served(store.root, str(missing)):
        csrf = csrf_of(client.get("/").text)
        answer = client.post("/sync", data={"csrf": csrf}, headers={"HX-Request": "true"})
        assert answer.status_code == 502
        assert "Sync failed" in answer.text and "no-such-remote" in html.unescape(answer.text)


def test_status_panel_shows_doctors_checks(store: MemoryStore, client: httpx.Client) -> None:
    store.write(type="semantic", title="n", body="x", project="p")
    panel = client.get("/status", params={"panel": "1"})
    assert panel.status_code == 200
    assert '<li class="check s-' in panel.text  # doctor ran and reported
    assert "store" in panel.text and "1 notes" in panel.text
    assert "<html" not in panel.text  # the fragment the list page loads
    assert "<html" in client.get("/status").text
