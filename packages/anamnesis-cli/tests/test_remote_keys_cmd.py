"""Encrypted remotes through the CLI, as real processes over real bare remotes (dulwich):
`remote key`, `remote add --encrypt`, `sync` pushing ciphertext only and no commit when
nothing changed, a teammate whose key is not a recipient told what to run and losing
nothing, `remote add-recipient` letting it read everything."""

from __future__ import annotations

import stat
from pathlib import Path

from anamnesis_testsupport.repos import bare_remote, every_object, tip

from cli_testing import Env

TEXTS = ("Zanzibar", "marmalade", "48213", "quokka", "acme-web", "title:")


def machine(tmp_path: Path, name: str) -> Env:
    env = Env.make(tmp_path, name)
    assert env.run("init", "--yes", "--local-only").code == 0
    return env


def titles(env: Env) -> set[str]:
    listed = env.run("list", "--json")
    assert listed.code == 0, listed.err
    return {note["title"] for note in listed.json()}


def test_an_encrypted_team_remote_through_the_cli(tmp_path: Path) -> None:
    team = bare_remote(tmp_path / "team.git")
    alice, bob = machine(tmp_path, "alice"), machine(tmp_path, "bob")

    key = alice.run_process("remote", "key")
    assert key.code == 0, key.err
    alice_key = key.out.strip()
    assert alice_key.startswith("age1") and len(alice_key) == 62
    identity = alice.home / "keys" / "age.key"
    assert stat.S_IMODE(identity.stat().st_mode) == 0o600
    assert alice.run_process("remote", "key", "--json").json() == {
        "public_key": alice_key, "path": str(identity)
    }  # fmt: skip

    added = alice.run_process("remote", "add", "team", str(team), "--projects", "acme*",
                              "--encrypt")  # fmt: skip
    assert added.code == 0, added.err
    assert "encrypted (age) to 1 key(s)" in added.out and alice_key in added.out
    for title, body in (("Zanzibar rollout", "marmalade deploy on port 48213"),
                        ("Quokka cache", "the quokka cache is warm")):  # fmt: skip
        made = alice.run("write", "--title", title, body, "--project", "acme-web",
                         "--tag", "quokka")  # fmt: skip
        assert made.code == 0, made.err
    pushed = alice.run_process("sync", "--json")
    assert pushed.code == 0, pushed.err
    (remote,) = pushed.json()["remotes"]
    assert (remote["name"], remote["pushed"], remote["encrypted"]) == ("team", True, True)
    for _kind, data in every_object(team):
        for text in TEXTS:
            assert text.lower().encode() not in data.lower(), (text, data[:120])

    settled = tip(team)
    again = alice.run_process("sync", "--json")
    assert again.code == 0, again.err
    assert tip(team) == settled  # nothing changed: no commit

    joined = bob.run_process("remote", "add", "team", str(team), "--projects", "acme*",
                             "--encrypt")  # fmt: skip
    assert joined.code == 0, joined.err
    bob_key = bob.run_process("remote", "key").out.strip()
    assert f"`anamnesis remote add-recipient team {bob_key}`" in joined.err
    own = bob.run("write", "--title", "Bob's acme note", "bob's words", "--project", "acme-web")
    assert own.code == 0
    refused = bob.run_process("sync", "--json")
    assert refused.code == 1
    (remote,) = refused.json()["remotes"]
    assert bob_key in remote["remote_error"]
    assert f"`anamnesis remote add-recipient team {bob_key}`" in refused.err
    assert "Traceback" not in refused.err
    assert titles(bob) == {"Bob's acme note"}  # imported nothing, lost nothing
    assert tip(team) == settled  # pushed nothing
    checks = {c["name"]: c for c in bob.run("doctor", "--json").json()["checks"]}
    assert "team: encrypted, and this machine's key is not one of" in checks["sync"]["detail"]
    assert f"anamnesis remote add-recipient team {bob_key}" in checks["sync"]["fix"]

    letting = alice.run_process("remote", "add-recipient", "team", bob_key, "--label",
                                "bob-laptop")  # fmt: skip
    assert letting.code == 0, letting.err
    assert "2 note(s) sealed again" in letting.out and "pushed" in letting.out
    recipients = (alice.home / "remotes" / "team" / ".anamnesis" / "recipients").read_text()
    assert f"# bob-laptop\n{bob_key}\n" in recipients

    reads = bob.run_process("sync", "--json")
    assert reads.code == 0, reads.err
    assert titles(bob) == {"Bob's acme note", "Zanzibar rollout", "Quokka cache"}
    assert alice.run_process("sync").code == 0
    assert "Bob's acme note" in titles(alice)
    checks = {c["name"]: c for c in bob.run("doctor", "--json").json()["checks"]}
    assert "team: encrypted to 2 key(s), this one among them" in checks["sync"]["detail"]
    for _kind, data in every_object(team):
        assert b"bob's words" not in data.lower()


def test_add_recipient_refuses_what_it_cannot_use(tmp_path: Path) -> None:
    team, plain = bare_remote(tmp_path / "team.git"), bare_remote(tmp_path / "plain.git")
    alice = machine(tmp_path, "alice")
    assert alice.run("remote", "add", "team", str(team), "--tags", "t", "--encrypt").code == 0
    assert alice.run("remote", "add", "plain", str(plain), "--tags", "p").code == 0
    before = (alice.home / "remotes" / "team" / ".anamnesis" / "recipients").read_bytes()
    secret = next(
        line for line in (alice.home / "keys" / "age.key").read_text().splitlines()
        if line.startswith("AGE-SECRET-KEY-")
    )  # fmt: skip
    for args, why in (
        (("team", "age1notakey"), "not an age public key"),
        (("team", secret), "SECRET key"),
        (("plain", alice.run("remote", "key").out.strip()), "not encrypted"),
        (("nosuch", alice.run("remote", "key").out.strip()), "no remote named"),
    ):
        refused = alice.run_process("remote", "add-recipient", *args)
        assert refused.code == 2, (args, refused.out, refused.err)
        assert why in refused.err
        assert secret not in refused.err + refused.out
    after = (alice.home / "remotes" / "team" / ".anamnesis" / "recipients").read_bytes()
    assert after == before


def test_an_encrypted_remote_that_cannot_be_reached_is_not_added(tmp_path: Path) -> None:
    alice = machine(tmp_path, "alice")
    failed = alice.run_process("remote", "add", "team", str(tmp_path / "gone.git"),
                               "--tags", "t", "--encrypt")  # fmt: skip
    assert failed.code == 1
    assert "could not be reached" in failed.err and "was not added" in failed.err
    assert "Traceback" not in failed.err
    assert alice.run("remote", "list", "--json").json() == []
    assert (alice.home / "keys" / "age.key").is_file()  # its key is ready to be given
