"""The mirror codec of an encrypted remote: notes sealed with age (x25519) on the way out,
opened on the way in.

In the mirror a note ``<type>/<id>.md`` is ``<type>/<id>.md.age``, a standard age file
(``age -d -i <home>/keys/age.key`` opens it) encrypted to every key in the remote's
``.anamnesis/recipients``. Nothing else of the note is in the clear: no title in a path
(names that are not ``<id>.md`` are refused rather than leaked), and commit messages on
an encrypted remote name no title (the backend is made without ``describe``).

A sync with nothing changed stays a no-op: age never encrypts the same text to the same
bytes, so :meth:`SealedCodec.encode` keeps the mirror's file as it is when the manifest
says it is this plaintext sealed to these recipients. A machine whose key is not among
the recipients gets :class:`NotARecipient` (naming its key and the command a member
runs) from both directions: it neither reads the remote's notes nor writes any to it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pyrage

from anamnesis.ops.remotes.sealing.errors import (
    NotARecipient,
    RecipientsError,
    SealError,
    UnreadableCipher,
)
from anamnesis.ops.remotes.sealing.identity import MachineKey, machine_key
from anamnesis.ops.remotes.sealing.manifest import SealManifest
from anamnesis.ops.remotes.sealing.recipients import RECIPIENTS_FILE, Recipients, read_recipients
from anamnesis.store import NOTE_TYPES, is_valid_id, read_regular

SUFFIX = ".age"
NOTE_SUFFIX = ".md"


def add_recipient_command(remote: str, public_key: str) -> str:
    """The command a member runs to let ``public_key`` read ``remote``."""
    return f"anamnesis remote add-recipient {remote} {public_key}"


def is_sealed_note_name(rel: str) -> bool:
    """Whether ``rel`` is ``<type>/<id>.md`` with a known type and a valid id: the only
    names an encrypted remote holds (an id says nothing a reader could use)."""
    folder, _, name = rel.partition("/")
    return (
        folder in NOTE_TYPES
        and name.endswith(NOTE_SUFFIX)
        and is_valid_id(name[: -len(NOTE_SUFFIX)])
    )


class SealedCodec:
    """:class:`~anamnesis.ops.MirrorCodec` of the remote ``name`` whose mirror folder is
    ``mirror``: age-encrypted notes, this machine's key at ``key_path`` (made on first
    need), the no-op manifest at ``manifest``.

    ``founding``: the recipients to start the remote with when it has none yet (the first
    machine's ``remote add --encrypt``); otherwise the mirror's recipients file decides,
    read again whenever it changes on disk (a pull may bring a new member)."""

    def __init__(
        self,
        name: str,
        mirror: Path,
        *,
        key_path: Path,
        manifest: SealManifest,
        founding: Recipients | None = None,
    ) -> None:
        self.name = name
        self.mirror = mirror
        self.key_path = key_path
        self.manifest = manifest
        self.founding = founding
        self._key: MachineKey | None = None
        self._read: tuple[tuple[int, int, int] | None, Recipients | None] | None = None

    # -- paths -----------------------------------------------------------------------

    def mirror_path(self, rel: str) -> str:
        if not is_sealed_note_name(rel):
            raise SealError(
                f"{rel} is not named <type>/<id>.md: an encrypted remote would show its "
                "name in the clear, so it is not sent (`anamnesis reindex` names notes "
                "by their ids)"
            )
        return rel + SUFFIX

    def note_path(self, mirror_rel: str) -> str | None:
        if not mirror_rel.endswith(NOTE_SUFFIX + SUFFIX):
            return None
        rel = mirror_rel[: -len(SUFFIX)]
        return rel if is_sealed_note_name(rel) else None

    # -- keys and recipients ----------------------------------------------------------

    def key(self) -> MachineKey:
        """This machine's identity (made the first time it is needed)."""
        if self._key is None:
            self._key = machine_key(self.key_path)
        return self._key

    def recipients(self) -> Recipients | None:
        """The remote's recipients as the mirror holds them now, else the founding ones;
        None when neither (a remote not fetched yet)."""
        path = self.mirror / RECIPIENTS_FILE
        try:
            info = os.stat(path)
            stamp: tuple[int, int, int] | None = (info.st_mtime_ns, info.st_size, info.st_ino)
        except FileNotFoundError:
            stamp = None
        if self._read is None or self._read[0] != stamp:
            self._read = (stamp, read_recipients(self.mirror) if stamp is not None else None)
        return self._read[1] if self._read[1] is not None else self.founding

    def member_recipients(self) -> Recipients:
        """The recipients, when this machine is one of them; else :class:`NotARecipient`
        (or :class:`RecipientsError` for a remote with no recipients file at all)."""
        recipients = self.recipients()
        if recipients is None:
            raise RecipientsError(
                f"remote {self.name} is encrypted but its {RECIPIENTS_FILE} is missing: "
                "nothing is sent or read until a member's machine restores it (or the "
                f"remote is set up again: `anamnesis remote remove {self.name}`, then "
                f"`anamnesis remote add {self.name} URL --encrypt` with an empty repository)"
            )
        key = self.key()
        if key.public_key not in recipients:
            raise self._not_a_recipient(key)
        return recipients

    def _not_a_recipient(self, key: MachineKey, detail: str = "") -> NotARecipient:
        return NotARecipient(
            f"remote {self.name} is encrypted and this machine's key is not one of its "
            f"recipients{detail}, so nothing was read from it or sent to it (nothing is "
            f"lost: this machine's notes stay here). This machine's public key is "
            f"{key.public_key}; on a member's machine run "
            f"`{add_recipient_command(self.name, key.public_key)}`, then sync here again",
            public_key=key.public_key,
        )

    # -- the codec ----------------------------------------------------------------------

    def encode(self, rel: str, plain: bytes, current: bytes | None) -> bytes:
        recipients = self.member_recipients()
        fingerprint = recipients.fingerprint()
        if current is not None and self.manifest.unchanged(rel, plain, current, fingerprint):
            return current
        cipher = pyrage.encrypt(plain, recipients.age_recipients())
        self.manifest.record(rel, plain, cipher, fingerprint)
        return cipher

    def decode(self, mirror_rel: str, data: bytes) -> bytes:
        recipients = self.member_recipients()
        key = self.key()
        try:
            plain = pyrage.decrypt(data, [key.identity])
        except pyrage.DecryptError as exc:
            if _no_matching_key(exc):
                # A recipient now, not when this file was sealed: its writer had not seen
                # this machine added yet (it re-seals at its next sync) or never will.
                raise self._not_a_recipient(
                    key,
                    f" for {mirror_rel} (sealed before this machine was added; the member "
                    "who wrote it seals it again at their next sync)",
                ) from None
            raise UnreadableCipher(
                f"{mirror_rel} on remote {self.name} is not an age file this machine's key "
                f"opens ({exc}): it was damaged or written by something else; it is left "
                "as it is and nothing was imported from it"
            ) from None
        rel = self.note_path(mirror_rel)
        if rel is not None:  # what the mirror holds now is this text for these recipients
            self.manifest.record(rel, plain, data, recipients.fingerprint())
        return plain

    def meta_files(self) -> dict[str, bytes]:
        """The recipients file: the one a new encrypted remote starts with (the mirror's
        own, once there, is kept as it is). Raises :class:`NotARecipient` when this
        machine is not one of them, even with no note of its own to send: the mirror
        cycle then sends nothing, still pulls (a member may have added this machine
        since), and says so."""
        recipients = self.recipients()
        if recipients is None:
            return {}
        if self.key().public_key not in recipients:  # asked every export: said every sync
            raise self._not_a_recipient(self.key())
        if self._read is not None and self._read[1] is not None:  # the mirror's, unchanged
            return {RECIPIENTS_FILE: read_regular(self.mirror / RECIPIENTS_FILE)[0]}
        return {RECIPIENTS_FILE: recipients.render()}

    def save(self) -> None:
        """Keep what was sealed and opened this cycle (the manifest), once."""
        self.manifest.save()


def _no_matching_key(exc: pyrage.DecryptError) -> bool:
    """age's "no identity matched any of the recipients" (rage says "No matching keys
    found"), as against a damaged file."""
    return "no matching keys" in str(exc).lower()
