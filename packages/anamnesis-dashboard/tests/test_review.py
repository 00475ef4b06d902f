"""The review page: contradiction candidates side by side (each side's provenance, the
values that differ), the notes due for review, and the actions that resolve them, each a
POST the guard checks like every other, redirecting back with what it did. A form about
notes that changed since the page was drawn writes nothing and says why.

A real dashboard process over a real store, read over HTTP as a browser would: the forms
are posted with the fields the page drew (parsed from its HTML). The tests marked
``browser`` click through the page in headless Chromium (see test_browser.py).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from anamnesis_testsupport.browser import browser as browser
from anamnesis_testsupport.browser import context as context
from anamnesis_testsupport.browser import page as page
from anamnesis_testsupport.browser import sign_in
from anamnesis_testsupport.dashboard_server import DashboardProcess
from playwright.sync_api import Page, expect

from anamnesis.store import Memory, MemoryStore, is_due

PHONE_WIDTH = 400
LONG_AGO = "2025-01-01"  # a review date every test runs after
FAR_OFF = "2099-06-30"


def dated(store: MemoryStore, note: Memory, day: int) -> Memory:
    """Give a note its own creation day (which of two notes is the newer one)."""
    stamp = f"2026-01-{day:02d}T12:00:00+00:00"
    return store.update(note.id, created_at=stamp, updated_at=stamp)


@dataclass
class Pair:
    older: Memory
    newer: Memory

    @property
    def anchor(self) -> str:
        return f"pair-{self.older.id}-{self.newer.id}"


def port_pair(store: MemoryStore, project: str = "web") -> Pair:
    """Two notes about the dev server's port, the older one captured on another machine
    by an agent, the newer one typed by a person."""
    older = store.write(
        type="semantic", title="Dev server port", project=project,
        body="The dev server listens on port 3000 when started with `npm run dev`.",
        prov_source="session-end", prov_agent="claude-code", prov_session="s-1",
        machine_id="desktop",
    )  # fmt: skip
    newer = store.write(
        type="semantic", title="Dev server port", project=project, machine_id="laptop",
        body="The dev server listens on port 5173 when started with `npm run dev`.",
    )  # fmt: skip
    return Pair(dated(store, older, 1), dated(store, newer, 2))


def pool_pair(store: MemoryStore, project: str = "api") -> Pair:
    older = store.write(
        type="procedural", title="Postgres pool size", project=project,
        body="Set the Postgres pool size to 20 connections in config/db.yaml.",
    )  # fmt: skip
    newer = store.write(
        type="procedural", title="Postgres pool size", project=project,
        body="Set the Postgres pool size to 40 connections in config/db.yaml.",
        prov_source="reflection",
    )  # fmt: skip
    return Pair(dated(store, older, 3), dated(store, newer, 4))


def due_note(store: MemoryStore, title: str = "Rotate the staging certificate") -> Memory:
    return store.write(
        type="semantic", title=title, project="ops", review_after=LONG_AGO,
        body="The staging TLS certificate is rotated by hand each spring.",
    )  # fmt: skip


@dataclass
class Form:
    action: str
    fields: dict[str, str] = field(default_factory=dict)
    buttons: list[tuple[str, str, str]] = field(default_factory=list)  # name, value, text

    def pressing(self, text: str, **typed: str) -> dict[str, str]:
        """The fields a browser sends when the button reading ``text`` is pressed."""
        data = {**self.fields, **typed}
        for name, value, label in self.buttons:
            if label == text and name:
                data[name] = value
        return data


class _Forms(HTMLParser):
    """Each POST form of a page, with the id of the element around it that has one."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[list[str], Form]] = []
        self._ids: list[str] = []
        self._form: Form | None = None
        self._button: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {key: value or "" for key, value in attrs}
        if tag in ("article", "li", "section") and found.get("id"):
            self._ids.append(found["id"])
        if tag == "form" and found.get("method") == "post":
            self._form = Form(found["action"])
            self.forms.append((list(self._ids), self._form))
        elif self._form is not None and tag == "input" and found.get("type") == "hidden":
            self._form.fields[found["name"]] = found.get("value", "")
        elif self._form is not None and tag == "button":
            self._button = [found.get("name", ""), found.get("value", ""), ""]

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button[2] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "button" and self._form is not None and self._button is not None:
            name, value, text = self._button
            self._form.buttons.append((name, value, text.strip()))
            self._button = None
        elif tag == "form":
            self._form = None


