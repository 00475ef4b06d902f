"""The dashboard in a real browser (headless Chromium through Playwright): what the HTTP
tests cannot see. htmx swapping the results, the CSP holding with real script, the edit
form's round trip and its 409, the cookie the start link sets, and that the page never
calls anywhere but its own server.

The browser fixtures are tests-support's (``anamnesis_testsupport.browser``: the system's
Chromium launched by path, or a skip that says how to get one). The ``dashboard`` nox session
runs them; the ``tests`` session leaves them out (``-m "not browser"``).
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.browser import browser as browser
from anamnesis_testsupport.browser import context as context
from anamnesis_testsupport.browser import page as page
from anamnesis_testsupport.browser import sign_in
from anamnesis_testsupport.dashboard_server import DashboardProcess
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Dialog,
    Page,
    Request,
    expect,
)

from anamnesis.store import MemoryStore
from anamnesis.sync import GitSyncBackend

pytestmark = pytest.mark.browser

MACHINE = "laptop"  # conftest's machine id: the dashboard's and the commits' author
XSS_TITLE = "<script>window.__xss=1</script>"
XSS_IMG = '<img src=x onerror="window.__xss=2">'
XSS_LINK = "[x](javascript:window.__xss=3)"


def pin_time(store: MemoryStore, note_id: str, day: int) -> None:
    """Give a note its own ``updated_at`` (the list orders by it, to the second)."""
    store.update(note_id, updated_at=f"2026-01-{day:02d}T12:00:00+00:00")


def titles(page: Page, selector: str) -> list[str]:
    return [text.strip() for text in page.locator(selector).all_inner_texts()]


def test_list_filter_search_and_open_a_note(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    oldest = store.write(type="semantic", title="Postgres pool size", body="use 20", project="api")
    middle = store.write(type="episodic", title="Fixed the deploy", body="retry it", project="web")
    newest = store.write(
        type="procedural", title="Redis eviction", body="allkeys-lru policy", project="api"
    )
    for day, note in enumerate((oldest, middle, newest), start=1):
        pin_time(store, note.id, day)
    sign_in(page, dashboard)
    assert titles(page, "#results a.title") == [newest.title, middle.title, oldest.title]

    with page.expect_response(lambda r: "project=api" in r.url and r.status == 200):
        page.select_option("form.filters select[name=project]", "api")
    expect(page.locator("#results a.title")).to_have_count(2)
    assert titles(page, "#results a.title") == [newest.title, oldest.title]
    assert "project=api" in page.url  # hx-push-url: the filtered list can be bookmarked

    page.goto(dashboard.base + "search")
    with page.expect_response(lambda r: "/search?" in r.url and r.status == 200):
        page.fill("form.search input[name=q]", "allkeys-lru")
        page.press("form.search input[name=q]", "Enter")
    hits = page.locator("#hits li.note-row")
    expect(hits).to_have_count(1)
    expect(page.locator("#hits .mode")).to_have_text("keyword")
    expect(hits.locator(".score")).to_have_text("1.00")  # relative to the best hit: the one hit
    hits.locator("a.title").click()
    page.wait_for_url(f"**/notes/{newest.id}")
    expect(page.locator("article.note h1")).to_have_text(newest.title)
    expect(page.locator("article.note .body")).to_contain_text("allkeys-lru policy")


def test_edit_save_and_see_the_new_version_in_history(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(
        type="semantic", title="Pool size", body="first line\nuse 20 connections\n", project="api"
    )
    git = GitSyncBackend(store.memory_dir, remote=None, machine_id=MACHINE)
    before = git.commit_local("the note as written")
    sign_in(page, dashboard)

    page.goto(f"{dashboard.base}notes/{note.id}/edit")
    editor = page.locator("textarea[name=body]")
    text = editor.input_value()
    assert "use 20 connections" in text
    editor.fill(text.replace("use 20 connections", "use 40 connections"))
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("#save")
    assert answer.value.status == 303, answer.value.text()
    page.wait_for_url(f"**/notes/{note.id}?saved=1")
    expect(page.locator("p.notice[role=status]")).to_contain_text("Saved")
    expect(page.locator("article.note .body")).to_contain_text("use 40 connections")
    assert "use 40 connections" in store.get(note.id).body

    after = git.commit_local("the edit from the dashboard")
    assert before and after and before != after
    page.goto(f"{dashboard.base}notes/{note.id}/history")
    expect(page.locator("table.versions tr.version")).to_have_count(2)
    commits = titles(page, "table.versions tr.version td code")
    assert commits == [after, before]  # newest first
    added = titles(page, "#diff-view .d-add")
    removed = titles(page, "#diff-view .d-del")
    assert any("use 40 connections" in line for line in added), added
    assert any("use 20 connections" in line for line in removed), removed


def test_a_save_over_a_changed_file_is_a_409_that_keeps_both_texts(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(type="semantic", title="Ports", body="api listens on 8000", project="api")
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}notes/{note.id}/edit")
    editor = page.locator("textarea[name=body]")
    mine = editor.input_value().replace("api listens on 8000", "api listens on 9000")
    editor.fill(mine)

    store.update(note.id, body="api listens on 7000 (changed on disk)")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("#save")
    assert answer.value.status == 409, answer.value.text()
    expect(page.locator("#conflict")).to_be_visible()
    assert editor.input_value() == mine  # the browser's text survives the refusal
    expect(page.locator("#theirs")).to_contain_text("api listens on 7000 (changed on disk)")
    assert store.get(note.id).body == "api listens on 7000 (changed on disk)"  # nothing saved

    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("#save")  # saving again, knowingly: the browser's text replaces the file
    assert answer.value.status == 303
    page.wait_for_url(f"**/notes/{note.id}?saved=1")
    assert store.get(note.id).body == "api listens on 9000"
    assert "api listens on 9000" in store.file_of(note.id).read_text(encoding="utf-8")


def test_a_hostile_note_renders_inert(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    evil = store.write(
        type="semantic", title=XSS_TITLE, body=f"{XSS_IMG}\n\n{XSS_LINK}\n", project="p"
    )
    sign_in(page, dashboard)
    assert page.evaluate("window.__xss") is None
    row = page.locator("#results a.title")
    expect(row).to_have_text(XSS_TITLE)  # shown as text, not parsed as markup
    assert page.locator("#results script").count() == 0

    page.goto(f"{dashboard.base}notes/{evil.id}")
    assert page.evaluate("window.__xss") is None
    expect(page.locator("article.note h1")).to_have_text(XSS_TITLE)
    body = page.locator("article.note .body")
    expect(body).to_contain_text(XSS_IMG)
    expect(body).to_contain_text(XSS_LINK)
    assert body.locator("script, img, iframe, [onerror]").count() == 0
    assert page.locator('a[href^="javascript:" i]').count() == 0
    assert page.locator("script:not([src])").count() == 0  # no inline script anywhere

    page.goto(f"{dashboard.base}notes/{evil.id}/edit")
    assert page.evaluate("window.__xss") is None
    source = page.locator("textarea[name=body]").input_value()
    assert XSS_IMG in source and XSS_LINK in source
    assert page.locator("main script, main img").count() == 0


def test_refusals_without_session_from_other_hosts_and_origins(
    store: MemoryStore, dashboard: DashboardProcess, browser: Browser, page: Page
) -> None:
    note = store.write(type="semantic", title="Guarded", body="keep me", project="p")
    sign_in(page, dashboard)

    stranger = browser.new_context()
    try:
        other = stranger.new_page()
        answer = other.goto(dashboard.base)
        assert answer is not None and answer.status == 403  # no cookie, no page
        answer = other.goto(dashboard.link)
        assert answer is not None and answer.status == 403  # the start link is spent
        assert not stranger.cookies()
    finally:
        stranger.close()

    # DNS rebinding: a page under another name reaching this port. (httpx: a browser
    # sets Host itself and will not be told otherwise.)
    with httpx.Client(timeout=10) as raw:
        answer_host = raw.get(dashboard.base, headers={"Host": f"evil.example:{dashboard.port}"})
    assert answer_host.status_code == 421

    # A cross-site form post carrying the session and the right CSRF token: the Origin alone
    # refuses it. The same post from our own origin goes through, so the rest was right.
    page.goto(f"{dashboard.base}notes/{note.id}/edit?raw=1")
    source = page.locator("textarea[name=source]").input_value()
    form: dict[str, str | float | bool] = {
        "csrf": page.locator("input[name=csrf]").first.input_value(),
        "digest": page.locator("input[name=digest]").input_value(),
        "source": source.replace("keep me", "overwritten"),
    }
    target = f"{dashboard.base}notes/{note.id}"
    refused = page.request.post(
        target, form=form, headers={"Origin": "http://evil.example"}, max_redirects=0
    )
    assert refused.status == 403
    assert store.get(note.id).body == "keep me"
    accepted = page.request.post(
        target, form=form, headers={"Origin": dashboard.origin}, max_redirects=0
    )
    assert accepted.status == 303
    assert store.get(note.id).body == "overwritten"


def test_no_request_leaves_the_dashboard_and_the_csp_holds(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(
        type="semantic", title="Local only", body="# Heading\n\n- item\n", project="p"
    )
    GitSyncBackend(store.memory_dir, remote=None, machine_id=MACHINE).commit_local("first")
    requested: list[str] = []
    errors: list[str] = []

    def on_request(request: Request) -> None:
        requested.append(request.url)

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error":
            errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("request", on_request)
    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))

    sign_in(page, dashboard)
    # The list loads its status line with htmx: wait for it, so its request is counted.
    expect(page.locator("#status-line[data-checked]")).to_be_visible()
    for path in (
        "search?q=local",
        f"notes/{note.id}",
        f"notes/{note.id}/edit",
        f"notes/{note.id}/history",
        "fleet",
        "status",
    ):
        answer = page.goto(dashboard.base + path)
        assert answer is not None and answer.status == 200, path
        page.wait_for_load_state("load")

    assert any(url.endswith("/static/htmx.min.js") for url in requested)
    assert any("/status?line=1" in url for url in requested)  # htmx ran
    foreign = [url for url in requested if not url.startswith(dashboard.base)]
    assert not foreign, foreign
    csp = [text for text in errors if "content security policy" in text.lower()]
    assert not csp, csp
    assert not errors, errors


# --- dash-edit: the edit page's form, preview and unsaved-changes warning; the merge page ---

THEIR_BODY = "api listens on 7000\n\nchanged on the desktop, meanwhile"
MY_BODY = "api listens on 9000\n\n- [ ] tell the web team"


def console_errors(page: Page) -> list[str]:
    """Every console error and uncaught exception the page reports from now on, but the
    browser's note of a page's own refusal status (the merge page is a 409, a refused
    save a 422: the status is the answer, not a fault of the page)."""
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        own_status = re.fullmatch(
            r"Failed to load resource: the server responded with a status of 4(09|22) \(.+\)",
            message.text,
        ) and "/notes/" in str(message.location.get("url"))
        if message.type == "error" and not own_status:
            errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    return errors


def edit_then_conflict(store: MemoryStore, dashboard: DashboardProcess, page: Page) -> str:
    """Open a note's edit page, type an edit, let the file change meanwhile (as a sync or
    another tab would) and save: the merge page. Returns the note's id."""
    note = store.write(type="semantic", title="Ports", body="api listens on 8000", project="api")
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}notes/{note.id}/edit")
    page.fill("textarea[name=body]", MY_BODY)
    page.fill("input[name=title]", "Ports (mine)")
    store.update(note.id, title="Ports (desktop)", body=THEIR_BODY)
    # The save's answer, not a preview's (typing posts one 400 ms later: it may land now).
    with page.expect_response(
        lambda r: r.request.method == "POST" and "/preview" not in r.url
    ) as answer:
        page.click("#save")
    assert answer.value.status == 409
    page.wait_for_load_state("load")
    return note.id


