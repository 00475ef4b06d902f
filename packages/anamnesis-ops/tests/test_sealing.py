"""Sealing an encrypted remote's notes with age: the machine's key, the recipients file,
the no-op manifest, the codec both ways, adding a member.

Real age (pyrage) throughout; the mirror is a plain folder here (the mirror cycle's own
tests run it over real git)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pyrage
import pytest
from pyrage import x25519

from anamnesis.ops.remotes.sealing.errors import (
    IdentityError,
    NotARecipient,
    RecipientsError,
    SealError,
    UnreadableCipher,
)
from anamnesis.ops.remotes.sealing.identity import machine_key
from anamnesis.ops.remotes.sealing.manifest import SealManifest
from anamnesis.ops.remotes.sealing.recipients import (
    RECIPIENTS_FILE,
    Recipient,
    Recipients,
    parse_recipients,
    read_recipients,
)
from anamnesis.ops.remotes.sealing.reseal import add_recipient, sealed_files
from anamnesis.ops.remotes.sealing.sealed_codec import SealedCodec
from anamnesis.store import Memory, new_id, serialize_note

NOTE_ID = "01J9ZQ4W5X6Y7Z8A9B0C1D2E3F"
REL = f"semantic/{NOTE_ID}.md"


def note_bytes(title: str = "Use WAL mode", body: str = "Set busy_timeout everywhere.") -> bytes:
    note = Memory(id=NOTE_ID, type="semantic", title=title, body=body, tags=["sqlite"])
    return serialize_note(note).encode("utf-8")


def codec_for(
    tmp_path: Path, machine: str, *, founding: bool = False, mirror: Path | None = None
) -> SealedCodec:
    """A codec of remote ``team`` as machine ``machine`` sees it (its own home)."""
    home = tmp_path / machine
    mirror = mirror if mirror is not None else tmp_path / "mirror"
    codec = SealedCodec(
        "team",
        mirror,
        key_path=home / "keys" / "age.key",
        manifest=SealManifest(home / "remotes" / "team.manifest.json"),
    )
    if founding:
        codec.founding = Recipients([Recipient(codec.key().public_key, machine)])
    return codec


def write_meta(codec: SealedCodec) -> None:
    for rel, data in codec.meta_files().items():
        (codec.mirror / rel).parent.mkdir(parents=True, exist_ok=True)
        (codec.mirror / rel).write_bytes(data)


def put(codec: SealedCodec, rel: str, plain: bytes) -> bytes:
    """Export one note into the mirror as a mirror cycle would."""
    target = codec.mirror / codec.mirror_path(rel)
    current = target.read_bytes() if target.exists() else None
    sealed = codec.encode(rel, plain, current)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(sealed)
    return sealed


# -- this machine's key ------------------------------------------------------------------


def test_the_key_is_made_once_private_and_read_back(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "age.key"
    first = machine_key(path)
    assert first.public_key.startswith("age1")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text()
    assert f"# public key: {first.public_key}" in text  # age-keygen's format
    again = machine_key(path)
    assert again.public_key == first.public_key  # never replaced
    assert "AGE-SECRET-KEY" not in repr(again)
    secret = next(line for line in text.splitlines() if line.startswith("AGE-SECRET-KEY-1"))
    sealed = pyrage.encrypt(b"x", [x25519.Recipient.from_str(first.public_key)])
    assert pyrage.decrypt(sealed, [x25519.Identity.from_str(secret)]) == b"x"


def test_no_key_is_made_when_not_asked(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "age.key"
    with pytest.raises(IdentityError, match="remote key"):
        machine_key(path, create=False)
    assert not path.exists()


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_a_key_others_can_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "age.key"
    machine_key(path)
    path.chmod(0o644)
    with pytest.raises(IdentityError, match="chmod 600"):
        machine_key(path)


def test_a_key_file_without_one_secret_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "age.key"
    path.write_text("# nothing here\n")
    path.chmod(0o600)
    with pytest.raises(IdentityError, match="holds 0"):
        machine_key(path)
    path.write_text("AGE-SECRET-KEY-1NOTAKEY\n")
    with pytest.raises(IdentityError, match="not hold a valid"):
        machine_key(path)


# -- recipients ---------------------------------------------------------------------------


def a_key() -> str:
    return str(x25519.Identity.generate().to_public())


def test_recipients_round_trip_with_labels_and_count_each_key_once() -> None:
    one, two = a_key(), a_key()
    recipients = Recipients([Recipient(one, "alice-laptop")]).adding(two, "bob")
    assert parse_recipients(recipients.render()) == recipients
    assert [(r.key, r.label) for r in recipients] == [(one, "alice-laptop"), (two, "bob")]
    assert recipients.adding(one) == recipients  # again: same set, label kept
    assert recipients.adding(one, "alice-desktop").keys == recipients.keys
    doubled = parse_recipients(f"{one}\n{two}\n{one}\n".encode())
    assert doubled.keys == (one, two)


def test_the_fingerprint_is_the_set_of_keys() -> None:
    one, two = a_key(), a_key()
    forward = Recipients([Recipient(one, "a"), Recipient(two, "b")])
    backward = Recipients([Recipient(two), Recipient(one)])
    assert forward.fingerprint() == backward.fingerprint()
    assert forward.fingerprint() != Recipients([Recipient(one)]).fingerprint()


def test_the_recipients_file_is_one_that_age_reads() -> None:
    identity = x25519.Identity.generate()
    text = Recipients([Recipient(str(identity.to_public()), "me")]).render().decode()
    keys = [
        x25519.Recipient.from_str(line)
        for line in text.splitlines()
        if line and not line.startswith("#")
    ]  # age -R's rules: keys, comments, blank lines
    assert pyrage.decrypt(pyrage.encrypt(b"x", keys), [identity]) == b"x"


@pytest.mark.parametrize(
    ("junk", "why"),
    [
        ("age1notakey", "not an age public key"),
        (
            "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
            "SECRET key",
        ),
        ("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB alice@host", "not an age public key"),
        ("<<<<<<< HEAD", "not an age public key"),
    ],
)
def test_a_recipients_file_with_a_junk_line_is_refused_naming_the_line(junk: str, why: str) -> None:
    good = a_key()
    data = f"# header\n\n# alice\n{good}\n{junk}\n".encode()
    with pytest.raises(RecipientsError, match=rf"line 5: .*{why}"):
        parse_recipients(data)


def test_a_key_with_a_broken_checksum_is_refused() -> None:
    key = a_key()
    broken = key[:-1] + ("q" if key[-1] != "q" else "p")
    with pytest.raises(RecipientsError, match="line 1"):
        parse_recipients(f"{broken}\n".encode())


def test_an_empty_recipients_file_is_refused() -> None:
    with pytest.raises(RecipientsError, match="no recipient"):
        parse_recipients(b"# only a comment\n\n")


def test_a_label_is_one_line() -> None:
    with pytest.raises(RecipientsError, match="one line"):
        Recipients([Recipient(a_key())]).adding(a_key(), "two\nlines")


def test_a_missing_recipients_file_is_none(tmp_path: Path) -> None:
    assert read_recipients(tmp_path) is None


# -- the codec ------------------------------------------------------------------------------


def test_paths_in_the_mirror() -> None:
    codec = SealedCodec("team", Path("/nowhere"), key_path=Path("/nowhere/k"),
                        manifest=SealManifest(Path("/nowhere/m.json")))  # fmt: skip
    assert codec.mirror_path(REL) == f"{REL}.age"
    assert codec.note_path(f"{REL}.age") == REL
    for other in (REL, RECIPIENTS_FILE, f"semantic/{NOTE_ID.lower()}.md.age",
                  f"nonsense/{NOTE_ID}.md.age", f"semantic/../{NOTE_ID}.md.age",
                  "semantic/use-wal-mode.md.age"):  # fmt: skip
        assert codec.note_path(other) is None, other
    with pytest.raises(SealError, match="in the clear"):
        codec.mirror_path("semantic/use-wal-mode.md")  # a title in a name is never sent


def test_a_note_round_trips_and_the_mirror_holds_no_plaintext(tmp_path: Path) -> None:
    codec = codec_for(tmp_path, "alice", founding=True)
    write_meta(codec)
    plain = note_bytes()
    sealed = put(codec, REL, plain)
    assert sealed.startswith(b"age-encryption.org/v1\n")
    for word in (b"WAL", b"busy_timeout", b"sqlite", NOTE_ID.encode()):
        assert word not in sealed
    assert codec.decode(f"{REL}.age", sealed) == plain


def test_sealing_the_same_note_again_returns_the_mirrors_bytes_themselves(
    tmp_path: Path,
) -> None:
    codec = codec_for(tmp_path, "alice", founding=True)
    write_meta(codec)
    plain = note_bytes()
    sealed = put(codec, REL, plain)
    assert codec.encode(REL, plain, sealed) is sealed
    codec.save()  # and after a restart, through the manifest on disk
    again = codec_for(tmp_path, "alice")
    assert again.encode(REL, plain, sealed) is sealed
    # age itself never repeats: without the manifest every sync would rewrite every note
    assert pyrage.encrypt(plain, again.member_recipients().age_recipients()) != sealed


def test_a_change_of_text_or_of_file_seals_anew(tmp_path: Path) -> None:
    codec = codec_for(tmp_path, "alice", founding=True)
    write_meta(codec)
    sealed = put(codec, REL, note_bytes())
    edited = note_bytes(body="Set busy_timeout to 5000 everywhere.")
    resealed = codec.encode(REL, edited, sealed)
    assert resealed != sealed
    assert codec.decode(f"{REL}.age", resealed) == edited
    # the mirror's file is not the one this machine sealed (a pull replaced it): not trusted
    other = pyrage.encrypt(note_bytes(), codec.member_recipients().age_recipients())
    assert codec.encode(REL, note_bytes(), other) != other


def test_a_lost_or_damaged_manifest_only_costs_a_reseal(tmp_path: Path) -> None:
    codec = codec_for(tmp_path, "alice", founding=True)
    write_meta(codec)
    plain = note_bytes()
    sealed = put(codec, REL, plain)
    codec.save()
    codec.manifest.path.write_text('{"semantic/x.md": [1, 2], "deep": ' + "[" * 100 + "]" * 100)
    fresh = codec_for(tmp_path, "alice")
    resealed = fresh.encode(REL, plain, sealed)
    assert resealed != sealed
    assert fresh.decode(f"{REL}.age", resealed) == plain


def test_the_manifest_is_private(tmp_path: Path) -> None:
    codec = codec_for(tmp_path, "alice", founding=True)
    write_meta(codec)
    put(codec, REL, note_bytes())
    codec.save()
    assert stat.S_IMODE(codec.manifest.path.stat().st_mode) == 0o600


def test_a_machine_that_is_not_a_recipient_reads_and_sends_nothing(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    sealed = put(alice, REL, note_bytes())
    bob = codec_for(tmp_path, "bob")
    bob_key = bob.key().public_key
    with pytest.raises(NotARecipient) as caught:
        bob.decode(f"{REL}.age", sealed)
    message = str(caught.value)
    assert bob_key in message
    assert f"`anamnesis remote add-recipient team {bob_key}`" in message
    assert "nothing is lost" in message
    assert caught.value.public_key == bob_key
    with pytest.raises(NotARecipient):
        bob.encode(REL, note_bytes(), None)
    with pytest.raises(NotARecipient):  # asked by every export, with or without notes
        bob.meta_files()
    assert len(bob.manifest) == 0


def test_a_file_sealed_before_this_machine_was_added_says_so(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    bob = codec_for(tmp_path, "bob")
    old = pyrage.encrypt(note_bytes(), alice.member_recipients().age_recipients())
    (alice.mirror / RECIPIENTS_FILE).write_bytes(
        alice.member_recipients().adding(bob.key().public_key, "bob").render()
    )
    with pytest.raises(NotARecipient, match="sealed before this machine was added"):
        bob.decode(f"{REL}.age", old)


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],
        lambda data: data[:-5] + bytes(5),
        lambda data: b"not age at all",
        lambda data: b"",
    ],
)
def test_a_damaged_file_is_an_error_not_a_note(tmp_path: Path, damage: object) -> None:
    codec = codec_for(tmp_path, "alice", founding=True)
    write_meta(codec)
    sealed = put(codec, REL, note_bytes())
    assert callable(damage)
    with pytest.raises(UnreadableCipher, match=f"{REL}.age on remote team"):
        codec.decode(f"{REL}.age", damage(sealed))


def test_an_encrypted_remote_without_recipients_sends_nothing(tmp_path: Path) -> None:
    codec = codec_for(tmp_path, "alice")
    assert codec.meta_files() == {}
    with pytest.raises(RecipientsError, match="missing"):
        codec.encode(REL, note_bytes(), None)


def test_meta_files_are_the_founding_recipients_then_the_mirrors(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    founded = alice.meta_files()[RECIPIENTS_FILE]
    assert parse_recipients(founded).keys == (alice.key().public_key,)
    handmade = founded + b"\n# note kept by hand\n"
    (alice.mirror / ".anamnesis").mkdir(parents=True)
    (alice.mirror / RECIPIENTS_FILE).write_bytes(handmade)
    assert alice.meta_files() == {RECIPIENTS_FILE: handmade}  # never rewritten


def test_a_junk_line_pulled_into_the_recipients_file_stops_the_remote(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    sealed = put(alice, REL, note_bytes())
    with (alice.mirror / RECIPIENTS_FILE).open("ab") as out:
        out.write(b"=======\n")
    with pytest.raises(RecipientsError, match="line"):
        alice.encode(REL, note_bytes(), sealed)
    with pytest.raises(RecipientsError, match="line"):
        alice.decode(f"{REL}.age", sealed)


# -- adding a member -------------------------------------------------------------------------


def test_adding_a_recipient_reseals_every_note_for_the_new_set(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    notes = {f"semantic/{new_id()}.md": note_bytes(title=f"note {n}") for n in range(5)}
    before = {rel: put(alice, rel, plain) for rel, plain in notes.items()}
    bob = codec_for(tmp_path, "bob")
    with pytest.raises(NotARecipient):
        bob.decode(next(iter(before)) + ".age", next(iter(before.values())))

    done = add_recipient(alice, bob.key().public_key, "bob-laptop")

    assert done.resealed == 5
    assert done.unreadable == []
    assert read_recipients(alice.mirror) == done.recipients
    assert [r.label for r in done.recipients] == ["alice", "bob-laptop"]
    for rel, plain in notes.items():
        now = (alice.mirror / f"{rel}.age").read_bytes()
        assert now != before[rel]
        assert bob.decode(f"{rel}.age", now) == plain
        assert alice.decode(f"{rel}.age", now) == plain
        assert alice.encode(rel, plain, now) is now  # the next sync changes nothing
    assert codec_for(tmp_path, "alice").encode(rel, plain, now) is now  # saved


def test_adding_a_recipient_leaves_a_damaged_file_as_it_is_and_says_so(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    put(alice, REL, note_bytes())
    broken = alice.mirror / f"semantic/{new_id()}.md.age"
    broken.write_bytes(b"age-encryption.org/v1\ngarbage")
    done = add_recipient(alice, a_key(), "carol")
    assert done.resealed == 1
    assert [path for path, _why in done.unreadable] == [broken.relative_to(alice.mirror).as_posix()]
    assert broken.read_bytes() == b"age-encryption.org/v1\ngarbage"


def test_only_a_member_can_add_a_recipient(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    bob = codec_for(tmp_path, "bob")
    with pytest.raises(NotARecipient):
        add_recipient(bob, bob.key().public_key)
    assert read_recipients(alice.mirror) == alice.recipients()


def test_a_bad_key_to_add_changes_nothing(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    before = (alice.mirror / RECIPIENTS_FILE).read_bytes()
    with pytest.raises(RecipientsError):
        add_recipient(alice, "age1notakey")
    assert (alice.mirror / RECIPIENTS_FILE).read_bytes() == before


def test_sealed_files_lists_only_sealed_notes(tmp_path: Path) -> None:
    alice = codec_for(tmp_path, "alice", founding=True)
    write_meta(alice)
    put(alice, REL, note_bytes())
    (alice.mirror / "semantic" / "README.md").write_text("x")
    assert list(sealed_files(alice)) == [f"{REL}.age"]
