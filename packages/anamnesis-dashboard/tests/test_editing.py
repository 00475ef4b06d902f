"""Editing a note in the page: saved through the store, never committed, and never over a
change the editor did not see."""

from __future__ import annotations

import html
import re

import httpx
from anamnesis_testsupport.dashboard_server import csrf_of

from anamnesis.store import MemoryStore
from anamnesis.sync import GitSyncBackend


def _form(client: httpx.Client, note_id: str) -> tuple[str, str, str]:
    """(csrf, digest, source) from the note's raw edit page (the whole file)."""
    page = client.get(f"/notes/{note_id}/edit", params={"raw": "1"})
    assert page.status_code == 200
    digest = re.search(r'name="digest" value="([0-9a-f]{64})"', page.text)
    # The page writes a newline after <textarea> (HTML drops it): a text's own first one stays.
    source = re.search(r"<textarea[^>]*>\n(.*?)</textarea>", page.text, re.S)
    assert digest and source
    return csrf_of(page.text), digest.group(1), html.unescape(source.group(1))


def _save(
    client: httpx.Client, note_id: str, csrf: str, digest: str, source: str
) -> httpx.Response:
    return client.post(f"/notes/{note_id}", data={"csrf": csrf, "digest": digest, "source": source})


def _text(page: str) -> str:
    """A page's text as read, without its tags (a diff marks changed words within lines)."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def test_save_writes_the_markdown_and_reindexes_without_committing(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20 connections", project="api")
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="laptop")
    backend.commit_local("before the edit")
    csrf, digest, source = _form(client, note.id)
    answer = _save(client, note.id, csrf, digest, source.replace("use 20", "use 35"))
    assert answer.status_code == 303
    assert answer.headers["location"] == f"/notes/{note.id}?saved=1"
    assert "use 35 connections" in store.file_of(note.id).read_text()
    assert store.get(note.id).updated_at >= note.updated_at  # seconds: may be equal
    assert [n.id for n in store.search("35", mode="keyword")] == [note.id]  # reindexed
    assert backend.local_changes()  # saved, not committed: sync stays explicit
    shown = client.get(answer.headers["location"]).text
    assert "use 35 connections" in shown and "Not synced yet" in shown


def test_a_concurrent_change_answers_409_with_both_versions_and_writes_nothing(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    csrf, digest, source = _form(client, note.id)
    store.update(note.id, body="use 50 (changed by a sync meanwhile)")
    mine = source.replace("use 20", "use 35 (my edit)")
    answer = _save(client, note.id, csrf, digest, mine)
    assert answer.status_code == 409
    assert "use 35 (my edit)" in html.unescape(answer.text)  # my text is still in the editor
    assert "use 50 (changed by a sync meanwhile)" in html.unescape(answer.text)
    assert "use 50" in store.file_of(note.id).read_text()  # nothing was written
    # Saving again from the conflict page is a deliberate choice: it now carries the
    # current file's hash, and my text wins.
    fresh = re.search(r'name="digest" value="([0-9a-f]{64})"', answer.text)
    assert fresh and fresh.group(1) != digest
    again = _save(client, note.id, csrf, fresh.group(1), mine)
    assert again.status_code == 303
    assert "use 35 (my edit)" in store.file_of(note.id).read_text()


def test_invalid_text_is_422_and_kept(store: MemoryStore, client: httpx.Client) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    csrf, digest, source = _form(client, note.id)
    broken = source.replace("type: semantic", "type: wishful")
    answer = _save(client, note.id, csrf, digest, broken)
    assert answer.status_code == 422
    assert "wishful" in answer.text and "Not saved" in answer.text
    assert "type: semantic" in store.file_of(note.id).read_text()
    no_front = _save(client, note.id, csrf, digest, "just text, no frontmatter")
    assert no_front.status_code == 422
    other_id = source.replace(note.id, "01J00000000000000000000000")
    assert _save(client, note.id, csrf, digest, other_id).status_code == 422


def test_secrets_typed_into_an_edit_are_masked(store: MemoryStore, client: httpx.Client) -> None:
    note = store.write(type="semantic", title="Deploy", body="see the vault", project="api")
    csrf, digest, source = _form(client, note.id)
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    answer = _save(client, note.id, csrf, digest, source + f"\ntoken {token}\n")
    assert answer.status_code == 303 and answer.headers["location"].endswith("saved=masked")
    assert token not in store.file_of(note.id).read_text()


def test_history_lists_commits_and_the_unsynced_working_copy(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool", body="first line", project="api")
    backend = GitSyncBackend(store.memory_dir, remote=None, machine_id="laptop")
    backend.commit_local("one")
    store.update(note.id, body="second line")
    backend.commit_local("two")
    page = client.get(f"/notes/{note.id}/history").text
    assert page.count('class="version"') == 2
    assert "+second line" in _text(page) and "-first line" in _text(page)
    csrf, digest, source = _form(client, note.id)
    _save(client, note.id, csrf, digest, source.replace("second line", "third line"))
    page = client.get(f"/notes/{note.id}/history").text
    assert 'class="working"' in page and "+third line" in _text(page)
    commits = re.findall(r'name="a" value="([0-9a-f]{40})"', page)
    older = client.get(f"/notes/{note.id}/history", params={"a": commits[1], "b": commits[0]})
    assert "+second line" in _text(older.text)
    assert client.get(f"/notes/{note.id}/history", params={"a": "HEAD~1"}).status_code == 400


def test_a_body_over_the_store_s_limit_is_refused_with_the_text_kept(
    store: MemoryStore, client: httpx.Client
) -> None:
    # The same limit as every other writer: 1,000,000 bytes, here in a form under the
    # dashboard's own 2 MB cap on requests, so the store is what refuses it.
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    before = store.file_of(note.id).read_bytes()
    csrf, digest, source = _form(client, note.id)
    huge = "y" * 1_500_000
    answer = _save(client, note.id, csrf, digest, source.replace("use 20", huge))
    assert answer.status_code == 422
    assert "body: is 1,500,000 bytes, over the limit of 1,000,000 bytes" in answer.text
    assert huge in answer.text  # still in the editor: nothing typed is lost
    assert store.file_of(note.id).read_bytes() == before
