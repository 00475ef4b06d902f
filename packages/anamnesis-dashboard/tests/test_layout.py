"""What a person sees around the notes: the pages at a phone's width, the fleet's last
writes, notes kept both ways after a sync conflict, and the list's status line and pager.

Two machines share a bare remote and sync through ops' real cycle (keep-both included);
the dashboard is a real process over the laptop's home. The tests marked ``browser`` drive
headless Chromium (see test_browser.py); the rest read the pages over HTTP.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.browser import browser as browser
from anamnesis_testsupport.browser import context as context
from anamnesis_testsupport.browser import page as page
from anamnesis_testsupport.browser import sign_in
from anamnesis_testsupport.dashboard_server import DashboardProcess
from playwright.sync_api import Page, ViewportSize, expect

from anamnesis.dashboard.views.fleet import summarize
from anamnesis.dashboard.views.history_cache import HistoryCache, NoteVersion
from anamnesis.ops import Home, run_sync
from anamnesis.store import Memory, MemoryStore, write_config

PHONE: ViewportSize = {"width": 390, "height": 844}
LONG_CODE = (
    "```python\nresult = compute_a_really_long_function_name(argument_one=1, argument_two=2, "
    "argument_three=3, argument_four='a long string value that goes on and on')\n```\n"
)
WIDE_TABLE = (
    "| machine | notes | by type | by project | last write | last sync | comment |\n"
    "|---|---|---|---|---|---|---|\n"
    "| desktop-workstation-02 | 120 | episodic 40, semantic 80 | api 30, web 20 | "
    "2026-01-01 12:00 | 2026-01-02 12:00 | an_unbroken_identifier_01JABCDEFGHJKMNPQRSTVWXYZ |\n"
)
LONG_STEP = (
    "run `kubectl rollout status deployment/api-server-production-eu-west-1 "
    "--namespace=production --timeout=600s` and wait for it"
)


@dataclass
class Fleet:
    """The laptop (this dashboard's home) and a desktop, both synced through ``remote``."""

    laptop: Home
    desktop: Home
    mine: MemoryStore
    theirs: MemoryStore

    def sync_both(self) -> None:
        """Laptop, desktop, laptop: each ends with what the other sent."""
        run_sync(self.laptop, self.mine)
        run_sync(self.desktop, self.theirs)
        run_sync(self.laptop, self.mine)


@pytest.fixture
def fleet(isolated_home: Path, tmp_path: Path, remote: Path) -> Iterator[Fleet]:
    # The dashboard reads its remote from config.json, as `anamnesis init --remote` left it.
    write_config({"machine_id": "laptop", "remote": str(remote)}, isolated_home)
    laptop = Home(isolated_home, machine_id="laptop", remote=str(remote))
    desktop = Home(tmp_path / "desktop", machine_id="desktop", remote=str(remote))
    with laptop.open_store() as mine, desktop.open_store() as theirs:
        yield Fleet(laptop, desktop, mine, theirs)


def keep_both(fleet: Fleet) -> tuple[Memory, Memory]:
    """A note both machines changed, settled on the laptop by keep-both: (the remote's
    version, under the original id; the laptop's, under a new one)."""
    note = fleet.mine.write(type="semantic", title="Deploy window", body="on Tuesdays",
                            project="infra", machine_id="laptop")  # fmt: skip
    fleet.sync_both()
    fleet.theirs.update(note.id, body="on Wednesdays")
    run_sync(fleet.desktop, fleet.theirs)
    fleet.mine.update(note.id, body="on Thursdays")
    assert run_sync(fleet.laptop, fleet.mine).result.conflicted
    run_sync(fleet.laptop, fleet.mine, resolve="keep-both")
    copies = [n for n in fleet.mine.list(tag="conflict") if n.title == "Deploy window"]
    original = next(n for n in copies if n.id == note.id)
    copy = next(n for n in copies if n.id != note.id)
    assert original.body == "on Wednesdays" and copy.body == "on Thursdays"
    return original, copy


def fleet_row(page_html: str, machine: str) -> str:
    """The fleet table's row of ``machine``."""
    rows: list[str] = re.findall(r"<tr[^>]*>.*?</tr>", page_html, re.S)
    found = [row for row in rows if f'?machine={machine}"' in row]
    assert len(found) == 1, page_html
    return found[0]


def cell(row: str, label: str) -> str:
    found = re.search(rf'<td[^>]*data-label="{label}"[^>]*>(.*?)</td>', row, re.S)
    assert found, row
    text: str = html.unescape(re.sub(r"<[^>]+>", "", found.group(1)))
    return text.strip()


# -- the fleet's last write --------------------------------------------------------------


def test_a_machine_that_only_edited_shows_its_last_write(
    fleet: Fleet, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    note = fleet.mine.write(type="semantic", title="Pool size", body="use 20", project="api",
                            machine_id="laptop")  # fmt: skip
    fleet.sync_both()
    fleet.theirs.update(note.id, body="use 40")  # the note keeps the laptop's machine id
    fleet.sync_both()
    assert fleet.mine.get(note.id).machine_id == "laptop"
    desktop_commit = max(
        v.time for v in dashboard_versions(fleet, note.id) if v.machine_id == "desktop"
    )
    page_html = client.get("/fleet").text
    desktop = fleet_row(page_html, "desktop")
    assert cell(desktop, "notes") == "0"
    assert cell(desktop, "last write") != "never"
    assert cell(desktop, "last write") == short(desktop_commit)
    laptop = fleet_row(page_html, "laptop")
    assert cell(laptop, "last write") != "never"
    assert "this machine" in cell(laptop, "machine")


def dashboard_versions(fleet: Fleet, note_id: str) -> list[NoteVersion]:
    """The note's versions as the laptop's history holds them (a cache of the test's own)."""
    layout = fleet.laptop.layout
    with HistoryCache(layout.memory_dir, layout.cache_dir / "test-history.db") as cache:
        cache.refresh()
        return cache.versions(note_id)


def short(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M")


def test_last_write_is_the_newest_of_notes_and_note_commits(store: MemoryStore) -> None:
    written = store.write(type="semantic", title="a", body="x", machine_id="laptop")
    laptop_write = written.updated_at
    commits = {
        "laptop": (2, 1_800_000_000), "desktop": (1, 1_700_000_000), "ci": (4, 1_750_000_000),
    }  # fmt: skip
    writes = {"laptop": 1_000_000_000, "desktop": 1_700_000_000}  # ci committed no note
    machines = {
        m.machine_id: m
        for m in summarize(store.list(include_body=False), commits, "laptop", writes)
    }
    assert machines["laptop"].last_write == laptop_write  # its note is newer than 2001
    assert machines["desktop"].last_write == "2023-11-14T22:13:20+00:00"
    assert machines["ci"].last_write == ""  # commits, but none that changed a note: never
    assert summarize([], {}, "laptop", {"far": 10**18})[1].last_write == ""  # no calendar


# -- the status line and page ------------------------------------------------------------


def test_the_status_line_sums_up_the_store_and_opens_the_status_page(
    store: MemoryStore, client: httpx.Client
) -> None:
    store.write(type="semantic", title="one", body="x")
    line = client.get("/status", params={"line": "1"}).text
    assert 'href="/status"' in line and "<strong>1</strong> notes" in line
    assert "no remote: notes stay on this machine" in line
    assert re.search(r"\d+ warnings?|all checks ok", line)
    listed = client.get("/").text
    assert 'hx-get="/status?line=1"' in listed and 'id="status-panel"' not in listed
    assert 'class="check ' not in listed  # doctor's output is on the status page only


def test_conflicts_kept_both_ways_show_in_the_status_line_and_page(
    fleet: Fleet, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    original, copy = keep_both(fleet)
    line = client.get("/status", params={"line": "1"}).text
    assert re.search(r"synced (just now|\d+ min ago)", line)
    assert "1 conflict kept both ways" in line
    assert "1 warning" in line and "s-warn" in line  # the sync check names the pair
    status = client.get("/status").text
    pair = re.search(r'<li class="conflict-pair">(.*?)</li>', status, re.S)
    assert pair, status
    assert f'href="/notes/{original.id}"' in pair.group(1)
    assert f'href="/notes/{copy.id}"' in pair.group(1)
    assert pair.group(1).index(original.id) < pair.group(1).index(copy.id)  # original first
    fleet.mine.write(type="semantic", title="Deploy window", body="on Thursdays",
                     supersedes=[original.id, copy.id], machine_id="laptop")  # fmt: skip
    assert "conflict-pair" not in client.get("/status").text  # settled: no longer listed
    assert "conflict" not in client.get("/status", params={"line": "1"}).text


def test_the_banner_names_the_other_copy_until_one_supersedes_it(
    fleet: Fleet, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    original, copy = keep_both(fleet)
    on_original = client.get(f"/notes/{original.id}").text
    on_copy = client.get(f"/notes/{copy.id}").text
    assert f'<a href="/notes/{copy.id}" class="other-copy">' in on_original
    assert f'<a href="/notes/{original.id}" class="other-copy">' in on_copy
    assert "kept its id: the version the remote had" in on_original
    assert "has a new id: the version laptop had when it kept both" in on_copy
    fleet.mine.update(copy.id, supersedes=[original.id])  # keep the laptop's version
    assert 'id="conflict-copy"' not in client.get(f"/notes/{copy.id}").text
    assert 'id="conflict-copy"' not in client.get(f"/notes/{original.id}").text


# -- in a browser ------------------------------------------------------------------------


def scroll_width(page: Page) -> int:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


def scrolls_inside(page: Page, selector: str) -> bool:
    """Whether the element's content is wider than its box (so it scrolls in it)."""
    inside: bool = page.locator(selector).first.evaluate("e => e.scrollWidth > e.clientWidth")
    return inside


@pytest.mark.browser
def test_note_history_and_fleet_fit_a_phone(
    fleet: Fleet, dashboard: DashboardProcess, page: Page
) -> None:
    body = f"Text.\n\n{LONG_CODE}\n{WIDE_TABLE}"
    wide = fleet.mine.write(type="semantic", title="Wide content", project="api", body=body,
                            machine_id="laptop")  # fmt: skip
    steps = fleet.mine.write(type="procedural", title="Deploy checklist", project="infra",
                             body="step one\nstep two\n", machine_id="laptop")  # fmt: skip
    fleet.sync_both()
    fleet.theirs.update(steps.id, body=f"step one\nstep two, then {LONG_STEP}\n")
    fleet.sync_both()
    sign_in(page, dashboard)
    page.set_viewport_size(PHONE)

    page.goto(f"{dashboard.base}notes/{wide.id}")
    assert scroll_width(page) <= PHONE["width"]
    assert scrolls_inside(page, ".markdown pre")  # the code line scrolls in its own box
    assert scrolls_inside(page, ".markdown table")

    page.goto(f"{dashboard.base}notes/{steps.id}/history")
    expect(page.locator("main")).to_contain_text("kubectl rollout status")
    assert scroll_width(page) <= PHONE["width"]

    page.goto(f"{dashboard.base}fleet")
    expect(page.locator("table.machines")).to_contain_text("desktop")
    assert scroll_width(page) <= PHONE["width"]
    pill = page.locator("table.machines tr.this-machine .badge")
    expect(pill).to_have_text("this machine")
    box = pill.bounding_box()
    assert box is not None and box["height"] < 30  # one line, not "this / machine"

    for path in ("", "status", "search?q=deploy"):
        page.goto(dashboard.base + path)
        assert scroll_width(page) <= PHONE["width"], path


@pytest.mark.browser
def test_conflict_copies_link_to_each_other(
    fleet: Fleet, dashboard: DashboardProcess, page: Page
) -> None:
    original, copy = keep_both(fleet)
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}notes/{original.id}")
    banner = page.locator("#conflict-copy")
    expect(banner).to_contain_text("Conflict copy")
    banner.locator("a.other-copy").click()
    page.wait_for_url(f"**/notes/{copy.id}")
    expect(page.locator("article.note .body")).to_contain_text("on Thursdays")
    page.locator("#conflict-copy a.other-copy").click()
    page.wait_for_url(f"**/notes/{original.id}")
    expect(page.locator("article.note .body")).to_contain_text("on Wednesdays")

    page.goto(dashboard.base)
    expect(page.locator("#status-line")).to_contain_text("1 conflict kept both ways")
    page.locator("#status-line").click()
    page.wait_for_url("**/status")
    page.locator(f'.conflict-pair a[href="/notes/{copy.id}"]').click()
    page.wait_for_url(f"**/notes/{copy.id}")


@pytest.mark.browser
def test_the_list_pages_both_ways_with_counts_and_clears_filters(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    for n in range(120):
        store.write(type="episodic", title=f"session {n:03d}", body="x",
                    project="api" if n % 2 else "web")  # fmt: skip
    sign_in(page, dashboard)
    expect(page.locator("#status-line")).to_contain_text("120 notes")
    pager = page.locator("nav.pager").first
    expect(pager).to_contain_text("notes 1–50 of 120")
    assert page.locator("a.clear-filters").count() == 0  # nothing to clear yet
    pager.locator("a[rel=next]").click()
    expect(page.locator("nav.pager").first).to_contain_text("notes 51–100 of 120")
    page.locator("nav.pager").last.locator("a[rel=next]").click()  # the bottom one too
    expect(page.locator("nav.pager").first).to_contain_text("notes 101–120 of 120")
    assert page.locator("nav.pager a[rel=next]").count() == 0  # the oldest page
    page.locator("nav.pager").first.locator("a[rel=prev]").click()
    expect(page.locator("nav.pager").first).to_contain_text("notes 51–100 of 120")
    page.locator("nav.pager").first.locator("a[rel=prev]").click()
    expect(page.locator("nav.pager").first).to_contain_text("notes 1–50 of 120")
    assert page.locator("nav.pager a[rel=prev]").count() == 0  # the newest page

    with page.expect_response(lambda r: "project=api" in r.url and r.status == 200):
        page.select_option("form.filters select[name=project]", "api")
    expect(page.locator("#results .summary")).to_contain_text("60 of 120 notes match")
    expect(page.locator("nav.pager").first).to_contain_text("notes 1–50 of 60")
    page.locator("a.clear-filters").click()
    page.wait_for_url(dashboard.base)
    expect(page.locator("nav.pager").first).to_contain_text("notes 1–50 of 120")
    expect(page.locator("form.filters select[name=project]")).to_have_value("")
