"""The edit page's preview (``POST /notes/<id>/preview``): the body rendered as the note
page renders it, behind the same guard as a save (session, Host, Origin, CSRF)."""

from __future__ import annotations

import httpx
from anamnesis_testsupport.dashboard_server import DashboardProcess, csrf_of

from anamnesis.store import MemoryStore

BODY = "Use **20** connections\n\n<script>window.__xss=1</script>\n\n[x](javascript:alert(1))\n"


def _csrf(client: httpx.Client, note_id: str) -> str:
    return csrf_of(client.get(f"/notes/{note_id}/edit").text)


def test_the_preview_renders_the_body_inert_and_writes_nothing(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool", body="use 20", project="api")
    before = store.file_of(note.id).read_bytes()
    url = f"/notes/{note.id}/preview"
    answer = client.post(url, data={"csrf": _csrf(client, note.id), "body": BODY})
    assert answer.status_code == 200
    assert "<strong>20</strong>" in answer.text
    assert "<script>" not in answer.text and "&lt;script&gt;" in answer.text
    assert 'href="javascript:' not in answer.text
    assert "<html" not in answer.text  # a fragment for htmx to swap in, not a page
    assert answer.headers["content-security-policy"].startswith("default-src 'self'")
    empty = client.post(url, data={"csrf": _csrf(client, note.id), "body": " \r\n"})
    assert empty.status_code == 200 and "the body is empty" in empty.text
    assert store.file_of(note.id).read_bytes() == before


def test_the_preview_is_refused_without_session_origin_or_csrf(
    store: MemoryStore, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="Pool", body="use 20", project="api")
    url = f"/notes/{note.id}/preview"
    form = {"csrf": _csrf(client, note.id), "body": BODY}
    absolute = dashboard.base + url.lstrip("/")
    assert client.post(url, data=form).status_code == 200  # the rest below is what fails

    other_origin = client.post(url, data=form, headers={"Origin": "http://evil.example"})
    assert other_origin.status_code == 403
    no_origin = httpx.post(absolute, data=form, cookies=client.cookies)
    assert no_origin.status_code == 403
    no_session = httpx.post(absolute, data=form, headers={"Origin": dashboard.origin})
    assert no_session.status_code == 403
    assert client.post(url, data={**form, "csrf": "x" * 64}).status_code == 403
    assert client.post(url, data={"body": BODY}).status_code == 403
    assert client.post(url, json=form).status_code == 415
    rebound = client.post(url, data=form, headers={"Host": f"evil.example:{dashboard.port}"})
    assert rebound.status_code == 421
    assert client.get(url).status_code == 405  # a body is posted, never put in an address
    assert client.post("/notes/not-an-id/preview", data=form).status_code == 404
