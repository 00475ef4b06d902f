"""The dashboard between two machines: an edit saved in desktop's page and sent with its
Sync button reaches laptop, whose page shows the note's history with both machines."""

from __future__ import annotations

import html
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from e2e_support import ANAMNESIS, Machine, World

LINK = re.compile(r"(http://127\.0\.0\.1:\d+/)\?token=\S+")


@contextmanager
def dashboard(machine: Machine) -> Iterator[httpx.Client]:
    """`anamnesis dashboard` on ``machine``, and a client that opened its printed link."""
    process = subprocess.Popen(
        [str(ANAMNESIS), "dashboard", "--no-open", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=machine.env,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        found = LINK.search(process.stdout.readline())
        assert found, "the dashboard printed no link"
        origin = found.group(1).rstrip("/")
        with httpx.Client(base_url=found.group(1), headers={"Origin": origin}, timeout=120) as c:
            assert c.get(found.group(0), follow_redirects=True).status_code == 200
            yield c
    finally:
        process.terminate()
        process.wait(10)


def _field(page: str, name: str) -> str:
    found = re.search(rf'name="{name}" value="([^"]+)"', page)
    assert found, name
    return found.group(1)


def test_an_edit_in_one_page_reaches_the_other_machine_with_its_history(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    note = laptop.write("Deploy window", "deploys happen on Tuesdays")
    laptop.sync()
    desktop.sync()
    with dashboard(desktop) as page:
        form = page.get(f"/notes/{note['id']}/edit", params={"raw": "1"}).text  # the file
        textarea = re.search(r"<textarea[^>]*>\n(.*?)</textarea>", form, re.S)
        assert textarea, form
        source = html.unescape(textarea.group(1))
        saved = page.post(f"/notes/{note['id']}", data={
            "csrf": _field(form, "csrf"), "digest": _field(form, "digest"),
            "source": source.replace("on Tuesdays", "on Wednesdays, after the standup"),
        })  # fmt: skip
        assert saved.status_code == 303, saved.text
        assert laptop.sync()["pulled"] == 0  # saved, not committed: nothing went anywhere
        synced = page.post("/sync", data={"csrf": _field(form, "csrf")})
        assert synced.status_code == 200 and "Sync failed" not in synced.text, synced.text
    pulled = laptop.sync()
    assert pulled["pulled"] >= 1
    assert [hit["id"] for hit in laptop.search("standup")] == [note["id"]]
    with dashboard(laptop) as page:
        history = page.get(f"/notes/{note['id']}/history").text
        machines = re.findall(r'<tr class="version">.*?</td><td>([\w-]+)</td>', history, re.S)
        assert machines == ["desktop", "laptop"], machines  # newest first
        added = [
            html.unescape(re.sub(r"<[^>]+>", "", row))  # changed words are marked within
            for row in re.findall(r'<tr class="d-add">.*?<td class="dl">(.*?)</td></tr>', history)
        ]
        assert "+deploys happen on Wednesdays, after the standup" in added, added
        fleet = page.get("/fleet").text
        assert "?machine=desktop" in fleet and "?machine=laptop" in fleet
