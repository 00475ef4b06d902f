"""The dashboard bench's browser side: DOMContentLoaded of dashboard pages in headless
Chromium (Playwright driving Debian's ``chromium``). Used by dashboard_bench.py.
"""

from __future__ import annotations

import os
import shutil
from urllib.parse import urljoin

from anamnesis_testsupport.dashboard_server import DashboardProcess

DCL_SCRIPT = "() => performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"


def browser_dcl(running: DashboardProcess, urls: dict[str, list[str]]) -> dict[str, list[float]]:
    """DOMContentLoaded (ms after navigation start) of each url, by page type. Raises
    RuntimeError saying why when there is no browser to run."""
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        raise RuntimeError("no `chromium` on PATH")
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise RuntimeError(f"Playwright is not installed ({exc})") from None
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    out: dict[str, list[float]] = {}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=args)
            try:
                context = browser.new_context()
                page = context.new_page()
                page.goto(running.link)  # the one-time link: sets the cookie
                for kind, addresses in urls.items():
                    for address in addresses:
                        answer = page.goto(urljoin(running.base, address), wait_until="load")
                        if answer is None or answer.status != 200:
                            status = None if answer is None else answer.status
                            raise RuntimeError(f"browser: {address} answered {status}")
                        value = page.evaluate(DCL_SCRIPT)
                        out.setdefault(kind, []).append(float(value))
            finally:
                browser.close()
    except PlaywrightError as exc:
        raise RuntimeError(f"Chromium could not run: {str(exc).splitlines()[0]}") from None
    return out
