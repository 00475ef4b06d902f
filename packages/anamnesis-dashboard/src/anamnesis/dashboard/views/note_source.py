"""A note's markdown source for the editor, and saving an edit without losing anyone's work.

Saving is optimistic: the edit form carries the SHA-256 of the file as it was loaded. If
the file changed meanwhile (a hand edit, a sync, another tab), the save is refused with
both versions, and nothing is written. A save goes through the store (:meth:`put`): the
text is validated, secrets are masked, the file is written atomically and reindexed.
Nothing is committed: sync stays an explicit step. The form's fields and the raw view's
whole file are saved the same way, and an empty body is refused either way.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from anamnesis.dashboard.views.edit_form import EMPTY_BODY, EditFields, empty_body
from anamnesis.store import (
    InvalidNote,
    MalformedNote,
    Memory,
    MemoryStore,
    parse_note,
    read_regular,
    utc_now,
)


@dataclass(frozen=True, slots=True)
class NoteSource:
    """A note file's text and the hash of its bytes (the edit form's guard)."""

    path: Path
    text: str
    digest: str


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """``saved`` (the note as written), or ``conflict`` (the file as it is now), or
    ``problem`` (why the text is not a valid note). ``masked``: the store masked secrets
    in what was saved, so the file differs from what was typed."""

    saved: Memory | None = None
    conflict: NoteSource | None = None
    problem: str = ""
    masked: bool = False


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_source(store: MemoryStore, note_id: str) -> NoteSource:
    """The note's file as it is on disk (a regular file inside the store, never a link).
    Raises the store's NoteNotFound for an unknown id."""
    path = store.file_of(note_id)
    data, _ = read_regular(path)
    return NoteSource(path, data.decode("utf-8", "replace"), digest_of(data))


def note_of(text: str, path: Path, scope: str) -> Memory:
    """The note ``text`` (of the file at ``path``) holds; raises the store's MalformedNote
    saying why it is none (a YAML error names the file's line). ``scope``: the folder's,
    which the text cannot change."""
    return parse_note(text.replace("\r\n", "\n"), str(path), scope=scope)


def save_source(
    store: MemoryStore, note_id: str, text: str, loaded_digest: str, *, review: bool = True
) -> SaveOutcome:
    """Save ``text``, the whole file (the raw view), as note ``note_id`` if its file is
    still the one the editor loaded. ``review=False``: a restore, which brings a version
    back as it was (its own ``reviewed_at`` included)."""
    current = read_source(store, note_id)
    if current.digest != loaded_digest:
        return SaveOutcome(conflict=current)
    scope = store.get(note_id).scope  # the folder decides the scope, not the text
    try:
        edited = note_of(text, current.path, scope)
    except MalformedNote as exc:
        return SaveOutcome(problem=str(exc))
    if edited.id != note_id:
        return SaveOutcome(
            problem=f"the id must stay {note_id}; to make a new note, write one instead"
        )
    return _put(store, edited, review=review)


def save_fields(
    store: MemoryStore, note_id: str, fields: EditFields, loaded_digest: str
) -> SaveOutcome:
    """Save the form's fields into note ``note_id`` if its file is still the one the
    editor loaded; the rest of the note stays as the file has it."""
    current = read_source(store, note_id)
    if current.digest != loaded_digest:
        return SaveOutcome(conflict=current)
    try:
        note = note_of(current.text, current.path, store.get(note_id).scope)
    except MalformedNote as exc:
        return SaveOutcome(problem=f"{exc} (fix the file in the raw view)")
    try:
        edited = fields.applied_to(note)
    except InvalidNote as exc:  # a date that is none
        return SaveOutcome(problem=str(exc))
    return _put(store, edited)


def _put(store: MemoryStore, edited: Memory, *, review: bool = True) -> SaveOutcome:
    """Write ``edited`` through the store (validated, secrets masked, reindexed), unless
    its body is empty. A save that changed the note is a person's word on it: with
    ``review`` it is marked reviewed now (``reviewed_at``), unless the edit set that
    itself (the raw view)."""
    if empty_body(edited.body):
        return SaveOutcome(problem=EMPTY_BODY)
    now = utc_now()
    try:
        if review and _reviewed(store, edited):
            edited = edited.replace(reviewed_at=now)
        saved = store.put(edited.replace(updated_at=now))
    except InvalidNote as exc:
        return SaveOutcome(problem=str(exc))
    masked = (saved.title, saved.body) != (edited.title, edited.body)
    return SaveOutcome(saved=saved, masked=masked)


def _reviewed(store: MemoryStore, edited: Memory) -> bool:
    """Whether saving ``edited`` is a person's review of the note: it changes the note
    (beyond the time it was saved), and not its ``reviewed_at``, which the person set."""
    current = store.get(edited.id)
    as_written = store.as_written(edited)  # tags and dates as the file will hold them
    changed = as_written.replace(updated_at="") != current.replace(updated_at="")
    return changed and edited.reviewed_at == current.reviewed_at
