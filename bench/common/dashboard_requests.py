"""The dashboard bench's measurements outside the browser, used by dashboard_bench.py:
request timing (the server's ``Server-Timing`` and the client's round trip), start to first
answer of fresh processes, page weight, saves through the edit form, and, next to the
history page, what that page would cost without its cache (timed in-process, no server).
"""

from __future__ import annotations

import html
import re
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin

import httpx
from anamnesis_testsupport.dashboard_server import start_dashboard

from bench.common.stats import p95

HISTORY_CACHE = Path("cache") / "history.db"  # the dashboard's context.HISTORY_CACHE
WARMUP = 3  # requests per step before the counted ones
TIMING = re.compile(r"\bapp;dur=([0-9.]+)")
# The edit form's fields: inputs (csrf and digest among them), the chosen option of each
# select, and the body (after the newline the page writes behind <textarea>).
FORM_INPUT = re.compile(r'<input type="(?:text|hidden)" name="(\w+)" value="([^"]*)"')
FORM_SELECTED = re.compile(r'<select name="(\w+)">.*?<option selected>([^<]*)</option>', re.DOTALL)
BODY_TEXTAREA = re.compile(r'<textarea name="body"[^>]*>\n(.*?)</textarea>', re.DOTALL)


# -- numbers ---------------------------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


# -- talking to the server -------------------------------------------------------------


@dataclass
class Samples:
    server_ms: list[float] = field(default_factory=list)
    client_ms: list[float] = field(default_factory=list)

    def add(self, answer: httpx.Response, client_s: float) -> None:
        self.server_ms.append(server_ms(answer))
        self.client_ms.append(client_s * 1000)

    def summary(self) -> dict[str, float]:
        return {
            "server_median_ms": median(self.server_ms),
            "server_p95_ms": p95(self.server_ms),
            "client_median_ms": median(self.client_ms),
            "client_p95_ms": p95(self.client_ms),
            "count": float(len(self.server_ms)),
        }


def server_ms(answer: httpx.Response) -> float:
    found = TIMING.search(answer.headers.get("server-timing", ""))
    if found is None:
        raise SystemExit(f"{answer.request.url}: no Server-Timing header ({answer.status_code})")
    return float(found.group(1))


def timed_get(client: httpx.Client, url: str, expect: int = 200) -> tuple[httpx.Response, float]:
    started = time.perf_counter()
    answer = client.get(url)
    elapsed = time.perf_counter() - started
    if answer.status_code != expect:
        raise SystemExit(f"GET {url}: {answer.status_code}, expected {expect}\n{answer.text}")
    return answer, elapsed


def measure(client: httpx.Client, urls: Sequence[str]) -> Samples:
    """GET each url (the first WARMUP uncounted)."""
    samples = Samples()
    for index, url in enumerate(urls):
        answer, elapsed = timed_get(client, url)
        if index >= WARMUP:
            samples.add(answer, elapsed)
    return samples


