"""Who may talk to the dashboard: a local page that can rewrite memory is a target. Each
test is a request a hostile page, another user's process or a stale link could make."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.dashboard_server import DashboardProcess, csrf_of, outside_address

from anamnesis.store import MemoryStore


def test_no_cookie_no_page(dashboard: DashboardProcess) -> None:
    for path in ("/", "/search?q=x", "/fleet", "/status", "/static/style.css"):
        answer = httpx.get(dashboard.base.rstrip("/") + path)
        assert answer.status_code == 403, path
        assert "anamnesis dashboard" in answer.text


def test_the_link_works_once_and_leaves_the_address(dashboard: DashboardProcess) -> None:
    first = httpx.get(dashboard.link)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
    assert dashboard.token not in cookie  # the session is its own secret, not the token
    assert httpx.get(dashboard.link).status_code == 403  # spent
    assert httpx.get(dashboard.base + "?token=guessed").status_code == 403


def test_a_wrong_cookie_is_refused(dashboard: DashboardProcess) -> None:
    answer = httpx.get(dashboard.base, cookies={"anamnesis_dashboard": "forged"})
    assert answer.status_code == 403


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:{port}", "127.0.0.1:1", "[::1]:{port}"]
)
def test_foreign_host_headers_are_refused(
    dashboard: DashboardProcess, client: httpx.Client, host: str
) -> None:
    """DNS rebinding: a page at evil.example whose name now points at 127.0.0.1."""
    answer = client.get("/", headers={"Host": host.format(port=dashboard.port)})
    assert answer.status_code == 421
    assert client.get("/", headers={"Host": f"localhost:{dashboard.port}"}).status_code == 200


def test_state_changes_need_origin_and_csrf(
    store: MemoryStore, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    note = store.write(type="semantic", title="target", body="keep me", project="p")
    page = client.get(f"/notes/{note.id}/edit").text
    csrf = csrf_of(page)
    form = {"csrf": csrf, "digest": "0" * 64, "source": "owned"}
    url = f"/notes/{note.id}"
    assert client.post(url, data=form, headers={"Origin": "http://evil.example"}).status_code == 403
    no_origin = httpx.post(dashboard.base + url.lstrip("/"), data=form, cookies=client.cookies)
    assert no_origin.status_code == 403
    assert client.post(url, data={**form, "csrf": "x" * 64}).status_code == 403
    assert client.post(url, data={"digest": "0" * 64, "source": "owned"}).status_code == 403
    assert client.post(url, json=form).status_code == 415
    assert client.post("/sync", data={"csrf": ""}).status_code == 403
    assert client.put(url, data=form).status_code == 405
    assert client.delete(url).status_code == 405
    big = client.post(url, data={**form, "source": "x" * (3 * 1024 * 1024)})
    assert big.status_code == 413
    assert store.get(note.id).body == "keep me"


def test_every_answer_carries_the_policy(client: httpx.Client) -> None:
    for path in ("/", "/nope", "/notes/bogus", "/static/htmx.min.js"):
        headers = client.get(path).headers
        assert headers["content-security-policy"].startswith("default-src 'self'"), path
        assert headers["x-content-type-options"] == "nosniff", path
        assert "frame-ancestors 'none'" in headers["content-security-policy"], path


def test_binds_loopback_only(dashboard: DashboardProcess) -> None:
    outside = outside_address()
    if outside is None:
        pytest.skip("this machine has no non-loopback address to try")
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://{outside}:{dashboard.port}/", timeout=3)


def test_another_address_needs_the_flag_and_warns(isolated_home: Path) -> None:
    MemoryStore(isolated_home).close()
    command = [sys.executable, "-m", "anamnesis.dashboard", "--home", str(isolated_home),
               "--port", "0", "--no-open", "--host", "127.0.0.2"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(2)]
    finally:
        process.terminate()
        process.wait(10)
    assert "WARNING: listening on 127.0.0.2" in lines[0]
    assert "http://127.0.0.2:" in lines[1] and "?token=" in lines[1]
