"""Headless Chromium for the dashboard's browser tests: the fixtures a test module imports
(``from anamnesis_testsupport.browser import browser as browser, ...``), and signing in.

Playwright's own browser download is not used: the system's Chromium is launched by path
(``ANAMNESIS_CHROMIUM``, else the first of chromium, chromium-browser, google-chrome on
PATH); without one the tests skip and say how to get one. Playwright comes with the
workspace's dev group (the dashboard's browser tests are its only users).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from anamnesis_testsupport.dashboard_server import DashboardProcess

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
NO_BROWSER = "no Chromium here: apt-get install -y chromium (or set ANAMNESIS_CHROMIUM)"
TIMEOUT_MS = 10_000  # a step that takes longer is broken, not slow: fail fast


def chromium() -> str:
    """The Chromium to launch, or skip the test saying why there is none."""
    chosen = os.environ.get("ANAMNESIS_CHROMIUM")
    if chosen:
        if not Path(chosen).is_file():
            pytest.skip(f"ANAMNESIS_CHROMIUM={chosen} is not a file")
        return chosen
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip(NO_BROWSER)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the module (each test gets its own context)."""
    from playwright.sync_api import Error, sync_playwright

    path = chromium()
    # Chromium refuses to start as root with its sandbox on (containers, CI runners).
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=path, headless=True, args=args)
        except Error as exc:
            pytest.skip(f"{NO_BROWSER}; {path} did not start: {str(exc).splitlines()[0]}")
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    """A fresh profile: no cookies, so no session until the start link is opened."""
    made = browser.new_context()
    made.set_default_timeout(TIMEOUT_MS)
    try:
        yield made
    finally:
        made.close()


@pytest.fixture
def page(context: BrowserContext) -> Page:
    return context.new_page()


def sign_in(page: Page, dashboard: DashboardProcess) -> None:
    """Open the printed link: the token becomes the session cookie and leaves the URL."""
    answer = page.goto(dashboard.link)
    assert answer is not None
    assert answer.status == 200
    assert page.url == dashboard.base