def test_the_merge_page_sets_both_versions_side_by_side_and_takes_theirs(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    page.set_viewport_size({"width": 1280, "height": 900})
    errors = console_errors(page)
    note_id = edit_then_conflict(store, dashboard, page)
    expect(page.locator("#conflict")).to_be_visible()
    editor = page.locator("#merge-editor textarea[name=body]")
    theirs = page.locator("#theirs")
    mine_box, theirs_box = editor.bounding_box(), theirs.bounding_box()
    assert mine_box and theirs_box
    assert mine_box["width"] >= 500 and theirs_box["width"] >= 500, (mine_box, theirs_box)
    assert theirs_box["x"] >= mine_box["x"] + mine_box["width"]  # side by side
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    assert editor.input_value() == MY_BODY  # my edit, in the editor
    expect(theirs).to_contain_text("changed on the desktop, meanwhile")
    removed = titles(page, ".merge-diff .d-del")
    added = titles(page, ".merge-diff .d-add")
    assert any("api listens on 7000" in line for line in removed), removed
    assert any("api listens on 9000" in line for line in added), added

    page.click("#take-theirs")
    assert editor.input_value() == THEIR_BODY
    assert page.input_value("#merge-editor input[name=title]") == "Ports (desktop)"
    expect(page.locator("#mine-sent")).to_contain_text("tell the web team")  # still here
    page.click("#keep-mine")
    assert editor.input_value() == MY_BODY
    assert page.input_value("#merge-editor input[name=title]") == "Ports (mine)"

    page.click("#take-theirs")
    editor.fill(THEIR_BODY + "\n\nmerged: 9000 from now on")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("#save")
    assert answer.value.status == 303
    page.wait_for_url(f"**/notes/{note_id}?saved=1")
    saved = store.get(note_id)
    assert saved.title == "Ports (desktop)" and saved.body.endswith("merged: 9000 from now on")
    csp = [text for text in errors if "content security policy" in text.lower()]
    assert not csp and not errors, errors


def test_the_merge_page_stacks_at_phone_width(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    errors = console_errors(page)
    edit_then_conflict(store, dashboard, page)
    editor = page.locator("#merge-editor textarea[name=body]").bounding_box()
    theirs = page.locator("#theirs").bounding_box()
    assert editor and theirs
    assert theirs["y"] > editor["y"] + editor["height"]  # below it, not squeezed beside it
    assert editor["width"] >= 300 and theirs["width"] >= 300, (editor, theirs)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors, errors


def test_the_form_saves_every_field_and_previews_the_body(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(
        type="semantic", title="Pool size", body="use 20", project="api", tags=["db"]
    )
    errors = console_errors(page)
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}notes/{note.id}/edit")
    expect(page.locator("#preview")).to_contain_text("use 20")
    family = page.eval_on_selector("textarea[name=body]", "e => getComputedStyle(e).fontFamily")
    assert "monospace" in family, family

    page.fill("input[name=title]", "Pool size for the API")
    page.select_option("select[name=type]", "procedural")
    page.select_option("select[name=scope]", "machine-local")
    page.fill("input[name=project]", "api-v2")
    page.fill("input[name=tags]", "db, tuning")
    with page.expect_response(lambda r: r.url.endswith("/preview") and r.status == 200):
        page.fill("textarea[name=body]", "use **40**\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    expect(page.locator("#preview strong")).to_have_text("40")  # the server's rendering
    expect(page.locator("#preview table td").first).to_have_text("1")

    with page.expect_response(lambda r: r.request.method == "POST" and "/preview" not in r.url):
        page.click("#save")
    page.wait_for_url(f"**/notes/{note.id}?saved=1")
    expect(page.locator("article.note h1")).to_have_text("Pool size for the API")
    saved = store.get(note.id)
    assert (saved.type, saved.scope, saved.project, saved.tags) == (
        "procedural", "machine-local", "api-v2", ["db", "tuning"],
    )  # fmt: skip
    assert saved.body == "use **40**\n\n| a | b |\n|---|---|\n| 1 | 2 |"

    page.goto(f"{dashboard.base}notes/{note.id}/edit")  # and back into the form, as saved
    assert page.input_value("input[name=title]") == "Pool size for the API"
    assert page.input_value("select[name=type]") == "procedural"
    assert page.input_value("select[name=scope]") == "machine-local"
    assert page.input_value("input[name=tags]") == "db, tuning"
    assert page.input_value("textarea[name=body]") == saved.body
    assert not errors, errors


def test_valid_until_set_through_the_form_retires_the_note_from_list_and_search(
    store: MemoryStore, dashboard: DashboardProcess, page: Page, tmp_path: Path
) -> None:
    freeze = store.write(type="semantic", title="Code freeze", body="no deploys this week",
                         project="api", review_after="2020-06-01")  # fmt: skip
    store.write(type="semantic", title="Deploy days", body="deploys on tuesdays", project="api")
    errors = console_errors(page)
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}notes/{freeze.id}")
    expect(page.locator("p.notice.due")).to_contain_text("Due for review since 2020-06-01")

    page.goto(f"{dashboard.base}notes/{freeze.id}/edit")
    assert page.get_attribute("input[name=valid_until]", "type") == "date"
    page.fill("input[name=valid_until]", "2020-01-31")  # the date picker's value
    page.screenshot(path=str(tmp_path / "edit-form.png"), full_page=True)
    with page.expect_response(lambda r: r.request.method == "POST" and "/preview" not in r.url):
        page.click("#save")
    page.wait_for_url(f"**/notes/{freeze.id}?saved=1")
    expect(page.locator("p.notice.expired")).to_contain_text("Expired: it held until 2020-01-31")
    expect(page.locator("p.notice.due")).to_have_count(0)  # the edit was a person's review
    page.screenshot(path=str(tmp_path / "note-expired.png"), full_page=True)
    saved = store.get(freeze.id)
    assert saved.valid_until == "2020-01-31" and saved.reviewed_at

    page.goto(dashboard.base)
    assert titles(page, "#results a.title") == ["Deploy days"]
    with page.expect_response(lambda r: "expired=1" in r.url and r.status == 200):
        page.check("form.filters input[name=expired]")
    expect(page.locator("#results a.title")).to_have_count(2)
    row = page.locator("#results li.note-row.expired")
    expect(row.locator("a.title")).to_have_text("Code freeze")
    expect(row.locator(".badge")).to_have_text("expired")
    page.screenshot(path=str(tmp_path / "list-expired.png"), full_page=True)

    page.goto(dashboard.base + "search?q=deploys&mode=keyword")
    expect(page.locator("#hits a.title")).to_have_text(["Deploy days"])
    with page.expect_response(lambda r: "expired=1" in r.url and r.status == 200):
        page.check("form.search input[name=expired]")
        page.press("form.search input[name=q]", "Enter")
    expect(page.locator("#hits li.note-row")).to_have_count(2)
    expect(page.locator("#hits li.note-row.expired .badge")).to_have_text("expired")
    assert not errors, errors


def test_an_empty_body_is_refused_with_a_message(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    errors = console_errors(page)
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}notes/{note.id}/edit")
    page.fill("input[name=title]", "Typed title")
    page.fill("textarea[name=body]", "   \n")
    with page.expect_response(lambda r: r.request.method == "POST" and "/preview" not in r.url):
        page.click("#save")
    expect(page.locator("#problem")).to_have_text("Not saved: the note's body is empty")
    assert page.input_value("input[name=title]") == "Typed title"  # what was typed stays
    assert store.get(note.id).body == "use 20"
    assert not errors, errors


def test_leaving_with_unsaved_changes_asks_first(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(type="semantic", title="Pool size", body="use 20", project="api")
    asked: list[str] = []

    def stay(dialog: Dialog) -> None:
        asked.append(dialog.type)
        dialog.dismiss()  # "stay on this page"

    page.on("dialog", stay)
    sign_in(page, dashboard)
    edit = f"{dashboard.base}notes/{note.id}/edit"
    page.goto(edit)
    page.click("#raw-link")  # nothing typed: no question
    page.wait_for_url("**/edit?raw=1")
    assert asked == []

    page.goto(edit)
    page.click("textarea[name=body]")
    page.keyboard.type(" and 5 more")  # typed as a person types (the browser asks only then)
    with page.expect_event("dialog") as question:
        page.click("a:text('Cancel')", no_wait_after=True)
    assert question.value.type == "beforeunload" and asked == ["beforeunload"]
    assert page.url == edit  # stayed, the text still there
    assert page.input_value("textarea[name=body]") == "use 20 and 5 more"

    with page.expect_response(lambda r: r.request.method == "POST" and "/preview" not in r.url):
        page.click("#save")  # saving is leaving on purpose: no question
    page.wait_for_url(f"**/notes/{note.id}?saved=1")
    assert asked == ["beforeunload"]
    assert store.get(note.id).body == "use 20 and 5 more"


# --- dash-render: markdown without inline styles; restoring an old version ---

RICH_BODY = """## Pool

| setting | before | after |
|:--------|-------:|:-----:|
| pool_size | 20 | 40 |

- [x] raise the pool size
- [ ] watch p99 for a week

> keep the sum under Postgres' 100

```python
def pool(workers: int) -> int:
    return min(2 * workers, 40)  # capped
```
"""


def test_a_note_with_an_aligned_table_tasks_and_code_shows_no_console_or_csp_error(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(type="semantic", title="Pool size", body=RICH_BODY, project="api")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    sign_in(page, dashboard)
    answer = page.goto(f"{dashboard.base}notes/{note.id}")
    assert answer is not None and answer.status == 200
    page.wait_for_load_state("load")
    body = page.locator("article.note .body")

    def computed(selector: str, prop: str) -> str:
        value = body.locator(selector).first.evaluate(
            f"e => getComputedStyle(e).getPropertyValue('{prop}')"
        )
        return str(value)

    # The alignment arrives, as a class the stylesheet styles (an inline style would be
    # refused by the CSP and logged as an error).
    assert computed("td.align-right", "text-align") == "right"
    assert computed("td.align-center", "text-align") == "center"
    boxes = body.locator("li.task input[type=checkbox]")
    expect(boxes).to_have_count(2)
    assert boxes.nth(0).is_checked() and boxes.nth(0).is_disabled()
    assert not boxes.nth(1).is_checked()
    expect(body).not_to_contain_text("[x]")
    assert computed("blockquote", "border-left-style") == "solid"
    keyword = computed("pre.highlight .k", "color")
    plain = computed("pre.highlight .n", "color")
    assert keyword != plain  # highlight.css loaded and coloured the keyword
    assert page.locator("[style]").count() == 0
    assert not errors, errors


def test_restore_of_an_old_version_visible_in_history(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    note = store.write(type="semantic", title="Ports", body="api listens on 8000", project="api")
    git = GitSyncBackend(store.memory_dir, remote=None, machine_id=MACHINE)
    first = git.commit_local("the first port")
    store.update(note.id, body="api listens on 9000")
    git.commit_local("moved the port")
    sign_in(page, dashboard)

    page.goto(f"{dashboard.base}notes/{note.id}/history")
    expect(page.locator("table.versions tr.version")).to_have_count(2)
    page.locator(f"table.versions a.commit:has-text('{first}')").click()
    page.wait_for_url(f"**/notes/{note.id}/versions/*")
    expect(page.locator("article.note .body")).to_have_text("api listens on 8000")
    page.click("a.restore")
    page.wait_for_url("**/restore")
    expect(page.locator("#diff-view .d-add", has_text="api listens on 8000")).to_have_count(1)
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.click("#restore")
    assert answer.value.status == 303
    page.wait_for_url(f"**/notes/{note.id}/history?restored={first}")
    expect(page.locator("#restored")).to_contain_text(f"Restored version {first}")
    working = page.locator("table.versions tr.working")
    expect(working).to_contain_text(f"restores {first}")
    expect(page.locator("#diff-view .d-add", has_text="api listens on 8000")).to_have_count(1)
    expect(page.locator("#diff-view .d-del", has_text="api listens on 9000")).to_have_count(1)
    assert store.get(note.id).body == "api listens on 8000"
    assert "api listens on 8000" in store.file_of(note.id).read_text(encoding="utf-8")
