"""Changing who an encrypted remote is sealed to.

:func:`add_recipient` lists a new member's key in the mirror's recipients file and seals
every note of the mirror again for the new set (the caller's sync then pushes it: one
commit). Only a member can: the notes have to be opened first.

(keep-both on sealed notes needs nothing of its own: the mirror cycle opens both sides
through the codec, forks them with the store's fork and seals the results:
``MirrorSync._through_codec``.)
"""

from __future__ import annotations

from collections.abc import Iterator

import pyrage

from anamnesis.ops.remotes.sealing.errors import SealError
from anamnesis.ops.remotes.sealing.recipients import RECIPIENTS_FILE, Recipients
from anamnesis.ops.remotes.sealing.sealed_codec import SealedCodec
from anamnesis.store import NOTE_TYPES, atomic_write_bytes, read_regular


class Resealed:
    """What :func:`add_recipient` did: the recipients now, how many notes were sealed
    again, and the mirror files it could not open (left as they were), each with why."""

    __slots__ = ("recipients", "resealed", "unreadable")

    def __init__(
        self, recipients: Recipients, resealed: int, unreadable: list[tuple[str, str]]
    ) -> None:
        self.recipients = recipients
        self.resealed = resealed
        self.unreadable = unreadable

    def __repr__(self) -> str:
        return f"Resealed({len(self.recipients)} recipients, {self.resealed} notes)"


def sealed_files(codec: SealedCodec) -> Iterator[str]:
    """The mirror's sealed notes (paths inside the mirror), in a stable order."""
    for note_type in sorted(NOTE_TYPES):
        try:
            names = sorted(entry.name for entry in (codec.mirror / note_type).iterdir())
        except FileNotFoundError:
            continue
        for name in names:
            mirror_rel = f"{note_type}/{name}"
            if codec.note_path(mirror_rel) is not None:
                yield mirror_rel


def add_recipient(codec: SealedCodec, key: str, label: str = "") -> Resealed:
    """Add ``key`` (labelled ``label``) to the remote's recipients in its mirror and seal
    every note there again for the new set; the manifest records it, so the next export
    keeps these files as they are.

    The recipients file is written first: a run cut short leaves notes sealed to one set
    or the other, and the next sync's export seals the rest to the set in the file."""
    current = codec.member_recipients()  # only a member can open the notes to reseal them
    updated = current.adding(key, label)
    path = codec.mirror / RECIPIENTS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, updated.render())
    fingerprint = updated.fingerprint()
    targets = updated.age_recipients()
    resealed = 0
    unreadable: list[tuple[str, str]] = []
    for mirror_rel in sealed_files(codec):
        try:
            data, _info = read_regular(codec.mirror / mirror_rel)
            plain = codec.decode(mirror_rel, data)
        except (OSError, SealError) as exc:
            unreadable.append((mirror_rel, str(exc)))
            continue
        cipher = pyrage.encrypt(plain, targets)
        atomic_write_bytes(codec.mirror / mirror_rel, cipher)
        rel = codec.note_path(mirror_rel)
        assert rel is not None  # sealed_files lists only note names
        codec.manifest.record(rel, plain, cipher, fingerprint)
        resealed += 1
    codec.save()
    return Resealed(updated, resealed, unreadable)
