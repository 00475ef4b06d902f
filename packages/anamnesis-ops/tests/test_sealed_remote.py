"""An encrypted remote end to end in ops: real stores, real bare remotes made with dulwich,
the one sync cycle. What the remote holds is ciphertext, a sync with nothing changed
makes no commit, a machine whose key is not a recipient gets the clear error, imports
nothing and loses nothing, and reads everything once a member adds it; conflicts still
resolve keep-both."""

from __future__ import annotations

from pathlib import Path

import pytest
from anamnesis_testsupport.repos import bare_remote, commit_messages, every_object, tip, tip_files

from anamnesis.ops import (
    CodecError,
    Home,
    RemoteSpec,
    add_member,
    add_remote,
    membership,
    run_sync,
)
from anamnesis.ops.remotes import export_record
from anamnesis.ops.remotes.sealing.recipients import RECIPIENTS_FILE, parse_recipients
from anamnesis.store import Memory, write_config
from anamnesis.sync import CONFLICT_TAG

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape
WORDS = ("Zanzibar", "quokka", "marmalade-deploy", "port 48213", "acme-web")


def assert_no_plaintext(remote: Path, *texts: str) -> None:
    objects = [data for _kind, data in every_object(remote)]  # what the host can read
    assert objects
    for text in texts:
        for data in objects:
            assert text.encode().lower() not in data.lower(), (text, data[:200])


def machine(tmp_path: Path, name: str) -> Home:
    root = tmp_path / name
    write_config({"machine_id": name}, root)
    return Home(root)


def team_spec(remote: Path) -> RemoteSpec:
    return RemoteSpec("team", str(remote), projects=("acme*",), encrypt=True)


def write(home: Home, title: str, body: str) -> Memory:
    with home.open_store() as store:
        return store.write(
            type="semantic", title=title, body=body, project="acme-web", tags=["quokka"]
        )


def sync(home: Home) -> dict[str, object]:
    with home.open_store() as store:
        report = run_sync(home, store)
    (team,) = [named.as_dict() for named in report.remotes]
    return team


def titles(home: Home) -> set[str]:
    with home.open_store() as store:
        return {note.title for note in store.list()}


