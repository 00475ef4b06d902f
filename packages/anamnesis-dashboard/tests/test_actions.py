"""The page's two actions that used to run the `anamnesis` command and are now calls in the
dashboard's own process: a sync (ops' one sync cycle) and the status panel's checks (ops'
checks of the home, when the dashboard runs on its own)."""

from __future__ import annotations

import html
from collections.abc import Iterator
from pathlib import Path

import httpx
from anamnesis_testsupport.dashboard_server import (
    DashboardProcess,
    checks_shown,
    csrf_of,
    start_dashboard,
)
from anamnesis_testsupport.repos import every_blob, tip_paths
from anamnesis_testsupport.unpushed import RESOLVED_SECRET, TYPED_SECRET, leave_resolve_unpushed

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


def _press_sync(client: httpx.Client) -> str:
    """Press Sync as the page's htmx does, and see it succeed; the form's CSRF token."""
    csrf = csrf_of(client.get("/").text)
    answer = client.post("/sync", data={"csrf": csrf}, headers={"HX-Request": "true"})
    assert answer.status_code == 200, answer.text
    assert 'class="sync-result ok"' in answer.text
    return csrf


def test_the_sync_button_runs_one_sync(store: MemoryStore, remote: Path) -> None:
    note = store.write(type="semantic", title="to share", body="x", project="p")
    for _, client in _served(store.root, str(remote)):
        csrf = _press_sync(client)
        assert f"semantic/{note.id}.md" in tip_paths(remote)
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


def test_status_panel_shows_ops_checks_of_the_home(
    store: MemoryStore, client: httpx.Client
) -> None:
    store.write(type="semantic", title="n", body="x", project="p")
    panel = client.get("/status", params={"panel": "1"})
    assert panel.status_code == 200
    shown = checks_shown(panel.text)
    # Run on its own, the dashboard shows ops' checks of the home, in doctor's order; the
    # CLI's own (install, config, hooks, MCP...) come only when the CLI starts it.
    assert list(shown) == ["store", "index", "clock", "remote", "sync"]
    assert shown["index"] == "ok"
    assert "store" in panel.text and "1 notes" in panel.text
    assert "<html" not in panel.text  # the fragment the list page loads
    assert "<html" in client.get("/status").text


def _blobs_holding(remote: Path, secret: str) -> list[bytes]:
    """The remote's blobs, in any commit (history included), that hold ``secret``."""
    return [blob[:60] for blob in every_blob(remote) if secret.encode() in blob]


def test_the_sync_button_pushes_nothing_unmasked(
    store: MemoryStore, remote: Path, tmp_path: Path
) -> None:
    # A resolve committed here but not pushed (the remote was busy), a secret typed into
    # the conflicting note before it; then a second secret typed into another note.
    leave_resolve_unpushed(store.root, tmp_path / "desktop", remote)
    other = store.write(type="semantic", title="Staging", body="staging notes", project="p")
    typed = store.path_of(other)
    typed.write_text(typed.read_text() + f"\nstaging token {TYPED_SECRET}\n")
    for _, client in _served(store.root, str(remote)):
        _press_sync(client)
    assert f"semantic/{other.id}.md" in tip_paths(remote)
    assert _blobs_holding(remote, RESOLVED_SECRET) == []
    assert _blobs_holding(remote, TYPED_SECRET) == []
    assert TYPED_SECRET not in typed.read_text()  # masked on disk, as it was pushed
