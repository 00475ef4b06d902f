"""Notes that the Sync button pulls, or that a save changes, get their vectors after the
page answered, in a thread of the dashboard's own process (it starts no program), as the
CLI's `sync` and `write` hand them to a background embedder.

Real processes, a real remote and the real (offline) model: skipped where the vectors
extra, a sqlite3 that loads extensions or the model in ../shared is missing. Nothing is
timed: the deadline only keeps a broken run from hanging.
"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport import OFFLINE_MODEL, vectors_unavailable_reason
from anamnesis_testsupport.dashboard_server import csrf_of, start_dashboard

from anamnesis.ops import Home, run_sync
from anamnesis.store import MemoryStore

REASON = vectors_unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")
DEADLINE_S = 300


@pytest.fixture
def vectors_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's default search (hybrid) with the offline model, here and in the
    dashboard process (it inherits this environment)."""
    monkeypatch.delenv("ANAMNESIS_SEARCH_MODE")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(OFFLINE_MODEL))


def _backlog(home: Path) -> int:
    with MemoryStore(home) as store:
        return store.embedding_backlog()


def _wait_until_embedded(home: Path) -> int:
    deadline = time.monotonic() + DEADLINE_S
    while (waiting := _backlog(home)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return waiting


@pytest.mark.usefixtures("vectors_on")
def test_notes_the_sync_button_pulls_get_their_vectors(
    isolated_home: Path, remote: Path, tmp_path: Path
) -> None:
    other = tmp_path / "desktop"
    with MemoryStore(other) as desktop:
        for n in range(5):
            desktop.write(type="semantic", title=f"tmux layout {n}", body=f"restore panes {n}")
        run_sync(Home(other, machine_id="desktop", remote=str(remote)), desktop)
    MemoryStore(isolated_home).close()  # this machine: an empty store

    running = start_dashboard(isolated_home, env={"ANAMNESIS_GIT_REMOTE": str(remote)})
    try:
        with httpx.Client(
            base_url=running.base, headers={"Origin": running.origin}, timeout=120
        ) as client:
            client.get(running.link)
            answer = client.post("/sync", data={"csrf": csrf_of(client.get("/").text)})
            assert answer.status_code == 200, answer.text
        assert _wait_until_embedded(isolated_home) == 0
    finally:
        running.stop()
    with MemoryStore(isolated_home) as store:
        assert len(store.list(limit=50)) == 5  # pulled, and every one embedded


@pytest.mark.usefixtures("vectors_on")
def test_a_note_saved_from_the_edit_page_gets_its_vector(isolated_home: Path) -> None:
    with MemoryStore(isolated_home) as store:
        note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    assert _backlog(isolated_home) == 1
    running = start_dashboard(isolated_home)
    try:
        with httpx.Client(
            base_url=running.base, headers={"Origin": running.origin}, timeout=120
        ) as client:
            client.get(running.link)
            form = client.get(f"/notes/{note.id}/edit?raw=1").text
            digest = form.split('name="digest" value="', 1)[1].split('"', 1)[0]
            with MemoryStore(isolated_home) as store:
                text = store.file_of(note.id).read_text(encoding="utf-8")
            saved = client.post(
                f"/notes/{note.id}",
                data={"csrf": csrf_of(form), "digest": digest,
                      "source": text.replace("use 20", "use 40")},
            )  # fmt: skip
            assert saved.status_code == 303, saved.text
        assert _wait_until_embedded(isolated_home) == 0
    finally:
        running.stop()
