"""What this machine last sealed (or opened) for an encrypted remote, so that a sync with
nothing changed changes nothing.

age encrypts with a fresh random key every time: the same note sealed twice is two
different files, and a mirror rewritten on every sync would commit and push every note
each time. The manifest, ``<home>/remotes/<name>.manifest.json`` (machine-local, never
synced), records for each note ``[sha256(plain), sha256(cipher), recipients
fingerprint]``: when the plaintext, the recipients and the mirror's file are all still
those, the file already in the mirror is kept as it is.

It is a cache and nothing more: a manifest lost or damaged only costs one sealing of every
note again (one commit); it never decides what a note says.
"""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path

from anamnesis.store import atomic_write_bytes, load_json, read_regular

MAX_MANIFEST = 64 * 1024 * 1024  # ~500,000 notes' entries
log = logging.getLogger(__name__)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Sealed:
    """One note as last sealed: hashes of its plaintext and ciphertext, and the
    fingerprint of the recipients it was sealed to."""

    __slots__ = ("cipher", "plain", "recipients")

    def __init__(self, plain: str, cipher: str, recipients: str) -> None:
        self.plain = plain
        self.cipher = cipher
        self.recipients = recipients

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sealed) and self.as_list() == other.as_list()

    def __hash__(self) -> int:
        return hash(tuple(self.as_list()))

    def __repr__(self) -> str:
        return f"Sealed{tuple(self.as_list())!r}"

    def as_list(self) -> list[str]:
        return [self.plain, self.cipher, self.recipients]


class SealManifest:
    """The manifest of one remote, read at once and written back by :meth:`save` (once a
    cycle, not once a note)."""

    __slots__ = ("_dirty", "_entries", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries = _load(path)
        self._dirty = False

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, rel: str) -> Sealed | None:
        return self._entries.get(rel)

    def unchanged(self, rel: str, plain: bytes, current: bytes, recipients: str) -> bool:
        """Whether ``current`` (the mirror's file now) is what this machine sealed or
        opened for ``plain`` under ``recipients``: then it is kept as it is."""
        entry = self._entries.get(rel)
        return (
            entry is not None
            and entry.recipients == recipients
            and entry.plain == digest(plain)
            and entry.cipher == digest(current)
        )

    def record(self, rel: str, plain: bytes, cipher: bytes, recipients: str) -> None:
        entry = Sealed(digest(plain), digest(cipher), recipients)
        if self._entries.get(rel) != entry:
            self._entries[rel] = entry
            self._dirty = True

    def forget(self, rel: str) -> None:
        if self._entries.pop(rel, None) is not None:
            self._dirty = True

    def save(self) -> None:
        """Write the manifest when it changed (whole or not at all, 0600: it holds hashes
        of the notes' text)."""
        if not self._dirty:
            return
        data = {rel: entry.as_list() for rel, entry in sorted(self._entries.items())}
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(self.path, json.dumps(data, separators=(",", ":")), mode=0o600)
        self._dirty = False


def _load(path: Path) -> dict[str, Sealed]:
    try:
        data, _info = read_regular(path, MAX_MANIFEST)
        raw = load_json(data.decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:  # a cache: start again, every note sealed anew
        log.warning("%s is unreadable (%s): every note will be sealed again", path, exc)
        return {}
    if not isinstance(raw, dict):
        return {}
    entries = {}
    for rel, value in raw.items():
        if (
            isinstance(rel, str)
            and isinstance(value, list)
            and len(value) == 3
            and all(isinstance(part, str) for part in value)
        ):
            entries[rel] = Sealed(value[0], value[1], value[2])
    return entries
