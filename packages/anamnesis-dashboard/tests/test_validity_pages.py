"""Validity in time on the pages that show notes: the note page says "expired" and "due"
with the dates, the list and the search leave expired notes out unless "include expired",
and mark them (and notes due for review) when shown. A real dashboard process over a real
store, over HTTP."""

from __future__ import annotations

import re

import httpx
import pytest

from anamnesis.store import Memory, MemoryStore


@pytest.fixture
def notes(store: MemoryStore) -> dict[str, Memory]:
    live = store.write(type="semantic", title="Staging host", body="staging.example.com")
    return {
        "expired": store.write(type="semantic", title="Old staging host",
                               body="staging-old.example.com", valid_until="2020-01-31",
                               compatible_with=[live.id]),
        "due": store.write(type="semantic", title="Staging password policy",
                           body="staging rotates monthly", review_after="2020-06-01"),
        "live": live,
    }  # fmt: skip


def _titles(page: str) -> list[str]:
    return re.findall(r'<a href="/notes/\w+" class="title">([^<]*)</a>', page)


def _badges(page: str, title: str) -> list[str]:
    """The badges of the row whose title is ``title``."""
    row = page[page.index(f'class="title">{title}</a>') :]
    row = row[: row.index("</li>")]
    return re.findall(r'<span class="badge[^"]*"[^>]*>(\w+)</span>', row)


def test_the_note_page_says_expired_and_due_with_the_dates(
    notes: dict[str, Memory], client: httpx.Client
) -> None:
    expired = client.get(f"/notes/{notes['expired'].id}").text
    assert "Expired: it held until 2020-01-31." in expired
    assert '<dt>valid until</dt><dd>2020-01-31 <span class="badge">expired</span></dd>' in expired
    assert "Not in contradiction with" in expired and ">Staging host</a>" in expired
    due = client.get(f"/notes/{notes['due'].id}").text
    assert "Due for review since 2020-06-01" in due
    assert '<dt>review after</dt><dd>2020-06-01 <span class="badge">due</span></dd>' in due
    assert "Expired:" not in due
    live = client.get(f"/notes/{notes['live'].id}").text
    assert "valid until" not in live and "Due for review" not in live


def test_the_list_leaves_expired_notes_out_unless_asked_and_marks_them(
    notes: dict[str, Memory], client: httpx.Client
) -> None:
    default = client.get("/").text
    assert sorted(_titles(default)) == ["Staging host", "Staging password policy"]
    assert _badges(default, "Staging password policy") == ["due"]
    every = client.get("/", params={"expired": "1"}).text
    assert "Old staging host" in _titles(every)
    assert _badges(every, "Old staging host") == ["expired"]
    assert 'name="expired" value="1" checked' in every
    assert "3 of 3 notes match the filters" in every


def test_search_leaves_expired_notes_out_unless_asked_and_marks_them(
    notes: dict[str, Memory], client: httpx.Client
) -> None:
    default = client.get("/search", params={"q": "staging", "mode": "keyword"}).text
    assert "Old staging host" not in _titles(default)
    every = client.get("/search", params={"q": "staging", "mode": "keyword", "expired": "1"}).text
    assert "Old staging host" in _titles(every)
    assert _badges(every, "Old staging host") == ["expired"]
    assert _badges(every, "Staging password policy") == ["due"]