def clear_history_cache(home: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{home / HISTORY_CACHE}{suffix}").unlink(missing_ok=True)


@dataclass
class StartTimes:
    link_s: list[float] = field(default_factory=list)  # spawn -> the printed link
    redirect_s: list[float] = field(default_factory=list)  # spawn -> the token's 303
    page_s: list[float] = field(default_factory=list)  # spawn -> the first 200 of /


def measure_starts(home: Path, env: dict[str, str], runs: int, *, cold: bool) -> StartTimes:
    """Fresh processes; ``cold``: no history cache on disk (a first start ever)."""
    times = StartTimes()
    for _ in range(runs):
        if cold:
            clear_history_cache(home)
        running = start_dashboard(home, env=env)
        spawned = time.perf_counter() - running.started_s
        try:
            with httpx.Client(timeout=60) as client:
                exchanged = client.get(running.link)
                redirect_at = time.perf_counter()
                if exchanged.status_code != 303:
                    raise SystemExit(f"token exchange: {exchanged.status_code}, expected 303")
                first = client.get(urljoin(running.base, exchanged.headers["location"]))
                page_at = time.perf_counter()
                if first.status_code != 200:
                    raise SystemExit(f"first page: {first.status_code}, expected 200")
        finally:
            running.stop()
        times.link_s.append(running.started_s)
        times.redirect_s.append(redirect_at - spawned)
        times.page_s.append(page_at - spawned)
    return times


class _Assets(HTMLParser):
    """The stylesheets and scripts a page references."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        rels = (values.get("rel") or "").lower().split()
        if tag == "link" and "stylesheet" in rels and values.get("href"):
            self.urls.append(str(values["href"]))
        elif tag == "script" and values.get("src"):
            self.urls.append(str(values["src"]))


def page_weight(client: httpx.Client, url: str) -> dict[str, int]:
    answer, _ = timed_get(client, url)
    parser = _Assets()
    parser.feed(answer.text)
    weight = {"html": len(answer.content)}
    for asset in parser.urls:
        fetched, _ = timed_get(client, urljoin(str(answer.url), asset))
        weight[asset] = len(fetched.content)
    return weight


def edit_form(client: httpx.Client, note_id: str) -> tuple[httpx.Response, float, dict[str, str]]:
    """The edit page (its form and the body's preview) and the form's fields as filled."""
    answer, elapsed = timed_get(client, f"/notes/{note_id}/edit")
    found = [*FORM_INPUT.findall(answer.text), *FORM_SELECTED.findall(answer.text)]
    fields = {name: html.unescape(value) for name, value in found}
    body = BODY_TEXTAREA.search(answer.text)
    if "digest" not in fields or body is None:
        raise SystemExit(f"/notes/{note_id}/edit: no digest or body in the form")
    return answer, elapsed, {**fields, "body": html.unescape(body.group(1))}


def changed_body(body: str, number: int) -> str:
    """The body with its last line changed."""
    lines = body.split("\n")
    last = max(i for i, line in enumerate(lines) if line.strip())
    lines[last] = f"{lines[last]} Saved from the dashboard bench ({number})."
    return "\n".join(lines)


def measure_saves(
    client: httpx.Client, origin: str, csrf: str, ids: Sequence[str]
) -> tuple[Samples, Samples]:
    """(the edit form, the save) for each id; the first WARMUP uncounted."""
    forms, saves = Samples(), Samples()
    for index, note_id in enumerate(ids):
        form, form_s, filled = edit_form(client, note_id)
        fields = {**filled, "csrf": csrf, "body": changed_body(filled["body"], index)}
        started = time.perf_counter()
        saved = client.post(f"/notes/{note_id}", data=fields, headers={"Origin": origin})
        elapsed = time.perf_counter() - started
        if saved.status_code != 303:
            raise SystemExit(f"save {note_id}: {saved.status_code}, expected 303\n{saved.text}")
        if index >= WARMUP:
            forms.add(form, form_s)
            saves.add(saved, elapsed)
    return forms, saves


# -- the history without its cache -----------------------------------------------------


def walker_ms(memory_dir: Path, path: str) -> tuple[float, int]:
    """dulwich's walk of the whole history filtered to one file: (ms, commits found)."""
    from dulwich.repo import Repo

    started = time.perf_counter()
    with Repo(str(memory_dir)) as repo:
        found = sum(1 for _ in repo.get_walker(paths=[path.encode()]))
    return (time.perf_counter() - started) * 1000, found


def cache_build_ms(memory_dir: Path, scratch: Path, note_id: str) -> tuple[float, float]:
    """In this process, no server: the history cache's full build, and one warm
    ``versions`` lookup afterwards (ms)."""
    from anamnesis.dashboard.views.history_cache import HistoryCache

    with HistoryCache(memory_dir, scratch / "history-build.db") as cache:
        started = time.perf_counter()
        cache.refresh()
        built = time.perf_counter()
        cache.refresh()
        cache.versions(note_id)
        return (built - started) * 1000, (time.perf_counter() - built) * 1000
