"""The usage page in headless Chromium: reached from the nav, its tables read at a desktop
width and as cards on a phone, links to the notes never used, no console error or CSP
refusal, and a screenshot of each width kept beside the test's files for a person to look at.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from anamnesis_testsupport.browser import browser as browser
from anamnesis_testsupport.browser import context as context
from anamnesis_testsupport.browser import page as page
from anamnesis_testsupport.browser import sign_in
from anamnesis_testsupport.dashboard_server import DashboardProcess
from playwright.sync_api import Page, expect

from anamnesis.store import Memory, MemoryStore

pytestmark = pytest.mark.browser

DAY = 86_400


def aged(store: MemoryStore, title: str, days: int, project: str) -> Memory:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime(time.time() - days * DAY))
    note = store.write(type="semantic", title=title, body=f"{title}.", project=project)
    return store.put(note.replace(created_at=stamp, updated_at=stamp))


def recorded(store: MemoryStore) -> dict[str, Memory]:
    api = "github.com/acme/payments-api"
    notes = {
        "deploy": aged(store, "Deploy: run migrations first, then restart the workers", 90, api),
        "pool": aged(store, "Postgres pool holds 20 connections per worker", 80, api),
        "esbuild": aged(store, "Frontend builds with esbuild 0.19; 0.20 breaks CSS", 70, api),
        "flags": aged(store, "Feature flags are read from LaunchDarkly at start only", 120, api),
        "staging": aged(store, "Staging is refreshed from a masked dump", 200, "global"),
    }
    usage = store.usage
    now = time.time()
    for day in range(12):
        at, session = now - day * DAY, f"s{day}"
        shown = [notes["deploy"].id, notes["pool"].id]
        usage.record("injected", shown, project=api, agent="claude-code", session=session, now=at)
        recalled = [notes["pool"].id] if day % 3 == 0 else []
        usage.record("recalled", recalled, project=api, session=session, now=at + 60)
    for day in range(4):
        usage.record("searched", [notes["esbuild"].id], session=f"m{day}", now=now - day * DAY)
        usage.record("fetched", [notes["esbuild"].id], session=f"m{day}", now=now - day * DAY + 5)
    return notes


def test_the_usage_page_from_the_nav_at_desktop_and_phone_widths(
    store: MemoryStore, dashboard: DashboardProcess, page: Page, tmp_path: Path
) -> None:
    notes = recorded(store)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_viewport_size({"width": 1280, "height": 900})
    sign_in(page, dashboard)
    page.click("header nav a:text-is('Usage')")
    page.wait_for_url("**/usage")
    expect(page.locator("header nav a[aria-current=page]")).to_have_text("Usage")
    expect(page.locator("#recall-rate")).to_have_text(
        "Prompt recall found notes for 4 of 12 prompts (33%) in the last 30 days."
    )
    most = page.locator("#most-used tbody tr")
    expect(most).to_have_count(3)
    expect(most.nth(0).locator("a.title")).to_have_text(notes["pool"].title)  # 12 + 4 uses
    expect(most.nth(0).locator("td.uses")).to_have_text("16")
    expect(page.locator("#events tr.event-fetched")).to_contain_text(
        "4 right after a search returned them"
    )
    unused = page.locator("#never-used a.title")
    expect(unused).to_have_text([notes["staging"].title, notes["flags"].title])  # oldest first
    page.screenshot(path=str(tmp_path / "usage-desktop.png"), full_page=True)

    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    card = page.locator("#most-used tbody tr").nth(0).bounding_box()
    assert card is not None and card["width"] <= 390
    page.screenshot(path=str(tmp_path / "usage-phone.png"), full_page=True)

    unused.nth(1).click()  # a suggestion for review: the note, as it is
    page.wait_for_url(f"**/notes/{notes['flags'].id}")
    expect(page.locator("article.note h1")).to_have_text(notes["flags"].title)
    assert store.get(notes["flags"].id) == notes["flags"]
    assert not errors, errors
    for shot in ("usage-desktop.png", "usage-phone.png"):
        assert (tmp_path / shot).stat().st_size > 10_000
