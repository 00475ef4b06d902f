"""The usage page (``/usage``): what this machine's sessions used, as ``anamnesis stats``
shows it, from the store's usage log; behind the dashboard's guard like every page, and
changing nothing (notes never used are links to review, never hidden or removed)."""

from __future__ import annotations

import html
import re
import time

import httpx
import pytest
from anamnesis_testsupport.dashboard_server import DashboardProcess

from anamnesis.store import Memory, MemoryStore

DAY = 86_400
XSS = "<script>window.__xss=1</script>"


def aged(store: MemoryStore, title: str, days: int, project: str = "api") -> Memory:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() - days * DAY))
    note = store.write(type="semantic", title=title, body=f"{title}.", project=project)
    return store.put(note.replace(created_at=stamp, updated_at=stamp))


def used_store(store: MemoryStore) -> dict[str, Memory]:
    notes = {
        "pool": aged(store, "Postgres pool holds 20 connections", 60),
        "port": aged(store, "API listens on 9443", 50),
        "stale": aged(store, f"Deploy with fabric {XSS}", 200),
        "young": aged(store, "Use ruff", 2),
    }
    usage = store.usage
    for session in ("s1", "s2", "s3"):
        usage.record("injected", [notes["pool"].id, notes["port"].id], session=session)
    usage.record("recalled", [notes["pool"].id], session="s1")
    usage.record("recalled", [], session="s1")
    usage.record("searched", [notes["port"].id], session="m1")
    usage.record("fetched", [notes["port"].id], session="m1")
    return notes


def texts(page: str, pattern: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", found)).strip()
            for found in re.findall(pattern, page, re.S)]  # fmt: skip


def test_the_page_shows_what_was_used_and_what_never_was(
    store: MemoryStore, client: httpx.Client
) -> None:
    notes = used_store(store)
    before = {key: store.file_of(note.id).read_bytes() for key, note in notes.items()}
    answer = client.get("/usage")
    assert answer.status_code == 200
    page = answer.text
    assert 'href="/usage" aria-current="page"' in page  # in the nav, marked as here
    rate = texts(page, r'<p class="recall-rate" id="recall-rate">(.*?)</p>')
    assert rate == ["Prompt recall found notes for 1 of 2 prompts (50%) in the last 30 days."]
    most = page.split('id="most-used"')[1].split("</table>")[0]
    assert texts(most, r'<a href="/notes/\w+" class="title">(.*?)</a>') == [
        "API listens on 9443", "Postgres pool holds 20 connections",
    ]  # 5 uses, then 4  # fmt: skip
    assert texts(most, r'<td data-label="uses" class="uses">(.*?)</td>') == ["5", "4"]
    never = page.split('id="never-used"')[1].split("</table>")[0]
    assert texts(never, r'class="title">(.*?)</a>') == [f"Deploy with fabric {XSS}"]
    assert "<script>window.__xss" not in page  # escaped, as every title
    assert f'href="/notes/{notes["stale"].id}"' in never
    assert notes["young"].id not in page  # younger than the window: not had its chance
    assert "fetched" in page or "read by id" in page
    assert "1 right after a search returned them" in html.unescape(page)
    after = {key: store.file_of(note.id).read_bytes() for key, note in notes.items()}
    assert after == before  # a page that only reads


def test_the_window_and_the_lists_follow_the_address(
    store: MemoryStore, client: httpx.Client
) -> None:
    used_store(store)
    for n in range(3):
        aged(store, f"Old fact {n}", 100 + n)
    page = client.get("/usage", params={"days": "7", "limit": "2"}).text
    assert "Never used in 7 days" in page
    never = page.split('id="never-used"')[1].split("</table>")[0]
    assert len(re.findall(r'class="title"', never)) == 2
    assert 'href="/usage?days=7&amp;limit=4"' in page  # pool/port used, 2 shown of 4 old
    wide = client.get("/usage", params={"days": "3650"}).text
    assert "No prompt was recalled for" not in wide


@pytest.mark.parametrize("query", ["days=0", "days=abc", "days=99999", "limit=0", "limit=1x"])
def test_a_bad_number_is_a_400_that_says_what_to_send(client: httpx.Client, query: str) -> None:
    answer = client.get(f"/usage?{query}")
    assert answer.status_code == 400
    assert "must be a whole number" in answer.text


def test_an_empty_log_and_a_damaged_one_are_said(store: MemoryStore, client: httpx.Client) -> None:
    page = client.get("/usage").text
    assert "Nothing recorded in the last 30 days" in page
    assert "No prompt was recalled for" in page
    store.layout.usage_path.write_bytes(b"not a database" * 100)
    damaged = client.get("/usage")
    assert damaged.status_code == 200
    assert "the usage log could not be read" in damaged.text
    assert store.layout.usage_path.with_name("usage.db.broken").exists()


def test_no_cookie_no_usage_page(dashboard: DashboardProcess) -> None:
    answer = httpx.get(dashboard.base + "usage")
    assert answer.status_code == 403
