"""Team memory over plain git with boundaries (issue 43): three machines, a team remote
and two personal remotes, every command a real ``anamnesis`` process without git.

alice has two machines (``alice-laptop``, ``alice-desk``); bob is her teammate. Each
person's own bare remote is their default remote (``init --remote``); the team's bare
remote is added with a rule (the team's projects) and encrypted at rest. What each remote
holds is read with dulwich: the team remote only the team's notes, and only as
ciphertext; a personal remote never a team note; bob's machine never alice's personal
notes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.repos import every_object, tip_files

from e2e_support import Machine, bare_remote, check

TEAM_PROJECTS = "github.com/acme/*"
PAYMENTS = "github.com/acme/payments"
SIDE = "github.com/alice/side-project"


def note_ids(files: dict[str, bytes]) -> set[str]:
    """The note ids among a remote's files (``<type>/<id>.md`` or ``.md.age``)."""
    ids = set()
    for path in files:
        name = path.rsplit("/", 1)[-1]
        if path.startswith(".anamnesis/"):
            continue
        for suffix in (".md.age", ".md"):
            if name.endswith(suffix):
                ids.add(name.removesuffix(suffix))
    return ids


def on_remote(remote: Path) -> set[str]:
    """The note ids at the tip of a bare remote (none before its first push)."""
    return note_ids(tip_files(remote, none_pushed_ok=True))


def remotes_report(report: Any) -> dict[str, Any]:
    return {entry["name"]: entry for entry in report["remotes"]}


class Team:
    """alice's two machines and bob's one, set up as the README's team section says."""

    def __init__(self, root: Path) -> None:
        self.team = bare_remote(root / "team.git")
        self.alice_own = bare_remote(root / "alice.git")
        self.bob_own = bare_remote(root / "bob.git")
        self.laptop = Machine(root, "alice-laptop")
        self.desk = Machine(root, "alice-desk")
        self.bob = Machine(root, "bob")
        self.laptop.init(self.alice_own)
        self.desk.init(self.alice_own)
        self.bob.init(self.bob_own)
        # The first machine creates the encrypted team remote, to its own key.
        self.laptop.ok(
            "remote", "add", "team", str(self.team), "--projects", TEAM_PROJECTS, "--encrypt"
        )
        self.laptop.sync()
        # Every other machine joins: it has a key of its own, which a member adds.
        for machine in (self.desk, self.bob):
            machine.ok(
                "remote", "add", "team", str(self.team), "--projects", TEAM_PROJECTS, "--encrypt"
            )

    def public_key(self, machine: Machine) -> str:
        key = check(machine.run("remote", "key")).out.strip().split()[-1]
        assert key.startswith("age1"), key
        return key

    def admit(self, machine: Machine) -> None:
        key = self.public_key(machine)
        self.laptop.ok("remote", "add-recipient", "team", key, "--label", machine.name)
        self.laptop.sync()


@pytest.fixture
def team(tmp_path: Path) -> Team:
    return Team(tmp_path)


def test_notes_go_to_the_remote_their_project_routes_them_to(team: Team) -> None:
    laptop, desk, bob = team.laptop, team.desk, team.bob
    team.admit(desk)
    team.admit(bob)
    shared = laptop.write("Payments deploy", "Deploy payments with make ship.", "-p", PAYMENTS)
    private = laptop.write("Side project idea", "A bird-watching log app.", "-p", SIDE)
    mine = laptop.write("My editor", "I use helix with the gruvbox theme.")  # global
    local = laptop.write("Laptop path", "Repos live in ~/src.", "--scope", "machine-local")
    report = laptop.sync()
    assert remotes_report(report)["team"]["remote_error"] in (None, "")

    team_ids = on_remote(team.team)
    own_ids = on_remote(team.alice_own)
    assert team_ids == {shared["id"]}
    assert own_ids == {private["id"], mine["id"]}
    assert local["id"] not in team_ids | own_ids | on_remote(team.bob_own)

    # alice's second machine has both of her remotes: it gets every portable note.
    desk.sync()
    assert {n["id"] for n in desk.listed()} == {shared["id"], private["id"], mine["id"]}
    # bob has only the team remote: only the team's note reaches him.
    bob.sync()
    assert {n["id"] for n in bob.listed()} == {shared["id"]}

    # bob writes in the team's project and in one of his own: the first reaches alice,
    # the second stays on bob's remote.
    bobs_team = bob.write("Payments on-call", "Page the payments rota.", "-p", PAYMENTS)
    bobs_own = bob.write("Bob's shell", "bob uses fish.")
    bob.sync()
    laptop.sync()
    listed = {n["id"] for n in laptop.listed()}
    assert bobs_team["id"] in listed and bobs_own["id"] not in listed
    assert on_remote(team.bob_own) == {bobs_own["id"]}
    assert bobs_own["id"] not in on_remote(team.team)


