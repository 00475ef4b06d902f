"""Encrypted remotes as a home sees them: the codec of an ``encrypt: true`` remote, its
set-up by ``remote add --encrypt``, this machine's public key, adding a member.

The sealing itself (age through pyrage, the recipients file, the no-op manifest) is in
``sealing/``; this module only finds a remote's paths in the home's layout and runs the
remote's own sync where a step needs the remote (``codec.py`` loads it by name, so a
plain remote never loads pyrage).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anamnesis.ops.remotes.config import RemoteConfigError, RemoteSpec, remote_specs
from anamnesis.ops.remotes.sealing.errors import SealError
from anamnesis.ops.remotes.sealing.identity import machine_key
from anamnesis.ops.remotes.sealing.manifest import SealManifest
from anamnesis.ops.remotes.sealing.recipients import (
    RECIPIENTS_FILE,
    Recipient,
    Recipients,
    check_key,
    check_label,
)
from anamnesis.ops.remotes.sealing.reseal import add_recipient
from anamnesis.ops.remotes.sealing.sealed_codec import SealedCodec, add_recipient_command
from anamnesis.store import atomic_write_bytes

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home
    from anamnesis.sync import GitSyncBackend, SyncResult

_LOCK_WAIT_S = 30.0


def sealed_codec(home: Home, spec: RemoteSpec) -> SealedCodec:
    """The codec of the encrypted remote ``spec`` (nothing is read until it is used)."""
    return SealedCodec(
        spec.name,
        home.layout.mirror_dir(spec.name),
        key_path=home.layout.age_identity,
        manifest=SealManifest(home.layout.remote_manifest(spec.name)),
    )


def machine_public_key(home: Home) -> str:
    """This machine's age public key (the key is made the first time it is asked for)."""
    return machine_key(home.layout.age_identity).public_key


@dataclass(frozen=True, slots=True)
class Membership:
    """An encrypted remote as this machine stands with it: its recipients (None: not
    known here yet), this machine's public key, and whether it is one of them."""

    name: str
    public_key: str
    recipients: Recipients | None

    @property
    def member(self) -> bool:
        return self.recipients is not None and self.public_key in self.recipients

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "public_key": self.public_key,
            "member": self.member,
            "recipients": [
                {"key": entry.key, "label": entry.label} for entry in self.recipients or ()
            ],
        }

    def advice(self) -> str:
        """What to do about it, when anything (empty: nothing)."""
        if self.member:
            return ""
        return (
            f"this machine's key is not one of {self.name}'s recipients: on a member's "
            f"machine run `{add_recipient_command(self.name, self.public_key)}`, then "
            "`anamnesis sync` here"
        )


def membership(home: Home, spec: RemoteSpec, *, create: bool = True) -> Membership:
    """Where this machine stands with ``spec``, from its mirror folder as last synced
    (nothing is contacted). ``create``: make this machine's key if it has none (else
    :class:`~anamnesis.ops.remotes.sealing.errors.IdentityError`)."""
    codec = sealed_codec(home, spec)
    key = machine_key(home.layout.age_identity, create=create)
    return Membership(spec.name, key.public_key, codec.recipients())


def prepare_encrypted(home: Home, spec: RemoteSpec) -> Membership:
    """Set up (or join) the encrypted remote ``spec``, before ``remote add`` records it.

    Its mirror is synced first, so that what the remote holds is known: a remote that
    already lists recipients is joined as it is (this machine may not be one of them
    yet: :meth:`Membership.advice` says what to do); an empty remote gets the recipients
    file with this machine's key (labelled with its machine id), committed and pushed.
    A remote that cannot be reached, or that holds files but no recipients (notes pushed
    in the clear, or not an Anamnesis remote), is refused: :class:`SealError`, and the
    remote is not added."""
    codec = sealed_codec(home, spec)
    key = codec.key()  # made now, so that its public key can be given at once
    backend = home.mirror_backend(spec)
    _reached(backend.sync(), spec)
    recipients = codec.recipients()
    if recipients is None:
        if any(True for _ in _tracked_files(backend)):
            raise SealError(
                f"{spec.url} already holds files and no {RECIPIENTS_FILE}: it is not an "
                "encrypted Anamnesis remote (maybe one with notes in the clear); use an "
                "empty repository for an encrypted remote"
            )
        founding = Recipients([Recipient(key.public_key, check_label(home.machine_id))])
        path = codec.mirror / RECIPIENTS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, founding.render())
        backend.commit_local(
            f"anamnesis: {spec.name} is encrypted, to {home.machine_id}'s key to start with"
        )
        _reached(backend.sync(), spec)
        recipients = founding
    return Membership(spec.name, key.public_key, recipients)


