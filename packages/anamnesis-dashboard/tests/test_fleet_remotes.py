"""The fleet page per remote: a laptop (this dashboard's home) and a desktop, each with its
own personal (default) remote, sharing a team remote that takes the team's projects
(every remote a real bare repository made with dulwich, every sync ops' real cycle). The
page shows, for each remote, the machines its history has seen, with their commits and
last sync, and, for each machine, which remote its notes here go to."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.browser import browser as browser
from anamnesis_testsupport.browser import context as context
from anamnesis_testsupport.browser import page as page
from anamnesis_testsupport.browser import sign_in
from anamnesis_testsupport.dashboard_server import DashboardProcess
from anamnesis_testsupport.repos import bare_remote, tip_paths
from playwright.sync_api import Page, ViewportSize, expect

from anamnesis.ops import Home, RemoteSpec, add_member, add_remote, machine_public_key, run_sync
from anamnesis.store import MemoryStore, write_config

PHONE: ViewportSize = {"width": 390, "height": 844}
TEAM_PROJECTS = "github.com/team/*"


@dataclass
class Team:
    laptop: Home
    desktop: Home
    mine: MemoryStore
    theirs: MemoryStore

    def sync_all(self) -> None:
        """Laptop, desktop, laptop: each ends with what the other sent to the team."""
        for home, store in ((self.laptop, self.mine), (self.desktop, self.theirs)) * 2:
            report = run_sync(home, store)
            assert not [r for r in report.remotes if r.as_dict()["remote_error"]], report


@pytest.fixture(params=[False, True], ids=["plain", "encrypted"])
def encrypt(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def team(isolated_home: Path, tmp_path: Path, encrypt: bool) -> Iterator[Team]:
    own, theirs_remote, team_remote = (
        bare_remote(tmp_path / name) for name in ("laptop.git", "desktop.git", "team.git")
    )
    # The dashboard reads its remotes from config.json, as `anamnesis init --remote` and
    # `anamnesis remote add` leave it.
    write_config({"machine_id": "laptop", "remote": str(own)}, isolated_home)
    laptop = Home(isolated_home, machine_id="laptop", remote=str(own))
    desktop_root = tmp_path / "desktop"
    write_config({"machine_id": "desktop", "remote": str(theirs_remote)}, desktop_root)
    desktop = Home(desktop_root, machine_id="desktop", remote=str(theirs_remote))
    spec = RemoteSpec("team", str(team_remote), projects=(TEAM_PROJECTS,), encrypt=encrypt)
    add_remote(laptop, spec)  # encrypted: the remote's recipients start with the laptop's key
    if encrypt:  # the laptop lets the desktop in, as `remote add-recipient` does
        add_member(laptop, "team", machine_public_key(desktop), "desktop")
    add_remote(desktop, spec)
    with laptop.open_store() as mine, desktop.open_store() as theirs:
        yield Team(laptop, desktop, mine, theirs)


def write_notes(team: Team) -> None:
    """The laptop: 2 team notes, 3 of its own; the desktop: 1 team note, 4 of its own."""
    for n in range(2):
        team.mine.write(type="semantic", title=f"api {n}", body="team", machine_id="laptop",
                        project="github.com/team/api")  # fmt: skip
    for n in range(3):
        team.mine.write(type="semantic", title=f"mine {n}", body="personal",
                        machine_id="laptop")  # fmt: skip
    team.theirs.write(type="semantic", title="web", body="team", machine_id="desktop",
                      project="github.com/team/web")  # fmt: skip
    for n in range(4):
        team.theirs.write(type="semantic", title=f"theirs {n}", body="personal",
                          machine_id="desktop", project="github.com/desktop/side")  # fmt: skip


def section(page_html: str, remote: str) -> str:
    found = re.search(rf'<section class="remote" id="remote-{remote}">(.*?)</section>',
                      page_html, re.S)  # fmt: skip
    assert found, page_html
    return found.group(1)


def machines_of(section_html: str) -> dict[str, int]:
    """The machines a remote's table lists, with their commit counts."""
    rows = re.findall(
        r'<span class="machine-id">([^<]+)</span>.*?<td data-label="commits" class="commits">'
        r"(\d+)</td>",
        section_html,
        re.S,
    )
    return {html.unescape(machine): int(commits) for machine, commits in rows}


def cell_of(page_html: str, machine: str, label: str) -> str:
    """The text of one cell of ``machine``'s row in the machines table."""
    rows: list[str] = re.findall(r"<tr[^>]*>.*?</tr>", page_html, re.S)
    (row,) = [r for r in rows if f'?machine={machine}"' in r]
    found = re.search(rf'data-label="{label}"[^>]*>(.*?)</td>', row, re.S)
    assert found, row
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def routes_of(page_html: str, machine: str) -> str:
    return cell_of(page_html, machine, "notes go to")