def form_in(page_html: str, within: str, action: str, nth: int = 0) -> Form:
    """The ``nth`` form posting to ``action`` inside the element with id ``within``."""
    parser = _Forms()
    parser.feed(page_html)
    found = [form for ids, form in parser.forms if within in ids and form.action == action]
    assert len(found) > nth, f"no form {action} in #{within}"
    return found[nth]


def edit_form(page_html: str) -> tuple[str, dict[str, str]]:
    """The edit page's form: where it posts, and its hidden fields (csrf, digest)."""
    action = re.search(r'<form method="post" action="([^"]+)" class="edit-form', page_html)
    assert action is not None
    hidden = re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">', page_html)
    return html.unescape(action.group(1)), dict(hidden)


def text_of(answer: httpx.Response) -> str:
    """The page's text, tags dropped (a block's as a space), entities read: what a person
    reads."""
    inline = re.sub(r"</?(?:a|span|del|ins|mark|strong|code|time)\b[^>]*>", "", answer.text)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", inline)).split())


def review(client: httpx.Client, query: str = "") -> httpx.Response:
    answer = client.get("/review" + query)
    assert answer.status_code == 200, answer.text
    return answer


def test_pairs_side_by_side_with_what_differs_and_where_each_came_from(
    store: MemoryStore, client: httpx.Client
) -> None:
    pair = port_pair(store)
    due = due_note(store)
    answer = review(client)
    page_html = answer.text
    assert f'id="{pair.anchor}"' in page_html  # older first, newer second
    article = page_html[page_html.index(f'id="{pair.anchor}"') :]
    article = article[: article.index("</article>")]
    older_side, newer_side = article.split('<section class="side ')[1:]
    # The differing values, highlighted: the old one in the older note, the new in the newer.
    assert re.search(r'<del class="old"[^>]*>3000</del>', article)
    assert re.search(r'<ins class="new"[^>]*>5173</ins>', article)
    assert "<mark>3000</mark>" in older_side and "<mark>5173</mark>" in newer_side
    # Both titles link to their notes; each side says where it came from.
    assert f'href="/notes/{pair.older.id}"' in older_side
    assert f'href="/notes/{pair.newer.id}"' in newer_side
    assert older_side.startswith("older") and newer_side.startswith("newer")
    assert "captured (claude-code)" in older_side and "desktop" in older_side
    assert "unconfirmed" in older_side  # a model wrote it, no person kept it
    assert "unconfirmed" not in newer_side and ">you<" in newer_side
    assert "laptop" in newer_side and "(this one)" in newer_side
    assert "2026-01-01 12:00" in older_side and "2026-01-02 12:00" in newer_side
    for side in (older_side, newer_side):
        assert "Keep this one" in side and "/edit?back=/review" in side
    assert "Both are right" in article
    # The due note: its title, project, when it was due, and its buttons.
    due_item = page_html[page_html.index(f'id="due-{due.id}"') :]
    due_item = due_item[: due_item.index("</li>")]
    assert due.title in due_item and "ops" in due_item and f"due {LONG_AGO}" in due_item
    assert "Still true" in due_item and f"/notes/{due.id}/edit?back=/review" in due_item
    assert 'aria-current="page">Review</a>' in page_html  # the nav says where we are


def test_keep_this_one_supersedes_the_other_never_deletes_it(
    store: MemoryStore, client: httpx.Client
) -> None:
    pair = port_pair(store)
    other = pool_pair(store)
    form = form_in(review(client).text, pair.anchor, "/review/keep", nth=1)  # the newer side
    answer = client.post("/review/keep", data=form.pressing("Keep this one"))
    assert answer.status_code == 303
    target = urlsplit(answer.headers["location"])
    assert target.path == "/review"
    assert parse_qs(target.query) == {
        "done": ["kept"], "note": [pair.newer.id], "over": [pair.older.id]
    }  # fmt: skip
    assert store.supersede_chain(pair.older.id).newer == (pair.newer.id,)
    assert store.get(pair.older.id).body == pair.older.body  # still there, superseded
    assert store.get(pair.newer.id).reviewed_at  # a person kept it
    after = client.get(answer.headers["location"])
    shown = text_of(after)
    assert f"Kept “{pair.newer.title}”; “{pair.older.title}” is now superseded by it" in shown
    assert pair.anchor not in after.text and other.anchor in after.text
    assert "Possible contradictions (1)" in shown