@dataclass(frozen=True, slots=True)
class MemberAdded:
    """What ``remote add-recipient`` did: the recipients now, the notes sealed again for
    them, the files that could not be opened (left as they were), and the push."""

    name: str
    key: str
    label: str
    recipients: Recipients
    resealed: int
    unreadable: tuple[tuple[str, str], ...]
    pushed: bool
    remote_error: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "added": {"key": self.key, "label": self.label},
            "recipients": [{"key": e.key, "label": e.label} for e in self.recipients],
            "resealed": self.resealed,
            "unreadable": [{"path": p, "why": why} for p, why in self.unreadable],
            "pushed": self.pushed,
            "remote_error": self.remote_error or None,
        }


def add_member(home: Home, name: str, key: str, label: str = "") -> MemberAdded:
    """Add ``key`` to the encrypted remote ``name``'s recipients and push every note of
    it sealed again for the new set.

    Under the remote's lock: its mirror is synced first (the newest notes and
    recipients), then every sealed note is opened and sealed for the new set, committed
    in one commit saying who was added, and pushed. Only a member can (the notes are
    opened): :class:`~anamnesis.ops.remotes.sealing.errors.NotARecipient` otherwise."""
    from anamnesis.sync import sync_lock

    spec = _encrypted_spec(home, name)
    key, label = check_key(key), check_label(label)
    codec = sealed_codec(home, spec)
    backend = home.mirror_backend(spec)
    lock = home.layout.remotes_dir / f"{spec.name}.lock"
    with sync_lock(lock, wait_s=_LOCK_WAIT_S):
        _reached(backend.sync(), spec)
        done = add_recipient(codec, key, label)
        who = label or key
        backend.commit_local(
            f"anamnesis: {who} added to {spec.name}'s recipients; {done.resealed} note(s) "
            "sealed again"
        )
        pushed = backend.sync()
    return MemberAdded(
        spec.name,
        key,
        label,
        done.recipients,
        done.resealed,
        tuple(done.unreadable),
        pushed.pushed or (not pushed.remote_error and not pushed.conflicted),
        pushed.remote_error,
    )


def _encrypted_spec(home: Home, name: str) -> RemoteSpec:
    for spec in remote_specs(home.config()):
        if spec.name == name:
            if not spec.encrypt:
                raise RemoteConfigError(
                    f"remote {name} is not encrypted: its notes are pushed as they are, to "
                    "whoever can read the repository"
                )
            return spec
    raise RemoteConfigError(f"no remote named {name!r} (see `anamnesis remote list`)")


def _reached(result: SyncResult, spec: RemoteSpec) -> SyncResult:
    """``result``, when the remote was reached and nothing conflicted; else SealError."""
    if result.remote_error:
        raise SealError(
            f"{spec.name} could not be reached ({result.remote_error}): nothing was changed there"
        )
    if result.conflicted:
        raise SealError(
            f"{spec.name} has a conflict to settle first (`anamnesis sync --resolve "
            "keep-both`): nothing was changed there"
        )
    return result


def _tracked_files(backend: GitSyncBackend) -> list[str]:
    """Files in the mirror folder after its first sync (its repository aside)."""
    folder = backend.repo_dir
    return [
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file()
        and ".git" not in path.relative_to(folder).parts
        and not path.name.startswith(".")
    ]
