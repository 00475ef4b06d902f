"""anamnesis.store: memory notes as markdown files, with a derived SQLite FTS5 index.

Importing this package is cheap: PyYAML and python-ulid load only when a note is parsed
the slow way or created.
"""

from anamnesis.store.codec import parse as parse_note
from anamnesis.store.codec import serialize as serialize_note
from anamnesis.store.config import (
    read_config,
    resolve_home,
    resolve_machine_id,
    resolve_remote,
    write_config,
)
from anamnesis.store.errors import (
    IndexRebuiltWarning,
    IndexUnavailable,
    InvalidNote,
    MalformedNote,
    NoteNotFound,
    StoreBusy,
    StoreError,
)
from anamnesis.store.ids import is_valid_id, new_id
from anamnesis.store.layout import StoreLayout
from anamnesis.store.model import (
    DURABLE_TYPES,
    NOTE_TYPES,
    PROV_SOURCES,
    SCOPES,
    Memory,
    MemoryType,
    ReindexReport,
    Scope,
    SkippedFile,
    StoreStats,
)
from anamnesis.store.store import InvalidQuery, MemoryStore, StorageError

__version__ = "0.2.0"

__all__ = [
    "DURABLE_TYPES",
    "NOTE_TYPES",
    "PROV_SOURCES",
    "SCOPES",
    "IndexRebuiltWarning",
    "IndexUnavailable",
    "InvalidNote",
    "InvalidQuery",
    "MalformedNote",
    "Memory",
    "MemoryStore",
    "MemoryType",
    "NoteNotFound",
    "ReindexReport",
    "Scope",
    "SkippedFile",
    "StorageError",
    "StoreBusy",
    "StoreError",
    "StoreLayout",
    "StoreStats",
    "is_valid_id",
    "new_id",
    "parse_note",
    "read_config",
    "resolve_home",
    "resolve_machine_id",
    "resolve_remote",
    "serialize_note",
    "write_config",
]
