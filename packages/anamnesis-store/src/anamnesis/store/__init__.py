"""anamnesis.store: memory notes as markdown files, with a derived SQLite FTS5 index.

Importing this package is cheap: names load from their modules on first use (a session
hook that only reads notes never loads the YAML, ULID or redaction code), and PyYAML and
python-ulid load only when a note is parsed the slow way or created.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing itself costs an import; type checkers read this as True
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.store.codec import parse as parse_note
    from anamnesis.store.codec import serialize as serialize_note
    from anamnesis.store.config import (
        read_config,
        resolve_home,
        resolve_machine_id,
        resolve_remote,
        write_config,
    )
    from anamnesis.store.embedding import (
        Embedder,
        FastEmbedEmbedder,
        VectorsUnavailable,
        VectorsUnavailableWarning,
    )
    from anamnesis.store.errors import (
        AmbiguousId,
        IndexRebuiltWarning,
        IndexUnavailable,
        InvalidNote,
        InvalidQuery,
        MalformedNote,
        NoteNotFound,
        StorageError,
        StoreBusy,
        StoreError,
    )
    from anamnesis.store.ids import derived_id, is_valid_id, new_id
    from anamnesis.store.layout import StoreLayout
    from anamnesis.store.model import (
        DURABLE_TYPES,
        NOTE_TYPES,
        PROV_SOURCES,
        SCOPES,
        AdoptedFile,
        Memory,
        MemoryType,
        ReindexReport,
        Scope,
        SearchHit,
        SearchResult,
        SkippedFile,
        StoreStats,
    )
    from anamnesis.store.redact import redact_secrets
    from anamnesis.store.safe_files import UnsafeFile, open_regular, read_regular
    from anamnesis.store.search_modes import SEARCH_MODE_ENV, SEARCH_MODES, configured_search_mode
    from anamnesis.store.secret_scan import MaskedFile, mask_outgoing
    from anamnesis.store.store import MemoryStore

__version__ = "0.2.1"

_EXPORTS: dict[str, tuple[str, str]] = {
    "AdoptedFile": ("anamnesis.store.model", "AdoptedFile"),
    "AmbiguousId": ("anamnesis.store.errors", "AmbiguousId"),
    "DURABLE_TYPES": ("anamnesis.store.model", "DURABLE_TYPES"),
    "Embedder": ("anamnesis.store.embedding", "Embedder"),
    "FastEmbedEmbedder": ("anamnesis.store.embedding", "FastEmbedEmbedder"),
    "SEARCH_MODES": ("anamnesis.store.search_modes", "SEARCH_MODES"),
    "SEARCH_MODE_ENV": ("anamnesis.store.search_modes", "SEARCH_MODE_ENV"),
    "configured_search_mode": ("anamnesis.store.search_modes", "configured_search_mode"),
    "VectorsUnavailable": ("anamnesis.store.embedding", "VectorsUnavailable"),
    "VectorsUnavailableWarning": ("anamnesis.store.embedding", "VectorsUnavailableWarning"),
    "IndexRebuiltWarning": ("anamnesis.store.errors", "IndexRebuiltWarning"),
    "IndexUnavailable": ("anamnesis.store.errors", "IndexUnavailable"),
    "InvalidNote": ("anamnesis.store.errors", "InvalidNote"),
    "InvalidQuery": ("anamnesis.store.errors", "InvalidQuery"),
    "MalformedNote": ("anamnesis.store.errors", "MalformedNote"),
    "MaskedFile": ("anamnesis.store.secret_scan", "MaskedFile"),
    "Memory": ("anamnesis.store.model", "Memory"),
    "MemoryStore": ("anamnesis.store.store", "MemoryStore"),
    "MemoryType": ("anamnesis.store.model", "MemoryType"),
    "NOTE_TYPES": ("anamnesis.store.model", "NOTE_TYPES"),
    "NoteNotFound": ("anamnesis.store.errors", "NoteNotFound"),
    "PROV_SOURCES": ("anamnesis.store.model", "PROV_SOURCES"),
    "ReindexReport": ("anamnesis.store.model", "ReindexReport"),
    "SCOPES": ("anamnesis.store.model", "SCOPES"),
    "Scope": ("anamnesis.store.model", "Scope"),
    "SearchHit": ("anamnesis.store.model", "SearchHit"),
    "SearchResult": ("anamnesis.store.model", "SearchResult"),
    "SkippedFile": ("anamnesis.store.model", "SkippedFile"),
    "StorageError": ("anamnesis.store.errors", "StorageError"),
    "StoreBusy": ("anamnesis.store.errors", "StoreBusy"),
    "StoreError": ("anamnesis.store.errors", "StoreError"),
    "StoreLayout": ("anamnesis.store.layout", "StoreLayout"),
    "StoreStats": ("anamnesis.store.model", "StoreStats"),
    "UnsafeFile": ("anamnesis.store.safe_files", "UnsafeFile"),
    "open_regular": ("anamnesis.store.safe_files", "open_regular"),
    "read_regular": ("anamnesis.store.safe_files", "read_regular"),
    "derived_id": ("anamnesis.store.ids", "derived_id"),
    "is_valid_id": ("anamnesis.store.ids", "is_valid_id"),
    "mask_outgoing": ("anamnesis.store.secret_scan", "mask_outgoing"),
    "new_id": ("anamnesis.store.ids", "new_id"),
    "parse_note": ("anamnesis.store.codec", "parse"),
    "read_config": ("anamnesis.store.config", "read_config"),
    "redact_secrets": ("anamnesis.store.redact", "redact_secrets"),
    "resolve_home": ("anamnesis.store.config", "resolve_home"),
    "resolve_machine_id": ("anamnesis.store.config", "resolve_machine_id"),
    "resolve_remote": ("anamnesis.store.config", "resolve_remote"),
    "serialize_note": ("anamnesis.store.codec", "serialize"),
    "write_config": ("anamnesis.store.config", "write_config"),
}

__all__ = [
    "DURABLE_TYPES",
    "NOTE_TYPES",
    "PROV_SOURCES",
    "SCOPES",
    "SEARCH_MODES",
    "SEARCH_MODE_ENV",
    "AdoptedFile",
    "AmbiguousId",
    "Embedder",
    "FastEmbedEmbedder",
    "IndexRebuiltWarning",
    "IndexUnavailable",
    "InvalidNote",
    "InvalidQuery",
    "MalformedNote",
    "MaskedFile",
    "Memory",
    "MemoryStore",
    "MemoryType",
    "NoteNotFound",
    "ReindexReport",
    "Scope",
    "SearchHit",
    "SearchResult",
    "SkippedFile",
    "StorageError",
    "StoreBusy",
    "StoreError",
    "StoreLayout",
    "StoreStats",
    "UnsafeFile",
    "VectorsUnavailable",
    "VectorsUnavailableWarning",
    "configured_search_mode",
    "derived_id",
    "is_valid_id",
    "mask_outgoing",
    "new_id",
    "open_regular",
    "parse_note",
    "read_config",
    "read_regular",
    "redact_secrets",
    "resolve_home",
    "resolve_machine_id",
    "resolve_remote",
    "serialize_note",
    "write_config",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'anamnesis.store' has no attribute {name!r}") from None
    value = getattr(import_module(module), attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