def test_the_remote_holds_only_ciphertext_and_a_noop_sync_commits_nothing(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice = machine(tmp_path, "alice")
    add_remote(alice, team_spec(remote))
    founded = tip_files(remote)  # remote add --encrypt set it up and pushed it
    assert list(founded) == [RECIPIENTS_FILE]
    recipients = parse_recipients(founded[RECIPIENTS_FILE])
    assert [(r.key, r.label) for r in recipients] == [(membership(alice, team_spec(remote))
                                                       .public_key, "alice")]  # fmt: skip
    notes = [
        write(alice, "Zanzibar rollout", "The marmalade-deploy runs on port 48213."),
        write(alice, "Second note", f"Token {SECRET} for the quokka service."),
    ]
    first = sync(alice)
    assert first["pushed"] is True and first["remote_error"] is None, first
    assert first["encrypted"] is True
    tree = tip_files(remote)
    assert sorted(tree) == sorted(
        [RECIPIENTS_FILE] + [f"semantic/{note.id}.md.age" for note in notes]
    )
    for path, data in tree.items():
        if path != RECIPIENTS_FILE:
            assert data.startswith(b"age-encryption.org/v1\n")
    assert_no_plaintext(remote, *WORDS, "Second note", SECRET, "ghp_", "semantic:", "title:")
    messages = commit_messages(remote)  # commit messages name no note
    assert not any("Zanzibar" in m or "Second" in m for m in messages), messages
    # memory/ keeps plain markdown
    with alice.open_store() as store:
        assert "marmalade-deploy" in (alice.memory_dir / store.file_of(notes[0].id)).read_text()

    before = tip(remote)
    again = sync(alice)
    assert again["remote_error"] is None
    assert tip(remote) == before  # nothing changed: no commit, nothing pushed
    mirror = alice.layout.mirror_dir("team")
    assert tip(mirror) == before

    # an edit seals that one note again, and only it
    with alice.open_store() as store:
        store.update(notes[0].id, body="The marmalade-deploy runs on port 48214.")
    sync(alice)
    after = tip_files(remote)
    changed = {path for path in tree if tree[path] != after[path]}
    assert changed == {f"semantic/{notes[0].id}.md.age"}


def test_a_machine_that_is_not_a_recipient_gets_the_clear_error_and_loses_nothing(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice, bob = machine(tmp_path, "alice"), machine(tmp_path, "bob")
    add_remote(alice, team_spec(remote))
    shared = write(alice, "Zanzibar rollout", "The marmalade-deploy runs on port 48213.")
    assert sync(alice)["pushed"] is True

    add_remote(bob, team_spec(remote))  # joins: the remote's recipients stay as they are
    joined = membership(bob, team_spec(remote))
    assert not joined.member
    assert "anamnesis remote add-recipient team " + joined.public_key in joined.advice()
    own = write(bob, "Bob's acme note", "Bob wrote this about acme.")
    before = tip(remote)

    refused = sync(bob)

    error = str(refused["remote_error"])
    assert joined.public_key in error
    assert f"`anamnesis remote add-recipient team {joined.public_key}`" in error
    assert "not one of its recipients" in error
    assert tip(remote) == before  # pushed nothing
    assert titles(bob) == {"Bob's acme note"}  # imported nothing, lost nothing
    with bob.open_store() as store:
        assert store.get(own.id).body.strip() == "Bob wrote this about acme."
    assert sync(bob)["remote_error"]  # again: the same, still nothing lost
    assert titles(bob) == {"Bob's acme note"}

    added = add_member(alice, "team", joined.public_key, "bob-laptop")
    assert added.resealed == 1 and added.pushed and added.unreadable == ()
    assert [r.label for r in added.recipients] == ["alice", "bob-laptop"]
    assert_no_plaintext(remote, *WORDS)

    let_in = sync(bob)  # one sync: reads everything, and sends its own note at once
    assert let_in["remote_error"] is None, let_in
    assert titles(bob) == {"Bob's acme note", "Zanzibar rollout"}
    with bob.open_store() as store:
        assert "48213" in store.get(shared.id).body
    assert f"semantic/{own.id}.md.age" in tip_files(remote)
    assert_no_plaintext(remote, "Bob wrote this", "Bob's acme note")
    assert sync(alice)["remote_error"] is None
    assert titles(alice) == {"Bob's acme note", "Zanzibar rollout"}
    # and both are no-ops now
    settled = tip(remote)
    sync(alice), sync(bob)
    assert tip(remote) == settled


def test_a_machine_added_before_it_joins_reads_everything_at_its_first_sync(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice, bob = machine(tmp_path, "alice"), machine(tmp_path, "bob")
    add_remote(alice, team_spec(remote))
    write(alice, "Zanzibar rollout", "The marmalade-deploy runs on port 48213.")
    sync(alice)
    bob_key = membership(bob, team_spec(remote)).public_key  # `remote key`, sent to Alice
    add_member(alice, "team", bob_key, "bob")
    add_remote(bob, team_spec(remote))  # its set-up pulls the mirror: nothing imported yet
    assert membership(bob, team_spec(remote)).member
    assert titles(bob) == set()
    first = sync(bob)
    assert first["remote_error"] is None, first
    assert titles(bob) == {"Zanzibar rollout"}


def test_a_note_sealed_before_a_member_was_added_is_sealed_again_by_its_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The export record trusts a file's stat at once (not only 2 s after it was written):
    # so that this test sees its notes skipped unless the new recipients void the record.
    monkeypatch.setattr(export_record, "_RACY_NS", 0)
    remote = bare_remote(tmp_path / "team.git")
    alice, carol, bob = (machine(tmp_path, name) for name in ("alice", "carol", "bob"))
    add_remote(alice, team_spec(remote))
    add_remote(carol, team_spec(remote))
    add_member(alice, "team", membership(carol, team_spec(remote)).public_key, "carol")
    sync(carol)
    assert sync(carol)["remote_error"] is None
    add_remote(bob, team_spec(remote))
    add_member(alice, "team", membership(bob, team_spec(remote)).public_key, "bob")
    # Carol has not pulled that yet: her note is sealed to Alice and herself only.
    late = write(carol, "Carol's late note", "written before she saw Bob added")
    assert sync(carol)["remote_error"] is None

    early = sync(bob)
    assert "sealed before this machine was added" in str(early["remote_error"])
    assert "Carol's late note" not in titles(bob)

    assert sync(carol)["remote_error"] is None  # her next sync seals it for Bob too
    assert sync(bob)["remote_error"] is None
    assert "Carol's late note" in titles(bob)
    with bob.open_store() as store:
        assert "before she saw Bob" in store.get(late.id).body


def test_what_a_pull_left_in_the_mirror_unimported_is_imported_next_time(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice, bob = machine(tmp_path, "alice"), machine(tmp_path, "bob")
    plain = RemoteSpec("team", str(remote), projects=("acme*",))
    add_remote(alice, plain)
    add_remote(bob, plain)
    write(alice, "Zanzibar rollout", "The marmalade-deploy runs on port 48213.")
    sync(alice)
    bob.mirror_backend(plain).sync()  # a sync cut short after its pull, before its import
    assert titles(bob) == set()
    assert sync(bob)["remote_error"] is None
    assert titles(bob) == {"Zanzibar rollout"}


def test_a_conflict_on_an_encrypted_remote_resolves_keep_both(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice, bob = machine(tmp_path, "alice"), machine(tmp_path, "bob")
    add_remote(alice, team_spec(remote))
    add_remote(bob, team_spec(remote))
    add_member(alice, "team", membership(bob, team_spec(remote)).public_key, "bob")
    note = write(alice, "Dev server port", "Port 8080.")
    sync(alice), sync(bob)
    with alice.open_store() as store:
        store.update(note.id, body="Port 9090.")
    with bob.open_store() as store:
        store.update(note.id, body="Port 7070.")
    assert sync(alice)["pushed"] is True
    conflicted = sync(bob)
    assert conflicted["conflicted"] is True
    assert conflicted["conflicts"] == [f"semantic/{note.id}.md"]  # as a note path

    with bob.open_store() as store:
        report = run_sync(bob, store, resolve="keep-both")
    assert [named.as_dict()["remote_error"] for named in report.remotes] == [None]
    sync(alice)
    for home in (alice, bob):
        with home.open_store() as store:
            listed = store.list()
            assert sorted(n.body.strip() for n in listed) == ["Port 7070.", "Port 9090."]
            assert all(CONFLICT_TAG in n.tags for n in listed)
    assert_no_plaintext(remote, "Port 7070", "Port 9090", "Dev server port")
    assert all(path == RECIPIENTS_FILE or path.endswith(".md.age") for path in tip_files(remote))


def test_a_damaged_file_on_the_remote_is_reported_and_the_rest_imported(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice, bob = machine(tmp_path, "alice"), machine(tmp_path, "bob")
    add_remote(alice, team_spec(remote))
    add_remote(bob, team_spec(remote))
    add_member(alice, "team", membership(bob, team_spec(remote)).public_key, "bob")
    good = write(alice, "Readable", "This one opens.")
    sync(alice)
    damaged = alice.layout.mirror_dir("team") / "semantic" / "01J9ZQ4W5X6Y7Z8A9B0C1D2E3F.md.age"
    damaged.write_bytes(b"age-encryption.org/v1\n-> X25519 garbage\n")
    with alice.open_store() as store:  # pushed as another program would have
        alice.mirror_backend(team_spec(remote)).sync()
        del store

    pulled = sync(bob)

    assert "01J9ZQ4W5X6Y7Z8A9B0C1D2E3F.md.age on remote team" in str(pulled["remote_error"])
    assert titles(bob) == {"Readable"}
    with bob.open_store() as store:
        assert store.get(good.id).body.strip() == "This one opens."


def test_an_encrypted_remote_that_cannot_be_reached_is_not_added(tmp_path: Path) -> None:
    alice = machine(tmp_path, "alice")
    with pytest.raises(CodecError, match="could not be reached"):
        add_remote(alice, team_spec(tmp_path / "nowhere.git"))
    assert alice.config().get("remotes") is None


def test_a_remote_holding_notes_in_the_clear_is_not_made_encrypted(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "team.git")
    alice = machine(tmp_path, "alice")
    add_remote(alice, RemoteSpec("plain", str(remote), projects=("acme*",)))
    write(alice, "Zanzibar rollout", "in the clear")
    with alice.open_store() as store:
        run_sync(alice, store)
    carol = machine(tmp_path, "carol")
    with pytest.raises(CodecError, match="not an encrypted Anamnesis remote"):
        add_remote(carol, team_spec(remote))
    assert carol.config().get("remotes") is None
