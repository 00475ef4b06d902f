"""This machine's age identity: the private key that opens an encrypted remote's notes.

It lives at ``<home>/keys/age.key`` (the layout's ``age_identity``), 0600 in a 0700
folder, in the format ``age-keygen`` writes (``# public key: age1...`` above the
``AGE-SECRET-KEY-1...`` line), so the age tools read it too. It is machine-local: no
note tree holds it and no sync sends it; each machine has its own and a remote's
recipients list one public key a machine. Made the first time it is needed (an
encrypted remote added or read, ``anamnesis remote key``), never replaced: a key lost is
a machine that must be added again by a member.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
from datetime import UTC, datetime
from pathlib import Path

import pyrage
from pyrage import x25519

from anamnesis.ops.remotes.sealing.errors import IdentityError
from anamnesis.store import read_regular

SECRET_PREFIX = "AGE-SECRET-KEY-1"
MAX_KEY_FILE = 16 * 1024  # an age key file is ~190 bytes; anything larger is not one


class MachineKey:
    """This machine's identity and its public key (the ``age1...`` recipient others add)."""

    __slots__ = ("identity", "path", "public_key")

    def __init__(self, identity: x25519.Identity, path: Path) -> None:
        self.identity = identity
        self.public_key = str(identity.to_public())
        self.path = path

    def __repr__(self) -> str:  # never the secret
        return f"MachineKey({self.public_key!r}, {str(self.path)!r})"


def machine_key(path: Path, *, create: bool = True) -> MachineKey:
    """The identity kept at ``path``, made there first when ``create`` and there is none.

    Raises :class:`IdentityError` for a file that is not an age identity, is readable by
    others (it is a secret: it is not used until fixed), or cannot be written."""
    try:
        return _read(path)
    except FileNotFoundError:
        if not create:
            raise IdentityError(
                f"this machine has no age key yet ({path}): `anamnesis remote key` makes one"
            ) from None
    return _create(path)


def _read(path: Path) -> MachineKey:
    try:
        data, info = read_regular(path, MAX_KEY_FILE)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise IdentityError(f"this machine's age key {path} cannot be read: {exc}") from exc
    if os.name == "posix" and info.st_mode & 0o077:
        raise IdentityError(
            f"this machine's age key {path} is readable by others; it is not used until "
            f"only you can read it: `chmod 600 {shlex.quote(str(path))}`"
        )
    secrets = [
        line.strip()
        for line in data.decode("utf-8", errors="replace").splitlines()
        if line.strip().startswith(SECRET_PREFIX)
    ]
    if len(secrets) != 1:
        raise IdentityError(
            f"{path} should hold one age secret key (a line starting {SECRET_PREFIX}), "
            f"it holds {len(secrets)}"
        )
    try:
        identity = x25519.Identity.from_str(secrets[0])
    except pyrage.IdentityError as exc:
        raise IdentityError(f"{path} does not hold a valid age secret key: {exc}") from exc
    return MachineKey(identity, path)


def _create(path: Path) -> MachineKey:
    """A new identity written to ``path`` whole or not at all. Two processes making one at
    once both end up with the one that reached the name first (a hard link never replaces
    a file), so no machine ever encrypts with a key that is then lost."""
    identity = x25519.Identity.generate()
    created = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    text = (
        f"# created: {created}\n"
        f"# public key: {identity.to_public()}\n"
        f"# Anamnesis: this machine's key for encrypted remotes. Keep it secret, never sync it.\n"
        f"{identity}\n"
    )
    tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, text.encode("ascii"))
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, path)
        except FileExistsError:
            return _read(path)  # another process made it first: that one is the key
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV):
                raise
            # a filesystem without hard links: claim the name exclusively instead
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, text.encode("ascii"))
                os.fsync(fd)
            finally:
                os.close(fd)
    except FileExistsError:
        return _read(path)
    except OSError as exc:
        raise IdentityError(f"this machine's age key could not be made at {path}: {exc}") from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return MachineKey(identity, path)
