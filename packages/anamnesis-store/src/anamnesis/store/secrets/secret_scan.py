"""Masking secrets in note files already on disk, before they leave the machine.

The store masks every note it writes (:func:`mask_note`, called on its write path), but a
note edited by hand, or written before a rule existed, would be pushed as it is. A sync
therefore hands its outgoing files to :func:`mask_file` first. A note that parses is
rewritten through the codec, field by field (a masked title stays a title: masking the raw
text could turn ``title: ghp_...`` into the YAML list ``title: [REDACTED]``); a file that
does not parse has its raw text masked, since it is broken already and must not carry a
secret out either (its frontmatter values are masked one by one when the YAML reads, so it
can still be adopted). Only regular files are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Protocol

from anamnesis.store.errors import MalformedNote
from anamnesis.store.files.atomic import atomic_write_bytes
from anamnesis.store.files.layout import StoreLayout
from anamnesis.store.files.safe_files import read_regular
from anamnesis.store.note import codec, frontmatter
from anamnesis.store.note.model import Memory
from anamnesis.store.record import Record
from anamnesis.store.secrets.redact import count_secrets, redact_secrets


class MaskedFile(Record):
    """A note file whose secrets were masked in place, and how many."""

    __slots__ = ("path", "secrets")

    def __init__(self, path: str, secrets: int) -> None:
        self.path = path
        self.secrets = secrets


def mask_file(path: Path) -> MaskedFile | None:
    """Mask the secrets in one note file, in place and atomically; None when it holds
    none (or is not a regular file: those are never read, nor synced)."""
    try:
        raw, before = read_regular(path)
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    found = count_secrets(text)
    if not found:
        return None
    try:
        note = codec.parse_note(text, str(path))
    except MalformedNote:
        masked = _masked_text(text, str(path))
    else:
        masked = codec.serialize_note(mask_note(note))
    if masked == text:
        return None
    atomic_write_bytes(path, masked, mode=before.st_mode & 0o777)
    return MaskedFile(str(path), found)


def mask_files(layout: StoreLayout, paths: Iterable[str | Path]) -> list[MaskedFile]:
    """:func:`mask_file` for each of these paths that is a note file inside the note
    trees (absolute, or relative to the store root); the rest are passed over."""
    masked = []
    for raw in paths:
        path = Path(raw) if Path(raw).is_absolute() else layout.root / raw
        if layout.locate(path) is None or path.suffix != ".md":
            continue
        found = mask_file(path)
        if found is not None:
            masked.append(found)
    return masked


def _masked_text(text: str, where: str) -> str:
    """A file that is not a valid note: its frontmatter values masked one by one when the
    YAML reads (so the file stays adoptable), else the raw text masked."""
    try:
        front, body = codec.split(text, where)
        meta = frontmatter.load(front)
        dumped = frontmatter.dump({key: _masked_value(value) for key, value in meta.items()})
    except (MalformedNote, frontmatter.FrontmatterError, ValueError, TypeError):
        return redact_secrets(text)
    return f"{codec.DELIMITER}{dumped}{codec.DELIMITER}{redact_secrets(body)}\n"


def mask_note(note: Memory) -> Memory:
    """The note with every secret in its text fields masked: title, body, project, tags
    and ``extra`` values. The store runs every note it writes through this."""
    # Most notes hold no secret: one scan of all their text says so, where a scan per
    # field costs each field the scan's fixed overhead. Joined, a field's secret is still
    # found (a blank line reads like the end of the text to every rule).
    fields = [note.title, note.body, note.project, *note.tags, *_strings(note.extra)]
    if not count_secrets("\n\n".join(fields)):
        return note
    return note.replace(
        title=redact_secrets(note.title),
        body=redact_secrets(note.body),
        project=redact_secrets(note.project),
        # Two secrets masked alike must not leave a duplicate tag behind.
        tags=list(dict.fromkeys(redact_secrets(tag) for tag in note.tags)),
        extra={key: _masked_value(value) for key, value in note.extra.items()},
    )


def _masked_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, list):
        return [_masked_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _masked_value(item) for key, item in value.items()}
    return value


def _strings(value: Any) -> Iterator[str]:
    """Every string inside ``value`` (the values of ``extra``, however nested)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list | tuple | set):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


class Outgoing(Protocol):
    """What a sync backend offers for this (``anamnesis.sync.SyncBackend`` has both): the
    store never imports the sync package."""

    def local_changes(self) -> tuple[str, ...]: ...

    def commit_local(self, message: str | None = None) -> str | None: ...


class MaskingStore(Protocol):
    """What :func:`mask_outgoing` needs of a store (``MemoryStore`` has both); a protocol
    keeps this module below the store's, with no import circle."""

    @property
    def memory_dir(self) -> Path: ...

    def mask_secrets_in(self, paths: Iterable[str | Path]) -> list[MaskedFile]: ...


class NoteTrees:
    """A store's note trees, masked without its index (a ``MaskingStore``): for a caller
    that must not open the index (``clean`` has just deleted it). The next store opened
    catches up with what was masked, as with any file changed behind its back."""

    def __init__(self, root: Path) -> None:
        self._layout = StoreLayout(root)

    @property
    def memory_dir(self) -> Path:
        return self._layout.memory_dir

    def mask_secrets_in(self, paths: Iterable[str | Path]) -> list[MaskedFile]:
        return mask_files(self._layout, paths)


def mask_outgoing(store: MaskingStore, backend: Outgoing) -> list[MaskedFile]:
    """Mask secrets in every note file the next commit would take, and commit the masking
    on its own, with a message that says so, so nothing unmasked is ever pushed. Run by
    every sync and every commit made for one (outgoing.py)."""
    # mask_secrets_in takes only note files inside the trees: the rest is passed over.
    masked = store.mask_secrets_in(store.memory_dir / path for path in backend.local_changes())
    if masked:
        total = sum(found.secrets for found in masked)
        backend.commit_local(
            f"anamnesis: masked {total} secret(s) in {len(masked)} note(s) before syncing"
        )
    return masked