def test_each_remote_lists_the_machines_its_history_has_seen(
    team: Team, dashboard: DashboardProcess, client: httpx.Client, encrypt: bool
) -> None:
    write_notes(team)
    team.sync_all()
    page_html = client.get("/fleet").text
    default, shared = section(page_html, "default"), section(page_html, "team")
    # The team remote's history: both machines committed to it (the laptop twice: its
    # notes, then nothing new). The default remote is the laptop's own: only the laptop.
    team_machines = machines_of(shared)
    assert set(team_machines) == {"laptop", "desktop"}, shared
    assert all(count >= 1 for count in team_machines.values())
    assert set(machines_of(default)) == {"laptop"}, default
    # Where the notes on this machine go: 3 to the laptop's own remote, 3 to the team
    # (2 of its own, 1 from the desktop); the desktop's personal notes never came here.
    assert routes_of(page_html, "laptop") == "default 3, team 2"
    assert routes_of(page_html, "desktop") == "team 1"
    assert re.search(r'class="routed">3<', shared) and re.search(r'class="routed">3<', default)
    assert "github.com/team/*" in shared
    assert ('<span class="badge">encrypted</span>' in shared) is encrypt
    # The desktop never committed to this machine's notes folder, but it synced the team
    # remote: its last sync is seen there.
    desktop_sync = cell_of(page_html, "desktop", "last sync seen")
    assert "never" not in desktop_sync and f"({team_machines['desktop']} commits)" in desktop_sync


def test_a_remote_never_synced_here_says_so(
    team: Team, dashboard: DashboardProcess, client: httpx.Client, encrypt: bool
) -> None:
    team.mine.write(type="semantic", title="api", body="team", machine_id="laptop",
                    project="github.com/team/api")  # fmt: skip
    page_html = client.get("/fleet").text
    shared = section(page_html, "team")
    if encrypt:  # `remote add --encrypt` set it up: the laptop pushed its recipients file
        assert machines_of(shared) == {"laptop": 2}, shared  # the file, then the desktop
    else:
        assert machines_of(shared) == {} and "not synced here" in shared
    assert routes_of(page_html, "laptop") == "team 1"


def test_the_commit_counts_follow_new_syncs(
    team: Team, dashboard: DashboardProcess, client: httpx.Client
) -> None:
    """Each remote's history is cached apart; a sync after the page was read shows."""
    write_notes(team)
    team.sync_all()
    before = machines_of(section(client.get("/fleet").text, "team"))
    team.theirs.write(type="semantic", title="web 2", body="team", machine_id="desktop",
                      project="github.com/team/web")  # fmt: skip
    team.sync_all()
    after = machines_of(section(client.get("/fleet").text, "team"))
    assert after["desktop"] == before["desktop"] + 1, (before, after)
    assert after["laptop"] == before["laptop"]


@pytest.mark.browser
def test_machines_per_remote_fit_a_phone(
    team: Team, dashboard: DashboardProcess, page: Page, tmp_path: Path
) -> None:
    write_notes(team)
    team.sync_all()
    sign_in(page, dashboard)
    page.goto(f"{dashboard.base}fleet")
    expect(page.locator("#remote-team table")).to_contain_text("desktop")
    expect(page.locator("#remote-default table")).to_contain_text("laptop")
    expect(page.locator("#remote-default table")).not_to_contain_text("desktop")
    page.screenshot(path=str(tmp_path / "fleet-wide.png"), full_page=True)
    page.set_viewport_size(PHONE)
    width: int = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"]
    page.screenshot(path=str(tmp_path / "fleet-phone.png"), full_page=True)


def test_a_note_is_moved_to_another_remote_from_its_page(
    team: Team, dashboard: DashboardProcess, client: httpx.Client, encrypt: bool
) -> None:
    """The note page's "Move to" is `anamnesis share`: re-pinned, a tombstone on the remote
    it leaves (after the next sync), and the same id."""
    note = team.mine.write(type="semantic", title="retry policy", body="5 retries",
                           machine_id="laptop")  # fmt: skip
    team.sync_all()
    page_html = client.get(f"/notes/{note.id}").text
    assert "Goes to <strong>default</strong>" in page_html
    options = re.findall(r'<option value="([^"]+)"( selected)?>', page_html)
    assert options == [("default", " selected"), ("team", "")]
    csrf = re.search(r'name="csrf" value="([^"]+)"', page_html)
    assert csrf is not None
    moved = client.post(f"/notes/{note.id}/share", data={"csrf": csrf.group(1), "to": "team"})
    assert moved.status_code == 303 and moved.headers["location"].endswith("?shared=moved")
    after = client.get(moved.headers["location"]).text
    assert "Moved to team" in after and "Goes to <strong>team</strong>" in after
    team.sync_all()
    paths = tip_paths(Path(str(team.laptop.remote)))
    assert f".anamnesis/moved/{note.id}" in paths
    assert f"semantic/{note.id}.md" not in paths
    assert team.theirs.get(note.id).title == "retry policy"  # the desktop has the team
    # A name no remote has, and no field at all: 400, nothing moved.
    for data in ({"to": "nowhere"}, {}):
        refused = client.post(f"/notes/{note.id}/share", data={"csrf": csrf.group(1), **data})
        assert refused.status_code == 400, refused.text
    # Without the token: the guard refuses before anything runs.
    assert client.post(f"/notes/{note.id}/share", data={"to": "default"}).status_code == 403
