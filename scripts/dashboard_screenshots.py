"""Screenshots of the dashboard's pages, for a person to look at (a review, a closing note).

    uv run python scripts/dashboard_screenshots.py OUT_DIR [--chromium PATH]

Builds a small world in a temporary folder (two machines sharing a bare remote, a note with
a table, a task list and code, a note edited three times, a keep-both conflict), starts the
real dashboard over the first machine's store, and saves the list, note, edit, merge (a save
over a file changed on disk), history, fleet and status pages at 1280 and 390 px wide as
``OUT_DIR/<page>-<width>.png``. Needs the dev dependencies (Playwright, the test support
package) and a Chromium (Debian's ``chromium`` works). It only uses what every version of
the dashboard since issue 39 has, so it can photograph an older checkout too.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from pathlib import Path

from anamnesis_testsupport.dashboard_server import DashboardProcess, start_dashboard
from dulwich.repo import Repo
from playwright.sync_api import Page, sync_playwright

from anamnesis.ops import Home, run_sync
from anamnesis.store import MemoryStore

WIDTHS = (1280, 390)

RICH_BODY = """\
How the API's connection pool is sized, and why.

> Measured on the staging box with 200 concurrent clients; see the load test below.

| setting | value | unit |
|:--|--:|:-:|
| pool_size | 40 | connections |
| max_overflow | 10 | connections |
| pool_timeout | 2.5 | seconds |

- [x] raise pool_size from 20 to 40
- [x] set pool_pre_ping
- [ ] alert when the pool is exhausted for more than a minute

```python
LONG_LINE
```

Run `pgbench -c 200 -T 60` against staging after any change.
""".replace(
    "LONG_LINE",
    "engine = create_engine(DATABASE_URL, pool_size=40, max_overflow=10, pool_timeout=2.5, "
    "pool_pre_ping=True)",
)

HISTORY_BODIES = (
    "Deploys go through the staging cluster first.\n\nRun the smoke tests by hand.\n",
    "Deploys go through the staging cluster first.\n\nRun `make smoke` after each deploy; "
    "it takes about four minutes and checks every public endpoint.\n",
    "Deploys go through the staging cluster first, then canary (5% of traffic for 30 "
    "minutes).\n\nRun `make smoke` after each deploy; it takes about four minutes and checks "
    "every public endpoint.\n",
)


def build_world(root: Path) -> tuple[Path, dict[str, str]]:
    """Two machines' stores on one bare remote; returns the laptop's home and note ids."""
    remote = root / "remote.git"
    remote.mkdir()
    Repo.init_bare(str(remote), default_branch=b"main").close()
    laptop, desktop = root / "laptop", root / "desktop"
    homes = {
        "laptop": Home(laptop, machine_id="laptop", remote=str(remote)),
        "desktop": Home(desktop, machine_id="desktop", remote=str(remote)),
    }
    ids: dict[str, str] = {}
    with MemoryStore(laptop) as store:
        ids["rich"] = store.write(
            type="semantic",
            title="API connection pool sizing",
            body=RICH_BODY,
            project="api",
            machine_id="laptop",
        ).id
        for number in range(24):
            store.write(
                type="episodic" if number % 3 else "procedural",
                title=f"Session {number}: investigated flaky integration test in the billing "
                "service's webhook retries",
                body=f"Note {number}: retries back off exponentially; the test waited 2 s.",
                project="billing" if number % 2 else "api",
                tags=["ci", "flaky"],
                machine_id="laptop",
            )
        history = store.write(
            type="procedural",
            title="How we deploy",
            body=HISTORY_BODIES[0],
            project="api",
            machine_id="laptop",
        )
        ids["history"] = history.id
        run_sync(homes["laptop"], store)
        for body in HISTORY_BODIES[1:]:
            store.update(history.id, body=body)
            run_sync(homes["laptop"], store)
        shared = store.write(
            type="semantic",
            title="Staging database host",
            body="db.staging:5432",
            project="api",
            machine_id="laptop",
        )
        ids["shared"] = shared.id
        run_sync(homes["laptop"], store)
    with MemoryStore(desktop) as other:
        run_sync(homes["desktop"], other)
        other.write(
            type="semantic",
            title="Desktop GPU driver pin",
            body="pin 550.54",
            project="ml",
            machine_id="desktop",
        )
        other.update(shared.id, body="db.staging.internal:5432 (moved in March)")
        run_sync(homes["desktop"], other)
    with MemoryStore(laptop) as store:
        store.update(shared.id, body="db-staging.example.net:6432 (through pgbouncer)")
        report = run_sync(homes["laptop"], store)
        if report.result.conflicted:
            run_sync(homes["laptop"], store, resolve="keep-both")
    return laptop, ids


def photograph(page: Page, url: str, out: Path, name: str) -> None:
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(out / f"{name}-{width}.png"), full_page=True)


def merge_page(
    page: Page, dashboard: DashboardProcess, home: Path, note_id: str, out: Path
) -> None:
    """The page a save over a file changed on disk leads to, at each width."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{dashboard.base}notes/{note_id}/edit")
        page.wait_for_load_state("networkidle")
        with MemoryStore(home) as store:
            body = store.get(note_id).body
            store.update(note_id, body=body + f"\nChanged on disk while editing ({width}).\n")
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.click("#save")
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / f"merge-{width}.png"), full_page=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--chromium", default=os.environ.get("ANAMNESIS_CHROMIUM"))
    options = parser.parse_args()
    chromium = options.chromium or shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no Chromium: apt-get install -y chromium, or pass --chromium PATH")
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="anamnesis-shots-") as scratch:
        home, ids = build_world(Path(scratch))
        with MemoryStore(home) as store:
            copies = [note.id for note in store.list(limit=500) if note.title.startswith("Staging")]
        dashboard = start_dashboard(home, env={"ANAMNESIS_MACHINE_ID": "laptop"})
        try:
            with sync_playwright() as playwright:
                args = ["--no-sandbox"] if os.geteuid() == 0 else []
                browser = playwright.chromium.launch(executable_path=chromium, args=args)
                page = browser.new_page()
                page.goto(dashboard.link)
                base = dashboard.base
                photograph(page, base, out, "list")
                photograph(page, f"{base}notes/{ids['rich']}", out, "note")
                photograph(page, f"{base}notes/{ids['rich']}/edit", out, "edit")
                photograph(page, f"{base}notes/{ids['history']}/history", out, "history")
                photograph(page, f"{base}fleet", out, "fleet")
                photograph(page, f"{base}status", out, "status")
                photograph(page, f"{base}search?q=pool+size", out, "search")
                for number, copy in enumerate(copies):
                    photograph(page, f"{base}notes/{copy}", out, f"conflict{number + 1}")
                merge_page(page, dashboard, home, ids["history"], out)
                browser.close()
        finally:
            dashboard.stop()
    print(f"saved {len(list(out.glob('*.png')))} screenshots in {out}")


if __name__ == "__main__":
    main()