def test_keep_the_older_one(store: MemoryStore, client: httpx.Client) -> None:
    pair = port_pair(store)
    form = form_in(review(client).text, pair.anchor, "/review/keep", nth=0)
    assert client.post("/review/keep", data=form.pressing("Keep this one")).status_code == 303
    assert store.supersede_chain(pair.newer.id).newer == (pair.older.id,)
    assert pair.anchor not in review(client).text


def test_both_are_right_is_remembered_on_both_notes(
    store: MemoryStore, client: httpx.Client
) -> None:
    pair = port_pair(store)
    form = form_in(review(client).text, pair.anchor, "/review/both")
    answer = client.post("/review/both", data=form.pressing("Both are right"))
    assert answer.status_code == 303
    assert pair.newer.id in store.get(pair.older.id).compatible_with
    assert pair.older.id in store.get(pair.newer.id).compatible_with
    assert not store.supersede_chain(pair.older.id).newer  # neither superseded
    after = client.get(answer.headers["location"])
    shown = text_of(after)
    assert "Both right:" in shown and "will not be proposed as a pair again" in shown
    assert pair.anchor not in after.text
    assert "Nothing to review" in shown  # the one pair resolved, nothing due


def test_still_true_moves_the_review_date_or_leaves_it_to_the_store(
    store: MemoryStore, client: httpx.Client
) -> None:
    dated_note = due_note(store, "Rotate the staging certificate")
    plain_note = due_note(store, "Renew the domain")
    page_html = review(client).text
    form = form_in(page_html, f"due-{dated_note.id}", "/review/reviewed")
    answer = client.post("/review/reviewed", data=form.pressing("Still true", next=FAR_OFF))
    assert answer.status_code == 303
    kept = store.get(dated_note.id)
    assert kept.review_after == FAR_OFF and kept.reviewed_at
    shown = text_of(client.get(answer.headers["location"]))
    assert f"Confirmed “{dated_note.title}” as still true; next review {FAR_OFF}" in shown
    assert f"due-{dated_note.id}" not in shown

    form = form_in(review(client).text, f"due-{plain_note.id}", "/review/reviewed")
    answer = client.post("/review/reviewed", data=form.pressing("Still true"))
    assert answer.status_code == 303
    assert store.get(plain_note.id).reviewed_at
    after = client.get(answer.headers["location"])
    assert f'id="due-{plain_note.id}"' not in after.text
    assert "Nothing to review" in text_of(after)


