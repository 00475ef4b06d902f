"""A note's old versions through a real dashboard process: viewed whole, restored as a new
edit through the edit page's save, and the restore shown in the history."""

from __future__ import annotations

import html
import re

import httpx
from anamnesis_testsupport.dashboard_server import csrf_of

from anamnesis.store import Memory, MemoryStore
from anamnesis.sync import GitSyncBackend

MACHINE = "laptop"  # conftest's machine id


def three_versions(store: MemoryStore) -> Memory:
    """A note committed three times: use 20, 30, then 40 connections (with a new title)."""
    note = store.write(type="semantic", title="Pool size", body="use 20 connections", project="api")
    git = GitSyncBackend(store.memory_dir, remote=None, machine_id=MACHINE)
    git.commit_local("first")
    store.update(note.id, body="use 30 connections")
    git.commit_local("second")
    store.update(note.id, body="use 40 connections", title="Pool size (raised)")
    git.commit_local("third")
    return note


def history_commits(client: httpx.Client, note_id: str) -> list[str]:
    page = client.get(f"/notes/{note_id}/history").text
    return re.findall(rf'class="commit" href="/notes/{note_id}/versions/([0-9a-f]{{40}})"', page)


def confirmation(client: httpx.Client, note_id: str, commit: str) -> tuple[str, dict[str, str]]:
    """The restore confirmation page's text, and the form it posts (csrf, digest)."""
    page = client.get(f"/notes/{note_id}/versions/{commit}/restore")
    assert page.status_code == 200
    digest = re.search(r'name="digest" value="([0-9a-f]{64})"', page.text)
    assert digest is not None
    return page.text, {"csrf": csrf_of(page.text), "digest": digest.group(1)}


def text_of(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_commit_ids_link_to_the_note_as_each_commit_left_it(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = three_versions(store)
    newest, _, oldest = history_commits(client, note.id)
    page = client.get(f"/notes/{note.id}/versions/{oldest}")
    assert page.status_code == 200
    assert "<h1>Pool size</h1>" in page.text and "<p>use 20 connections</p>" in page.text
    assert "first" in page.text  # the commit's message
    assert f'href="/notes/{note.id}/versions/{oldest}/restore"' in page.text
    current = client.get(f"/notes/{note.id}/versions/{newest}").text
    assert "<h1>Pool size (raised)</h1>" in current and "This is the newest version" in current
    assert "/restore" not in current  # it is what the file is now: nothing to restore
    unknown = client.get(f"/notes/{note.id}/versions/{'0' * 40}")
    assert unknown.status_code == 404
    assert client.get(f"/notes/{note.id}/versions/HEAD").status_code == 404


def test_restoring_an_old_version_is_a_new_edit_shown_in_the_history(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = three_versions(store)
    newest, _, oldest = history_commits(client, note.id)
    confirm, form = confirmation(client, note.id, oldest)
    shown = text_of(confirm)
    assert "-use 40 connections" in shown and "+use 20 connections" in shown

    answer = client.post(f"/notes/{note.id}/versions/{oldest}/restore", data=form)
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/notes/{note.id}/history?restored={oldest[:7]}"
    restored = store.get(note.id)
    assert (restored.title, restored.body) == ("Pool size", "use 20 connections")
    assert "use 20 connections" in store.file_of(note.id).read_text(encoding="utf-8")

    history = client.get(answer.headers["location"]).text
    assert 'id="restored"' in history
    working = re.search(r'<tr class="working">.*?</tr>', history, re.S)
    assert working is not None and f'restores <a href="/notes/{note.id}/versions/{oldest}">' in (
        working.group(0)
    )
    # Committed by the next sync, it is a version of its own that still says so.
    GitSyncBackend(store.memory_dir, remote=None, machine_id=MACHINE).commit_local()
    commits = history_commits(client, note.id)
    assert len(commits) == 4 and commits[1] == newest
    after = client.get(f"/notes/{note.id}/history").text
    first_row = re.search(r'<tr class="version">.*?</tr>', after, re.S)
    assert first_row is not None and f'versions/{oldest}"><code>{oldest[:7]}' in first_row.group(0)
    assert "restores" in first_row.group(0)


def test_a_restore_over_a_changed_file_restores_nothing(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = three_versions(store)
    oldest = history_commits(client, note.id)[-1]
    _, form = confirmation(client, note.id, oldest)
    store.update(note.id, body="use 50 connections (edited meanwhile)")
    answer = client.post(f"/notes/{note.id}/versions/{oldest}/restore", data=form)
    assert answer.status_code == 409
    assert 'id="changed"' in answer.text and "-use 50 connections" in text_of(answer.text)
    assert store.get(note.id).body == "use 50 connections (edited meanwhile)"


def test_a_restore_needs_the_form_s_csrf_token(store: MemoryStore, client: httpx.Client) -> None:
    note = three_versions(store)
    oldest = history_commits(client, note.id)[-1]
    _, form = confirmation(client, note.id, oldest)
    answer = client.post(
        f"/notes/{note.id}/versions/{oldest}/restore", data={**form, "csrf": "wrong"}
    )
    assert answer.status_code == 403
    assert store.get(note.id).body == "use 40 connections"


def test_a_deleted_version_shows_as_such_and_cannot_be_restored(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Gone soon", body="x", project="api")
    git = GitSyncBackend(store.memory_dir, remote=None, machine_id=MACHINE)
    git.commit_local("written")
    store.delete(note.id)
    git.commit_local("deleted")
    deleted, written = history_commits(client, note.id)
    page = client.get(f"/notes/{note.id}/versions/{deleted}").text
    assert "This commit deleted the note" in page
    old = client.get(f"/notes/{note.id}/versions/{written}").text
    assert "<h1>Gone soon</h1>" in old and "/restore" not in old  # not in the store now
    assert client.get(f"/notes/{note.id}/versions/{written}/restore").status_code == 409
