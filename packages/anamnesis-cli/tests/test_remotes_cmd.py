"""Several remotes through the CLI: `remote add/list/remove/check`, `share`, and `sync`
routing each note to one remote (real bare remotes made with dulwich, real stores)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from anamnesis_testsupport.repos import bare_remote, commit_messages, tip_files, tip_paths

from cli_testing import Env
from tty_testing import on_terminal

# A status line: its label (``by scope:``, a remote's name) and the spaces after it.
LABELLED = re.compile(r"([a-z][a-z0-9 -]*): +(?=\S)")


def machine(tmp_path: Path, name: str, personal: Path | None) -> Env:
    env = Env.make(tmp_path, name)
    if personal is None:
        assert env.run("init", "--yes", "--local-only").code == 0
    else:
        assert env.run("init", "--yes", "--remote", str(personal)).code == 0
    return env


def write(env: Env, title: str, *args: str) -> str:
    made = env.run("write", "--title", title, f"{title} body", *args, "--json")
    assert made.code == 0, made.err
    return str(made.json()["id"])


def note_files(remote: Path) -> set[str]:
    """The ids of the notes at the tip of a bare remote (none before its first push)."""
    paths = tip_files(remote, none_pushed_ok=True)
    return {path.rsplit("/", 1)[-1].removesuffix(".md") for path in paths if path.endswith(".md")}


def test_rules_route_first_match_and_the_default_takes_the_rest(tmp_path: Path) -> None:
    personal, team, lab = (bare_remote(tmp_path / f"{n}.git") for n in ("me", "team", "lab"))
    laptop = machine(tmp_path, "laptop", personal)
    add = laptop.run("remote", "add", "team", str(team), "--projects", "acme/*")
    assert add.code == 0, add.err
    # A later rule that also matches acme notes never takes them: first match wins.
    assert laptop.run("remote", "add", "lab", str(lab), "--tags", "lab").code == 0
    acme = write(laptop, "Acme deploys", "--project", "acme/web", "--tag", "lab")
    tagged = write(laptop, "Lab bench", "--tag", "lab")
    mine = write(laptop, "My editor")
    local = write(laptop, "This laptop's GPU", "--scope", "machine-local")
    synced = laptop.run("sync", "--json")
    assert synced.code == 0, synced.err
    data = synced.json()
    assert data["pushed"] is True
    assert [(r["name"], r["pushed"], r["remote_error"]) for r in data["remotes"]] == [
        ("team", True, None), ("lab", True, None)
    ]  # fmt: skip
    assert note_files(team) == {acme}
    assert note_files(lab) == {tagged}
    assert note_files(personal) == {mine}
    for remote in (personal, team, lab):  # machine-local notes go nowhere
        pushed = tip_files(remote, none_pushed_ok=True).values()
        assert not any(local.encode() in blob for blob in pushed)
    listed = laptop.run("remote", "list", "--json").json()
    assert [(r["name"], r["pinned"]) for r in listed] == [("default", 1), ("team", 1), ("lab", 1)]
    table = laptop.run("remote", "list")
    assert table.code == 0 and "team" in table.out and "acme/*" in table.out


def test_with_no_default_remote_the_rest_stays_local(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", None)
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme*").code == 0
    acme = write(laptop, "Acme", "--project", "acme")
    mine = write(laptop, "Mine")
    synced = laptop.run("sync", "--json")
    assert synced.code == 0, synced.err
    assert note_files(team) == {acme}
    # The rest is committed in memory/.git as before, never pushed anywhere.
    paths = tip_paths(laptop.home / "memory")
    assert any(mine in path for path in paths) and not any(acme in path for path in paths)


def test_a_note_pulled_from_the_team_stays_there_when_edited(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    alice_own, bob_own = bare_remote(tmp_path / "alice.git"), bare_remote(tmp_path / "bob.git")
    alice, bob = machine(tmp_path, "alice", alice_own), machine(tmp_path, "bob", bob_own)
    assert alice.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    # Bob's rule would not take the note (another project pattern): the pin does.
    assert bob.run("remote", "add", "team", str(team), "--projects", "other").code == 0
    shared = write(alice, "Acme port", "--project", "acme")
    assert alice.run("sync").code == 0
    pulled = bob.run("sync", "--json")
    assert pulled.code == 0, pulled.err
    assert bob.run("show", shared, "--json").json()["title"] == "Acme port"
    path = Path(bob.run("show", shared, "--json").json()["path"])
    path.write_text(path.read_text().replace("Acme port body", "the port is 9090"))
    assert bob.run("sync").code == 0
    assert b"the port is 9090" in tip_files(team)[next(p for p in tip_files(team) if shared in p)]
    assert note_files(bob_own) == set()  # never reached Bob's personal remote
    assert alice.run("sync").code == 0
    assert "9090" in alice.run("show", shared, "--json").json()["body"]


def test_one_remote_failing_never_stops_another(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    gone = tmp_path / "gone.git"
    assert laptop.run("remote", "add", "lost", str(gone), "--tags", "lost").code == 0
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    lost = write(laptop, "Lost", "--tag", "lost")
    acme = write(laptop, "Acme", "--project", "acme")
    mine = write(laptop, "Mine")
    synced = laptop.run_process("sync", "--json")
    assert synced.code == 1
    remotes = {r["name"]: r for r in synced.json()["remotes"]}
    assert remotes["lost"]["remote_error"] and "gone.git" in remotes["lost"]["remote_error"]
    assert remotes["team"]["pushed"] is True and remotes["team"]["remote_error"] is None
    assert synced.json()["pushed"] is True  # the default remote too
    assert note_files(team) == {acme} and note_files(personal) == {mine}
    assert lost not in note_files(personal)
    assert "gone.git" in synced.err and "Traceback" not in synced.err
    human = laptop.run("sync")
    assert human.code == 1 and "team: " in human.out
    assert human.err_lines[-1].startswith("anamnesis sync: lost: ") and "gone.git" in human.err


def test_share_moves_a_note_with_a_tombstone(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    desktop = machine(tmp_path, "desktop", personal)  # the same person: both remotes
    phone = machine(tmp_path, "phone", personal)  # this one never joins the team
    for env in (laptop, desktop):
        assert env.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    note = write(laptop, "Deploy checklist")
    for env in (laptop, desktop, phone):
        assert env.run("sync").code == 0, env.name if hasattr(env, "name") else ""
    assert note_files(personal) == {note}
    moved = laptop.run("share", note, "--to", "team", "--json")
    assert moved.code == 0, moved.err
    assert moved.json()["from"] == "default" and moved.json()["to"] == "team"
    assert laptop.run("sync").code == 0
    # The personal remote's tree no longer has the note, and has its tombstone.
    tree = tip_files(personal)
    assert note not in note_files(personal)
    assert tree[f".anamnesis/moved/{note}"].startswith(b"moved-to: team\n")
    assert any(m.startswith(f"anamnesis: moved {note} to team") for m in commit_messages(personal))
    assert note_files(team) == {note}
    # The desktop has the team remote: it re-pins the note there and keeps it.
    assert desktop.run("sync").code == 0
    assert desktop.run("show", note, "--json").code == 0
    routes = json.loads((desktop.home / "remotes" / "routes.json").read_text())
    assert [name for rel, name in routes.items() if note in rel] == ["team"]
    # The phone has no access to the team: its copy is deleted.
    assert phone.run("sync").code == 0
    assert phone.run("show", note, "--json").code != 0
    # Edited on the desktop, it goes to the team, never back to the personal remote.
    path = Path(desktop.run("show", note, "--json").json()["path"])
    path.write_text(path.read_text().replace("Deploy checklist body", "step one: tag"))
    assert desktop.run("sync").code == 0
    assert note not in note_files(personal)
    assert any(b"step one: tag" in blob for blob in tip_files(team).values())


def test_remote_check_lists_then_apply_moves(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    acme = write(laptop, "Acme", "--project", "acme")
    other = write(laptop, "Other")
    assert laptop.run("sync").code == 0
    # A rule added later never moves a note by itself.
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    assert laptop.run("sync").code == 0
    assert note_files(personal) == {acme, other} and note_files(team) == set()
    listed = laptop.run("remote", "check", "--json")
    assert listed.code == 0, listed.err
    assert [(m["id"], m["from"], m["to"]) for m in listed.json()["moves"]] == [
        (acme, "default", "team")
    ]
    assert note_files(personal) == {acme, other}  # listing moved nothing
    applied = laptop.run("remote", "check", "--apply")
    assert applied.code == 0, applied.err
    assert laptop.run("sync").code == 0
    assert note_files(personal) == {other} and note_files(team) == {acme}
    assert f".anamnesis/moved/{acme}" in tip_files(personal)
    assert laptop.run("remote", "check", "--json").json()["moves"] == []


def test_remote_remove_keeps_the_mirror_folder_aside(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    write(laptop, "Acme", "--project", "acme")
    assert laptop.run("sync").code == 0
    removed = laptop.run("remote", "remove", "team")
    assert removed.code == 0, removed.err
    kept = [p.name for p in (laptop.home / "remotes").iterdir() if p.name.startswith("team.")]
    assert any(name.startswith("team.removed-") for name in kept)
    assert laptop.run("remote", "list", "--json").json()[0]["name"] == "default"
    assert laptop.run("remote", "remove", "team").code == 2
    bad = laptop.run("remote", "add", "default", str(team))
    assert bad.code == 2 and "default" in bad.err


def test_status_and_doctor_show_each_remote(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    assert laptop.run("remote", "add", "lost", str(tmp_path / "gone.git"), "--tags", "x").code == 0
    write(laptop, "Acme", "--project", "acme")
    laptop.run("sync")
    status = laptop.run("status", "--json").json()
    assert [r["name"] for r in status["remotes"]] == ["default", "team", "lost"]
    assert status["remotes"][1]["initialized"] is True
    text = laptop.run("status").out
    assert "team: " in text and "lost: " in text
    checks = {c["name"]: c for c in laptop.run("doctor", "--json").json()["checks"]}
    remote, sync = checks["remote"], checks["sync"]
    assert remote["status"] == "fail" and "lost: " in remote["detail"], remote
    assert "team: " in remote["detail"] and "answers" in remote["detail"]
    assert "team: " in sync["detail"] and "lost: " in sync["detail"], sync


def test_status_lines_up_the_named_remotes_with_the_other_labels(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    partners = bare_remote(tmp_path / "partners.git")
    laptop = machine(tmp_path, "laptop", personal)
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    longer = "partners-of-acme"  # a name longer than every other label: all of them widen
    assert laptop.run("remote", "add", longer, str(partners), "--tags", "partner").code == 0
    write(laptop, "Acme", "--project", "acme")
    assert laptop.run("sync").code == 0
    piped = laptop.run("status").out.splitlines()  # nothing wraps: every line whole
    starts = {m.group(1): m.end() for line in piped if (m := LABELLED.match(line))}
    assert {"store", "notes", "by scope", "remote", "sync", "team", longer} <= set(starts)
    assert set(starts.values()) == {len(longer) + 2}, starts  # every value in one column
    # On a terminal 80 wide, a value that wraps goes on in that column too.
    shown = on_terminal(laptop, "status", columns=80)
    assert shown.code == 0, shown.err
    goes_on = [line for line in shown.lines if line.startswith(" ")]
    assert goes_on, shown.text  # the search line at least wraps at 80
    assert {len(line) - len(line.lstrip()) for line in goes_on} == {len(longer) + 2}, shown.text


def test_a_conflict_on_a_named_remote_is_settled_keeping_both(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    alice_own, bob_own = bare_remote(tmp_path / "alice.git"), bare_remote(tmp_path / "bob.git")
    alice, bob = machine(tmp_path, "alice", alice_own), machine(tmp_path, "bob", bob_own)
    for env in (alice, bob):
        assert env.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    note = write(alice, "Port", "--project", "acme")
    assert alice.run("sync").code == 0 and bob.run("sync").code == 0
    for env, port in ((alice, "9090"), (bob, "7070")):
        path = Path(env.run("show", note, "--json").json()["path"])
        path.write_text(path.read_text().replace("Port body", port))
    assert alice.run("sync").code == 0
    conflict = bob.run("sync", "--json")
    assert conflict.code == 1 and "--resolve keep-both" in conflict.err
    [named] = conflict.json()["remotes"]
    assert named["conflicted"] is True and any(note in path for path in named["conflicts"])
    resolved = bob.run("sync", "--resolve", "keep-both", "--json")
    assert resolved.code == 0, resolved.err
    assert alice.run("sync").code == 0
    for env in (alice, bob):
        found = env.run("search", "Port", "-k", "5", "--json").json()
        bodies = sorted(n["body"].strip() for n in found)
        assert bodies == ["7070", "9090"], bodies
    assert len(note_files(team)) == 2
    assert note_files(alice_own) == set() and note_files(bob_own) == set()


def test_a_note_shared_back_to_a_personal_remote_leaves_the_team(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    alice_own, bob_own = bare_remote(tmp_path / "alice.git"), bare_remote(tmp_path / "bob.git")
    alice = machine(tmp_path, "alice", alice_own)
    alice2 = machine(tmp_path, "alice2", alice_own)  # Alice's second machine
    bob = machine(tmp_path, "bob", bob_own)
    for env in (alice, alice2, bob):
        assert env.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    note = write(alice, "Acme salary bands", "--project", "acme")
    for env in (alice, alice2, bob):
        assert env.run("sync").code == 0
    assert bob.run("show", note, "--json").code == 0
    assert alice.run("share", note, "--to", "default").code == 0
    assert alice.run("sync").code == 0
    assert note_files(team) == set() and note_files(alice_own) == {note}
    stone = tip_files(team)[f".anamnesis/moved/{note}"]
    assert b"moved-to: default\n" in stone and b"remote: " in stone
    assert bob.run("sync").code == 0  # Bob's default is his own: he has no access
    assert bob.run("show", note, "--json").code != 0
    assert note_files(bob_own) == set()
    assert alice2.run("sync").code == 0  # the same default remote: kept, re-pinned
    assert alice2.run("show", note, "--json").code == 0
    routes = json.loads((alice2.home / "remotes" / "routes.json").read_text())
    assert [name for rel, name in routes.items() if note in rel] == ["default"]
    assert alice2.run("sync", "--json").json()["conflicted"] is False


def test_config_list_hides_a_named_remotes_password(tmp_path: Path) -> None:
    laptop = machine(tmp_path, "laptop", None)
    url = "https://alice:hunter2@git.example.com/team.git"
    assert laptop.run("remote", "add", "team", url, "--projects", "acme").code == 0
    for shown in (laptop.run("config", "list"), laptop.run("remote", "list", "--json")):
        assert shown.code == 0 and "hunter2" not in shown.out and "git.example.com" in shown.out


def test_a_note_deleted_here_is_deleted_on_its_named_remote_and_there(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    alice_own, bob_own = bare_remote(tmp_path / "alice.git"), bare_remote(tmp_path / "bob.git")
    alice, bob = machine(tmp_path, "alice", alice_own), machine(tmp_path, "bob", bob_own)
    for env in (alice, bob):
        assert env.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    note = write(alice, "Old runbook", "--project", "acme")
    assert alice.run("sync").code == 0 and bob.run("sync").code == 0
    deleted = alice.run("delete", note, "--yes")
    assert deleted.code == 0, deleted.err
    assert alice.run("sync").code == 0
    assert note_files(team) == set()
    assert bob.run("sync").code == 0
    assert bob.run("show", note, "--json").code != 0
    routes = json.loads((alice.home / "remotes" / "routes.json").read_text())
    assert not any(note in rel for rel in routes)  # no pin left behind


def test_clean_never_sends_a_deletion_to_a_named_remote(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    assert laptop.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    acme = write(laptop, "Acme", "--project", "acme")
    mine = write(laptop, "Mine")
    assert laptop.run("sync").code == 0
    for everywhere in ((), ("--everywhere",)):
        cleaned = laptop.run("clean", "memory", "--yes", *everywhere)
        assert cleaned.code == 0, cleaned.err
        assert laptop.run("sync").code == 0
        assert note_files(team) == {acme}  # the team's notes stay the team's
        assert laptop.run("show", acme, "--json").code == 0  # pulled back from the team
    assert mine not in note_files(personal)  # --everywhere: deleted on the default remote


def test_a_note_moved_between_named_remotes_follows_its_tombstone(tmp_path: Path) -> None:
    team, lab = bare_remote(tmp_path / "team.git"), bare_remote(tmp_path / "lab.git")
    ann, ben, cid = (machine(tmp_path, name, None) for name in ("ann", "ben", "cid"))
    for env in (ann, ben, cid):
        assert env.run("remote", "add", "team", str(team), "--projects", "acme").code == 0
    for env in (ann, ben):  # cid is not in the lab
        assert env.run("remote", "add", "lab", str(lab), "--tags", "lab").code == 0
    note = write(ann, "Prototype", "--project", "acme")
    for env in (ann, ben, cid):
        assert env.run("sync").code == 0
    assert ann.run("share", note, "--to", "lab").code == 0
    assert ann.run("sync").code == 0
    assert note_files(team) == set() and note_files(lab) == {note}
    assert tip_files(team)[f".anamnesis/moved/{note}"].startswith(b"moved-to: lab\n")
    assert any(m.startswith(f"anamnesis: moved {note} to lab") for m in commit_messages(team))
    for env in (ben, cid):
        assert env.run("sync").code == 0
    assert ben.run("show", note, "--json").code == 0  # has the lab: kept, re-pinned
    routes = json.loads((ben.home / "remotes" / "routes.json").read_text())
    assert [name for rel, name in routes.items() if note in rel] == ["lab"]
    assert cid.run("show", note, "--json").code != 0  # no access to the lab: gone
    assert ben.run("sync").code == 0 and note_files(team) == set()


def test_share_refuses_a_machine_local_note_and_an_unknown_remote(tmp_path: Path) -> None:
    personal, team = bare_remote(tmp_path / "me.git"), bare_remote(tmp_path / "team.git")
    laptop = machine(tmp_path, "laptop", personal)
    assert laptop.run("remote", "add", "team", str(team)).code == 0  # no rule: shared only
    local = write(laptop, "GPU", "--scope", "machine-local")
    refused = laptop.run("share", local, "--to", "team")
    assert refused.code == 2 and "machine-local" in refused.err
    portable = write(laptop, "Runbook")
    unknown = laptop.run("share", portable, "--to", "nowhere")
    assert unknown.code == 2 and "nowhere" in unknown.err and "team" in unknown.err
    assert laptop.run("sync").code == 0
    assert note_files(team) == set() and note_files(personal) == {portable}
    assert laptop.run("share", portable, "--to", "team").code == 0  # a rule-less remote
    assert laptop.run("sync").code == 0
    assert note_files(team) == {portable} and note_files(personal) == set()