def test_a_next_review_in_the_past_or_no_date_is_refused(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = due_note(store)
    form = form_in(review(client).text, f"due-{note.id}", "/review/reviewed")
    for typed, says in (("2020-05-01", "must be after today"), ("soon", "neither a date")):
        answer = client.post("/review/reviewed", data=form.pressing("Still true", next=typed))
        assert answer.status_code == 400, typed
        assert says in text_of(answer) and "Nothing was changed" in text_of(answer)
        assert f'id="due-{note.id}"' in answer.text  # the page as it is, the note still due
    assert store.get(note.id).reviewed_at == ""


def test_a_stale_form_writes_nothing_and_says_why(store: MemoryStore, client: httpx.Client) -> None:
    pair = port_pair(store)
    due = due_note(store)
    page_html = review(client).text
    keep = form_in(page_html, pair.anchor, "/review/keep", nth=1).pressing("Keep this one")
    both = form_in(page_html, pair.anchor, "/review/both").pressing("Both are right")
    still = form_in(page_html, f"due-{due.id}", "/review/reviewed").pressing("Still true")

    # The older note edited elsewhere after the page was drawn.
    store.update(pair.older.id, body="The dev server listens on port 3001 now.")
    answer = client.post("/review/keep", data=keep)
    assert answer.status_code == 409
    assert f"“{pair.older.title}” changed since the page was shown" in text_of(answer)
    assert not store.supersede_chain(pair.older.id).newer
    assert 'id="stale"' in answer.text and "Possible contradictions" in answer.text

    # Resolved meanwhile (another tab, the CLI, another machine): the second click finds it.
    fresh = form_in(review(client).text, pair.anchor, "/review/keep", nth=1)
    assert client.post("/review/keep", data=fresh.pressing("Keep this one")).status_code == 303
    answer = client.post("/review/both", data=fresh.pressing("Both are right"))
    assert answer.status_code == 409
    assert "is already superseded by" in text_of(answer)
    assert store.get(pair.older.id).compatible_with == []
    assert client.post("/review/both", data=both).status_code == 409

    # A due note confirmed meanwhile, then one deleted.
    store.update(due.id, reviewed_at="2099-01-01T00:00:00+00:00")
    answer = client.post("/review/reviewed", data=still)
    assert answer.status_code == 409 and "is not due for review any more" in text_of(answer)
    store.update(due.id, reviewed_at="", title="Rotate the staging certificate now")
    answer = client.post("/review/reviewed", data=still)
    assert answer.status_code == 409 and "changed since the page was shown" in text_of(answer)
    store.delete(due.id)
    answer = client.post("/review/reviewed", data=still)
    assert answer.status_code == 409 and "no longer in the store" in text_of(answer)


def test_a_pair_already_both_right_is_not_resolved_twice(
    store: MemoryStore, client: httpx.Client
) -> None:
    pair = port_pair(store)
    page_html = review(client).text
    both = form_in(page_html, pair.anchor, "/review/both").pressing("Both are right")
    keep = form_in(page_html, pair.anchor, "/review/keep").pressing("Keep this one")
    assert client.post("/review/both", data=both).status_code == 303
    answer = client.post("/review/keep", data=keep)  # a tab showing the page before
    assert answer.status_code == 409
    assert "were already marked both right" in text_of(answer)
    assert not store.supersede_chain(pair.older.id).newer


def test_forms_no_page_sends_are_400_not_500(store: MemoryStore, client: httpx.Client) -> None:
    pair = port_pair(store)
    third = pool_pair(store)
    form = form_in(review(client).text, pair.anchor, "/review/keep")
    bad = {
        "a malformed id": {**form.pressing("Keep this one"), "a": "../../etc/passwd"},
        "keeping a third note": {**form.pressing("Keep this one"), "keep": third.newer.id},
        "a pair of one note": {**form.pressing("Keep this one"), "b": pair.older.id,
                               "b_seen": form.fields["a_seen"]},
        "no fields": {"csrf": form.fields["csrf"]},
    }  # fmt: skip
    for what, data in bad.items():
        answer = client.post("/review/keep", data=data)
        assert answer.status_code in (400, 409), what
        assert "Nothing was changed" in text_of(answer) or 'id="stale"' in answer.text, what
    assert not store.supersede_chain(pair.older.id).newer
    assert not store.supersede_chain(third.older.id).newer
    assert client.get("/review/keep").status_code == 405


def test_the_project_filter_and_the_empty_state(store: MemoryStore, client: httpx.Client) -> None:
    empty = text_of(review(client))
    assert "Nothing to review: no two live notes state different values" in empty
    web = port_pair(store, project="web")
    api = pool_pair(store, project="api")
    both = review(client).text
    assert web.anchor in both and api.anchor in both
    assert '<option value="api">api</option>' in both
    only_api = review(client, "?project=api").text
    assert api.anchor in only_api and web.anchor not in only_api
    assert '<option value="api" selected>' in only_api
    # The filter rides along with every form, and comes back in the redirect.
    form = form_in(only_api, api.anchor, "/review/both")
    assert form.fields["project"] == "api"
    answer = client.post("/review/both", data=form.pressing("Both are right"))
    assert parse_qs(urlsplit(answer.headers["location"]).query)["project"] == ["api"]
    after = text_of(client.get(answer.headers["location"]))
    assert "Nothing to review in api" in after
    assert web.anchor in review(client).text


def test_a_store_full_of_pairs_is_drawn_fifty_at_a_time(
    store: MemoryStore, client: httpx.Client
) -> None:
    pairs = [port_pair(store, project=f"service-{n:02d}") for n in range(51)]
    answer = review(client)
    assert answer.text.count('<article class="pair"') == 50
    assert "Possible contradictions (51)" in text_of(answer)
    assert "50 of 51 shown, the newest first" in text_of(answer)
    form = form_in(answer.text, pairs[-1].anchor, "/review/both")
    client.post("/review/both", data=form.pressing("Both are right"))
    after = review(client)
    assert "Possible contradictions (50)" in text_of(after) and "shown, the" not in after.text


def test_an_edit_opened_from_the_review_returns_to_it_and_checks_again(
    store: MemoryStore, client: httpx.Client
) -> None:
    pair = port_pair(store, project="web")
    page_html = review(client, "?project=web").text
    link = re.search(rf'href="(/notes/{pair.older.id}/edit\?back=[^"]+)"', page_html)
    assert link is not None
    edit = client.get(html.unescape(link.group(1)))
    assert edit.status_code == 200
    action, fields = edit_form(edit.text)
    assert "back=" in action
    fields.update(
        title=pair.older.title, type="semantic", scope="portable", project="web", tags="",
        body="The dev server listens on port 5173 when started with `npm run dev`.",
    )  # fmt: skip
    saved = client.post(action, data=fields)
    assert saved.status_code == 303
    target = urlsplit(saved.headers["location"])
    assert target.path == "/review"
    assert parse_qs(target.query) == {"project": ["web"], "edited": [pair.older.id]}
    shown = text_of(client.get(saved.headers["location"]))
    assert f"Saved “{pair.older.title}” and checked again: it is in no pair now" in shown
    assert pair.anchor not in shown


def test_an_edited_due_note_says_whether_it_is_still_due(
    store: MemoryStore, client: httpx.Client
) -> None:
    note = due_note(store)
    link = re.search(rf'href="(/notes/{note.id}/edit\?back=[^"]+)"', review(client).text)
    assert link is not None
    action, fields = edit_form(client.get(html.unescape(link.group(1))).text)
    fields.update(title=note.title, type="semantic", scope="portable", project="ops", tags="",
                  body="The staging TLS certificate is rotated by cert-manager now.")  # fmt: skip
    saved = client.post(action, data=fields)
    assert saved.status_code == 303
    after = client.get(saved.headers["location"])
    shown = text_of(after)
    assert f"Saved “{note.title}” and checked again: it is in no pair now" in shown
    # Whether a hand edit confirms a note is the store's rule: the page says what it finds.
    still_due = is_due(store.get(note.id))
    assert ("and still due for review" in shown) == still_due
    assert (f'id="due-{note.id}"' in after.text) == still_due


def test_an_edit_returns_only_to_the_review_page(store: MemoryStore, client: httpx.Client) -> None:
    note = store.write(type="semantic", title="A note", body="first", project="p")
    for back in ("https://evil.example/review", "//evil.example/review", "/review/../sync",
                 "/review?next=https://evil.example"):  # fmt: skip
        action, fields = edit_form(client.get(f"/notes/{note.id}/edit", params={"back": back}).text)
        assert action == f"/notes/{note.id}", back  # the form does not carry it on
        fields.update(title="A note", type="semantic", scope="portable", project="p", tags="",
                      body=f"edited for {back}")  # fmt: skip
        # Nor does a save given one by hand.
        saved = client.post(f"/notes/{note.id}", params={"back": back}, data=fields)
        assert saved.status_code == 303
        assert saved.headers["location"].startswith(f"/notes/{note.id}?saved="), back


@pytest.mark.parametrize("action", ["/review/keep", "/review/both", "/review/reviewed"])
def test_review_actions_need_the_session_token_host_and_origin(
    store: MemoryStore, dashboard: DashboardProcess, client: httpx.Client, action: str
) -> None:
    pair = port_pair(store)
    due = due_note(store)
    page_html = review(client).text
    if action == "/review/reviewed":
        data = form_in(page_html, f"due-{due.id}", action).pressing("Still true", next=FAR_OFF)
    else:
        data = form_in(page_html, pair.anchor, action).pressing("Keep this one")
    url = dashboard.base.rstrip("/") + action
    refused = {
        "another origin": client.post(action, data=data, headers={"Origin": "http://evil.example"}),
        "no origin": httpx.post(url, data=data, cookies=client.cookies),
        "a wrong csrf token": client.post(action, data={**data, "csrf": "x" * 64}),
        "no csrf token": client.post(action, data={k: v for k, v in data.items() if k != "csrf"}),
        "no session": httpx.post(url, data=data, headers={"Origin": dashboard.origin}),
        "a foreign host": client.post(action, data=data, headers={"Host": "evil.example"}),
        "json": client.post(action, json=data),
    }  # fmt: skip
    expected = {"a foreign host": 421, "json": 415}
    for what, answer in refused.items():
        assert answer.status_code == expected.get(what, 403), what
    assert not store.supersede_chain(pair.older.id).newer
    assert not store.supersede_chain(pair.newer.id).newer
    assert store.get(pair.older.id).compatible_with == []
    assert store.get(due.id).reviewed_at == ""
    # The same form from this page, with its token and origin, goes through.
    assert client.post(action, data=data).status_code == 303


# --- in a browser ------------------------------------------------------------------------


def scroll_width(page: Page) -> int:
    width: int = page.evaluate("document.documentElement.scrollWidth")
    return width


@pytest.mark.browser
def test_resolve_one_pair_by_keeping_one_and_another_as_both_right(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    web = port_pair(store, project="web")
    api = pool_pair(store, project="api")
    due = due_note(store)
    sign_in(page, dashboard)
    page.get_by_role("link", name="Review", exact=True).click()
    page.wait_for_url("**/review")
    expect(page.locator("article.pair")).to_have_count(2)
    size = page.viewport_size
    assert size is not None and scroll_width(page) <= size["width"]

    # Keep the newer port note: the older is superseded by it.
    kept = page.locator(f"#{web.anchor} section.side.newer")
    expect(kept.locator("h3")).to_have_text(web.newer.title)
    with page.expect_navigation():
        kept.get_by_role("button", name="Keep this one").click()
    expect(page.locator("#done")).to_contain_text(f"Kept “{web.newer.title}”")
    expect(page.locator(f"#{web.anchor}")).to_have_count(0)
    expect(page.locator("article.pair")).to_have_count(1)
    assert store.supersede_chain(web.older.id).newer == (web.newer.id,)
    # The superseded note, opened from the confirmation, says by which note.
    page.locator("#done").get_by_role("link", name=f"“{web.older.title}”").nth(1).click()
    page.wait_for_url(f"**/notes/{web.older.id}")
    expect(page.locator("p.notice.warn")).to_contain_text(f"Superseded by {web.newer.title}")
    page.go_back()
    page.wait_for_url("**/review?*")

    # Both pool notes are right (a different service each, say).
    with page.expect_navigation():
        page.locator(f"#{api.anchor}").get_by_role("button", name="Both are right").click()
    expect(page.locator("#done")).to_contain_text("Both right")
    expect(page.locator("article.pair")).to_have_count(0)
    expect(page.locator("#no-pairs")).to_be_visible()
    expect(page.locator(f"#due-{due.id}")).to_be_visible()  # the due note is still asked
    assert api.newer.id in store.get(api.older.id).compatible_with

    # At a phone's width the sides stack and nothing pushes the page sideways.
    page.set_viewport_size({"width": PHONE_WIDTH, "height": 800})
    page.goto(dashboard.base + "review")
    expect(page.locator(f"#due-{due.id}")).to_be_visible()
    assert scroll_width(page) <= PHONE_WIDTH


@pytest.mark.browser
def test_the_project_filter_swaps_the_list_in_place(
    store: MemoryStore, dashboard: DashboardProcess, page: Page
) -> None:
    web = port_pair(store, project="web")
    api = pool_pair(store, project="api")
    sign_in(page, dashboard)
    page.goto(dashboard.base + "review")
    with page.expect_response(lambda r: "project=api" in r.url and r.status == 200):
        page.select_option("form.filters select[name=project]", "api")
    expect(page.locator("article.pair")).to_have_count(1)
    expect(page.locator(f"#{api.anchor}")).to_be_visible()
    expect(page.locator(f"#{web.anchor}")).to_have_count(0)
    assert "project=api" in page.url
    # Resolving from the filtered page comes back to it.
    with page.expect_navigation():
        page.locator(f"#{api.anchor}").get_by_role("button", name="Both are right").click()
    assert "project=api" in page.url
    expect(page.locator("#nothing")).to_contain_text("Nothing to review in api")