def test_a_note_pulled_from_the_team_stays_there_when_edited(team: Team) -> None:
    laptop, bob = team.laptop, team.bob
    team.admit(bob)
    shared = laptop.write("Payments deploy", "Deploy payments with make ship.", "-p", PAYMENTS)
    laptop.sync()
    bob.sync()
    path = bob.note_file(shared)
    path.write_text(path.read_text().replace("make ship", "make ship-it"), encoding="utf-8")
    bob.sync()
    laptop.sync()
    assert "make ship-it" in laptop.note_file(shared).read_text()
    assert shared["id"] not in on_remote(team.bob_own)


def test_share_moves_a_note_and_leaves_a_tombstone(team: Team) -> None:
    laptop, desk, bob = team.laptop, team.desk, team.bob
    team.admit(desk)
    team.admit(bob)
    tip = laptop.write("Retry policy", "Retry webhooks 5 times with backoff.")  # global
    laptop.sync()
    desk.sync()
    assert tip["id"] in on_remote(team.alice_own)

    laptop.ok("share", tip["id"], "--to", "team")
    laptop.sync()
    own = tip_files(team.alice_own)
    assert tip["id"] not in note_ids(own)
    assert f".anamnesis/moved/{tip['id']}" in own  # a tombstone, not a silent deletion
    assert b"moved-to: team" in own[f".anamnesis/moved/{tip['id']}"]
    assert tip["id"] in on_remote(team.team)

    desk.sync()  # has the team remote: keeps the note, now routed there
    assert desk.note_file(tip).exists()
    bob.sync()
    assert tip["id"] in {n["id"] for n in bob.listed()}
    shown = laptop.ok("show", tip["id"], "--json").json()
    assert shown["id"] == tip["id"]  # ids never change


def test_a_rule_change_moves_nothing_until_check_applies_it(team: Team) -> None:
    laptop, bob = team.laptop, team.bob
    team.admit(bob)
    docs = laptop.write("Docs style", "Docs use sentence case.", "-p", "github.com/acme-docs/site")
    laptop.sync()
    assert docs["id"] in on_remote(team.alice_own)

    widened = ("--projects", TEAM_PROJECTS, "--projects", "github.com/acme-docs/*")
    laptop.ok("remote", "set", "team", *widened)
    laptop.sync()
    assert docs["id"] in on_remote(team.alice_own)  # nothing moved by itself
    listed = laptop.ok("remote", "check", "--json").json()
    assert [(m["id"], m["from"], m["to"]) for m in listed["moves"]] == [
        (docs["id"], "default", "team")
    ]
    laptop.ok("remote", "check", "--apply")
    laptop.sync()
    assert docs["id"] not in on_remote(team.alice_own)
    assert docs["id"] in on_remote(team.team)
    assert laptop.ok("remote", "check", "--json").json()["moves"] == []


def test_a_teammate_without_a_key_is_told_which_and_loses_nothing(team: Team) -> None:
    laptop, bob = team.laptop, team.bob
    laptop.write("Payments deploy", "Deploy payments with make ship.", "-p", PAYMENTS)
    laptop.sync()
    bobs = bob.write("Payments on-call", "Page the payments rota.", "-p", PAYMENTS)
    done = bob.run("sync", "--json")
    report = json.loads(done.out)
    error = remotes_report(report)["team"]["remote_error"] or ""
    key = team.public_key(bob)
    assert key in error and "add-recipient" in error, error
    assert bob.note_file(bobs).exists()  # nothing lost
    assert {n["id"] for n in bob.listed()} == {bobs["id"]}  # nothing half-imported

    team.admit(bob)
    bob.sync()
    laptop.sync()
    assert bobs["id"] in {n["id"] for n in laptop.listed()}
    assert len(bob.listed()) == 2


def test_the_encrypted_remote_holds_no_note_text(team: Team) -> None:
    laptop = team.laptop
    secretish = [
        ("Payments ledger schema", "The ledger table is partitioned by merchant_id.", "ledger"),
        ("Payments incident 42", "Root cause: expired TLS cert on lb-internal-7.", "incident"),
    ]
    for title, body, tag in secretish:
        laptop.write(title, body, "-p", PAYMENTS, "--tag", tag)
    laptop.sync()
    laptop.sync()  # a no-op sync makes no commit
    before = tip_files(team.team)
    assert laptop.sync()["remotes"][0]["pushed"] in (False, 0)
    assert tip_files(team.team) == before
    blobs = b"\n".join(raw for _kind, raw in every_object(team.team))
    for title, body, tag in secretish:
        for text in (title, body, f"- {tag}", "merchant_id", "lb-internal-7"):
            assert text.encode() not in blobs, text
