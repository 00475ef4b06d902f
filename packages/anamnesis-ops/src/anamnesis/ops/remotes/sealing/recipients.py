"""Who an encrypted remote's notes are sealed to: its ``.anamnesis/recipients`` file.

The file lives IN the remote, in plain text, so that every member encrypts to the same set
and a member added on one machine is seen by all at their next sync. Its format is age's
own recipients file (``age -R`` reads it): one ``age1...`` public key a line, ``#``
comments and blank lines between; the comment line right above a key is that key's label
(whose machine it is)::

    # Anamnesis: the age public keys this remote's notes are encrypted to.

    # alice-laptop
    age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p

Read strictly: any other line (a secret key pasted by mistake, a half-merged file, an
ssh key) is an error naming its line, never skipped, since a key silently dropped is a
member who silently stops being able to read. The same key twice (two machines adding
it at once) counts once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyrage
from pyrage import x25519

from anamnesis.ops.remotes.sealing.errors import RecipientsError
from anamnesis.store import read_regular

RECIPIENTS_FILE = ".anamnesis/recipients"  # inside the remote (its mirror folder)
MAX_RECIPIENTS_FILE = 256 * 1024  # ~3,000 keys with labels
MAX_LABEL = 80
HEADER = "# Anamnesis: the age public keys this remote's notes are encrypted to.\n"
_KEY = re.compile(r"age1[02-9ac-hj-np-z]{58}")  # bech32 of 32 bytes; pyrage checks the rest
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class Recipient:
    """One member's public key and, when known, its label."""

    __slots__ = ("key", "label")

    def __init__(self, key: str, label: str = "") -> None:
        self.key = key
        self.label = label

    def __repr__(self) -> str:
        return f"Recipient({self.key!r}, {self.label!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Recipient) and (other.key, other.label) == (self.key, self.label)

    def __hash__(self) -> int:
        return hash((self.key, self.label))


def check_key(text: str) -> str:
    """``text`` as an age x25519 public key, or :class:`RecipientsError` saying why not."""
    key = text.strip()
    if key.upper().startswith("AGE-SECRET-KEY-"):
        raise RecipientsError(
            "that is an age SECRET key: never share it; give the public key (age1...) "
            "that `anamnesis remote key` prints"
        )
    if not _KEY.fullmatch(key):
        raise RecipientsError(
            f"{key[:20]!r}... is not an age public key (age1 followed by 58 characters, "
            "as `anamnesis remote key` prints it)"
        )
    try:
        x25519.Recipient.from_str(key)
    except pyrage.RecipientError as exc:
        raise RecipientsError(f"{key} is not a valid age public key: {exc}") from exc
    return key


def check_label(label: str) -> str:
    """A label fit for one comment line."""
    label = label.strip()
    if _CONTROL.search(label):
        raise RecipientsError("a recipient's label is one line of text, without control characters")
    if len(label) > MAX_LABEL:
        raise RecipientsError(f"a recipient's label has at most {MAX_LABEL} characters")
    return label


class Recipients:
    """The recipients of one remote, in the file's order, each key once."""

    __slots__ = ("_age", "_entries", "_fingerprint")

    def __init__(self, entries: Iterable[Recipient] = ()) -> None:
        seen: dict[str, Recipient] = {}
        for entry in entries:
            seen.setdefault(entry.key, entry)
        self._entries = tuple(seen.values())
        # Asked for every note a sync seals: worked out once (a Recipients never changes).
        self._fingerprint = ""
        self._age: list[x25519.Recipient] | None = None

    def __iter__(self) -> Iterator[Recipient]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return any(entry.key == key for entry in self._entries)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Recipients) and other._entries == self._entries

    def __hash__(self) -> int:
        return hash(self._entries)

    def __repr__(self) -> str:
        return f"Recipients({list(self._entries)!r})"

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(entry.key for entry in self._entries)

    def fingerprint(self) -> str:
        """What the notes were sealed to, order and labels aside: the set of keys, hashed.
        A note sealed under another fingerprint is sealed again (a member was added)."""
        if not self._fingerprint:
            joined = "\n".join(sorted(self.keys)).encode("ascii")
            self._fingerprint = hashlib.sha256(joined).hexdigest()[:32]
        return self._fingerprint

    def age_recipients(self) -> list[x25519.Recipient]:
        if self._age is None:
            self._age = [x25519.Recipient.from_str(key) for key in self.keys]
        return self._age

    def adding(self, key: str, label: str = "") -> Recipients:
        """These recipients and ``key`` (checked); a key already there keeps its place and
        takes the new label when one is given."""
        key, label = check_key(key), check_label(label)
        if key in self:
            return Recipients(
                Recipient(e.key, label or e.label) if e.key == key else e for e in self._entries
            )
        return Recipients([*self._entries, Recipient(key, label)])

    def render(self) -> bytes:
        """The file's text: the header, then each key under its label."""
        blocks = [
            (f"# {entry.label}\n" if entry.label else "") + f"{entry.key}\n"
            for entry in self._entries
        ]
        return (HEADER + "".join(f"\n{block}" for block in blocks)).encode("utf-8")


def parse_recipients(data: bytes, where: str = RECIPIENTS_FILE) -> Recipients:
    """The recipients a file's bytes list; :class:`RecipientsError` naming the first line
    that is neither a key, a comment nor blank (``where`` names the file in it)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RecipientsError(f"{where} is not UTF-8 text ({exc})") from exc
    entries: list[Recipient] = []
    label = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            label = ""
            continue
        if line.startswith("#"):
            label = line[1:].strip()
            continue
        try:
            key = check_key(line)
        except RecipientsError as exc:
            raise RecipientsError(
                f"{where}, line {number}: {exc} (each line is an age1... key, a # comment or blank)"
            ) from None
        entries.append(Recipient(key, label if not _CONTROL.search(label) else ""))
        label = ""
    if not entries:
        raise RecipientsError(f"{where} lists no recipient: nothing could be encrypted to it")
    return Recipients(entries)


def read_recipients(mirror: Path) -> Recipients | None:
    """The recipients listed in the mirror folder ``mirror``; None when it has no
    recipients file yet (a remote never set up for encryption, or not yet fetched)."""
    path = mirror / RECIPIENTS_FILE
    try:
        data, _info = read_regular(path, MAX_RECIPIENTS_FILE)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RecipientsError(f"{path} cannot be read: {exc}") from exc
    return parse_recipients(data, str(path))
