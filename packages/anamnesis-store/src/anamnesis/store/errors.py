"""The store's exception hierarchy: every failure a caller must handle is a StoreError."""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every error the store raises on purpose."""


class InvalidNote(StoreError, ValueError):
    """A note's fields break a rule (bad type, empty title, malformed id, ...).

    Raised before anything touches disk, so nothing is written.
    """

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message

    def naming(self, note_id: object) -> InvalidNote:
        """The same error, saying which note it is about (one of a batch or an import)."""
        return InvalidNote(self.field, f"{self.reason} (note {note_id})")


class InvalidQuery(StoreError, ValueError):
    """A search or list argument is out of range."""


class StorageError(StoreError):
    """A note file could not be read or written (permissions, disk full, ...)."""


class MalformedNote(StoreError):
    """A markdown file on disk does not parse as a note."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class NoteNotFound(StoreError, KeyError):
    """No note with this id (or, shorter than an id, whose id starts so) exists in the
    store."""

    def __init__(self, memory_id: str) -> None:
        super().__init__(memory_id)
        self.memory_id = memory_id

    def __str__(self) -> str:  # KeyError would repr() the id; say something useful instead
        if len(self.memory_id) < 26:  # a prefix of one (a whole id is 26 characters)
            return f"no note starts with {self.memory_id} in this store"
        return f"no note with id {self.memory_id!r} in this store"


class AmbiguousId(StoreError, KeyError):
    """An id prefix that more than one note's id starts with."""

    def __init__(self, prefix: str, candidates: list[str]) -> None:
        super().__init__(prefix)
        self.prefix = prefix
        self.candidates = candidates

    def __str__(self) -> str:
        shown = ", ".join(self.candidates[:10])
        more = " and more" if len(self.candidates) > 10 else ""
        return f"id prefix {self.prefix!r} is ambiguous: it starts {shown}{more}; give more of it"


class IndexUnavailable(StoreError):
    """The SQLite index cannot be opened, written or rebuilt (permissions, disk, lock)."""


class StoreBusy(IndexUnavailable):
    """Another process held the index write lock for longer than we are willing to wait."""


class IndexRebuiltWarning(UserWarning):
    """The index was unreadable or from another version and was rebuilt from the markdown."""
