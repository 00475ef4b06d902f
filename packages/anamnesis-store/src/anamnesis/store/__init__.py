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

    from anamnesis.store.atomic import atomic_write_bytes
    from anamnesis.store.bounded_json import JsonTooDeep, load_json
    from anamnesis.store.capture_digest import (
        CAPTURE_DIGEST_KEY,
        content_digest,
        is_capture_owned,
    )
    from anamnesis.store.codec import parse as parse_note
    from anamnesis.store.codec import serialize as serialize_note
    from anamnesis.store.config import (
        CONFIG_FILE,
        REFLECTION_ENV_GUARD,
        read_config,
        resolve_home,
        resolve_machine_id,
        resolve_remote,
        write_config,
    )
    from anamnesis.store.config_keys import (
        ConfigKey,
        InvalidSetting,
        checking,
        default_machine_id,
        store_config_keys,
    )
    from anamnesis.store.embedding import (
        MODEL_PATH_ENV,
        Embedder,
        FastEmbedEmbedder,
        VectorsUnavailable,
        VectorsUnavailableWarning,
        configured_model,
        default_embedder,
        sqlite_can_load_extensions,
        sqlite_vec_problem,
        vector_support,
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
    from anamnesis.store.frontmatter import FrontmatterError
    from anamnesis.store.frontmatter import load_yaml as load_yaml_frontmatter
    from anamnesis.store.ids import derived_id, is_valid_id, new_id
    from anamnesis.store.interchange import FORMATS as EXPORT_FORMATS
    from anamnesis.store.interchange import (
        ExportReport,
        ImportPlan,
        InterchangeError,
        ReadNotes,
        export_store,
        plan_import,
        read_jsonl,
        read_markdown_export,
    )
    from anamnesis.store.invisible import display_safe, match_text
    from anamnesis.store.layout import StoreLayout
    from anamnesis.store.limits import NoteLimits
    from anamnesis.store.model import (
        DURABLE_TYPES,
        NOTE_TYPES,
        PROV_SOURCES,
        SCOPES,
        AdoptedFile,
        LeftoverFile,
        Memory,
        MemoryType,
        ReindexReport,
        Scope,
        SearchHit,
        SearchResult,
        SkippedFile,
        StoreStats,
        SupersedeChain,
    )
    from anamnesis.store.model_rewrite import REWRITTEN_BY_KEY, rewritten_by
    from anamnesis.store.note_pages import every_note
    from anamnesis.store.openchronicle import (
        ChronicleFile,
        ChronicleImport,
        load_project_map,
        openchronicle_note_id,
        read_openchronicle,
    )
    from anamnesis.store.outgoing import SyncCycle, commit_outgoing, sync_cycle
    from anamnesis.store.priority import BACKGROUND_NICE, yield_to_sessions
    from anamnesis.store.recall_eval import (
        EvalCase,
        RecallReport,
        load_cases,
        load_notes,
        recall_at_k,
        sandbox,
    )
    from anamnesis.store.record import Record
    from anamnesis.store.redact import count_secrets, redact_secrets
    from anamnesis.store.safe_files import UnsafeFile, open_regular, read_regular
    from anamnesis.store.search_modes import (
        DEFAULT_MODE,
        KEYWORD_MODE,
        KEYWORD_RANKING_ENV,
        KEYWORD_RANKINGS,
        SEARCH_MODE_ENV,
        SEARCH_MODES,
        QueryVector,
        SearchMode,
        configured_search_mode,
    )
    from anamnesis.store.secret_scan import MaskedFile, NoteTrees
    from anamnesis.store.stop_words import STOP_WORDS, content_terms
    from anamnesis.store.store import MemoryStore
    from anamnesis.store.timestamps import utc_now
    from anamnesis.store.validation import validate as validate_note

__version__ = "0.3.0"

_EXPORTS: dict[str, tuple[str, str]] = {
    "CONFIG_FILE": ("anamnesis.store.config", "CONFIG_FILE"),
    "ConfigKey": ("anamnesis.store.config_keys", "ConfigKey"),
    "InvalidSetting": ("anamnesis.store.config_keys", "InvalidSetting"),
    "checking": ("anamnesis.store.config_keys", "checking"),
    "default_machine_id": ("anamnesis.store.config_keys", "default_machine_id"),
    "store_config_keys": ("anamnesis.store.config_keys", "store_config_keys"),
    "CAPTURE_DIGEST_KEY": ("anamnesis.store.capture_digest", "CAPTURE_DIGEST_KEY"),
    "content_digest": ("anamnesis.store.capture_digest", "content_digest"),
    "is_capture_owned": ("anamnesis.store.capture_digest", "is_capture_owned"),
    "REWRITTEN_BY_KEY": ("anamnesis.store.model_rewrite", "REWRITTEN_BY_KEY"),
    "rewritten_by": ("anamnesis.store.model_rewrite", "rewritten_by"),
    "REFLECTION_ENV_GUARD": ("anamnesis.store.config", "REFLECTION_ENV_GUARD"),
    "EvalCase": ("anamnesis.store.recall_eval", "EvalCase"),
    "FrontmatterError": ("anamnesis.store.frontmatter", "FrontmatterError"),
    "LeftoverFile": ("anamnesis.store.model", "LeftoverFile"),
    "MODEL_PATH_ENV": ("anamnesis.store.embedding", "MODEL_PATH_ENV"),
    "RecallReport": ("anamnesis.store.recall_eval", "RecallReport"),
    "atomic_write_bytes": ("anamnesis.store.atomic", "atomic_write_bytes"),
    "JsonTooDeep": ("anamnesis.store.bounded_json", "JsonTooDeep"),
    "load_json": ("anamnesis.store.bounded_json", "load_json"),
    "configured_model": ("anamnesis.store.embedding", "configured_model"),
    "count_secrets": ("anamnesis.store.redact", "count_secrets"),
    "default_embedder": ("anamnesis.store.embedding", "default_embedder"),
    "load_cases": ("anamnesis.store.recall_eval", "load_cases"),
    "load_notes": ("anamnesis.store.recall_eval", "load_notes"),
    "load_yaml_frontmatter": ("anamnesis.store.frontmatter", "load_yaml"),
    "recall_at_k": ("anamnesis.store.recall_eval", "recall_at_k"),
    "sandbox": ("anamnesis.store.recall_eval", "sandbox"),
    "sqlite_can_load_extensions": ("anamnesis.store.embedding", "sqlite_can_load_extensions"),
    "sqlite_vec_problem": ("anamnesis.store.embedding", "sqlite_vec_problem"),
    "utc_now": ("anamnesis.store.timestamps", "utc_now"),
    "every_note": ("anamnesis.store.note_pages", "every_note"),
    "validate_note": ("anamnesis.store.validation", "validate"),
    "vector_support": ("anamnesis.store.embedding", "vector_support"),
    "AdoptedFile": ("anamnesis.store.model", "AdoptedFile"),
    "AmbiguousId": ("anamnesis.store.errors", "AmbiguousId"),
    "DURABLE_TYPES": ("anamnesis.store.model", "DURABLE_TYPES"),
    "Embedder": ("anamnesis.store.embedding", "Embedder"),
    "FastEmbedEmbedder": ("anamnesis.store.embedding", "FastEmbedEmbedder"),
    "SEARCH_MODES": ("anamnesis.store.search_modes", "SEARCH_MODES"),
    "SearchMode": ("anamnesis.store.search_modes", "SearchMode"),
    "QueryVector": ("anamnesis.store.search_modes", "QueryVector"),
    "DEFAULT_MODE": ("anamnesis.store.search_modes", "DEFAULT_MODE"),
    "KEYWORD_MODE": ("anamnesis.store.search_modes", "KEYWORD_MODE"),
    "KEYWORD_RANKINGS": ("anamnesis.store.search_modes", "KEYWORD_RANKINGS"),
    "KEYWORD_RANKING_ENV": ("anamnesis.store.search_modes", "KEYWORD_RANKING_ENV"),
    "STOP_WORDS": ("anamnesis.store.stop_words", "STOP_WORDS"),
    "content_terms": ("anamnesis.store.stop_words", "content_terms"),
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
    "NoteTrees": ("anamnesis.store.secret_scan", "NoteTrees"),
    "SyncCycle": ("anamnesis.store.outgoing", "SyncCycle"),
    "commit_outgoing": ("anamnesis.store.outgoing", "commit_outgoing"),
    "sync_cycle": ("anamnesis.store.outgoing", "sync_cycle"),
    "Memory": ("anamnesis.store.model", "Memory"),
    "MemoryStore": ("anamnesis.store.store", "MemoryStore"),
    "MemoryType": ("anamnesis.store.model", "MemoryType"),
    "NOTE_TYPES": ("anamnesis.store.model", "NOTE_TYPES"),
    "NoteLimits": ("anamnesis.store.limits", "NoteLimits"),
    "NoteNotFound": ("anamnesis.store.errors", "NoteNotFound"),
    "PROV_SOURCES": ("anamnesis.store.model", "PROV_SOURCES"),
    "Record": ("anamnesis.store.record", "Record"),
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
    "SupersedeChain": ("anamnesis.store.model", "SupersedeChain"),
    "UnsafeFile": ("anamnesis.store.safe_files", "UnsafeFile"),
    "open_regular": ("anamnesis.store.safe_files", "open_regular"),
    "read_regular": ("anamnesis.store.safe_files", "read_regular"),
    "derived_id": ("anamnesis.store.ids", "derived_id"),
    "display_safe": ("anamnesis.store.invisible", "display_safe"),
    "match_text": ("anamnesis.store.invisible", "match_text"),
    "EXPORT_FORMATS": ("anamnesis.store.interchange", "FORMATS"),
    "ExportReport": ("anamnesis.store.interchange", "ExportReport"),
    "ImportPlan": ("anamnesis.store.interchange", "ImportPlan"),
    "InterchangeError": ("anamnesis.store.interchange", "InterchangeError"),
    "ReadNotes": ("anamnesis.store.interchange", "ReadNotes"),
    "export_store": ("anamnesis.store.interchange", "export_store"),
    "plan_import": ("anamnesis.store.interchange", "plan_import"),
    "read_jsonl": ("anamnesis.store.interchange", "read_jsonl"),
    "read_markdown_export": ("anamnesis.store.interchange", "read_markdown_export"),
    "ChronicleFile": ("anamnesis.store.openchronicle", "ChronicleFile"),
    "ChronicleImport": ("anamnesis.store.openchronicle", "ChronicleImport"),
    "load_project_map": ("anamnesis.store.openchronicle", "load_project_map"),
    "openchronicle_note_id": ("anamnesis.store.openchronicle", "openchronicle_note_id"),
    "read_openchronicle": ("anamnesis.store.openchronicle", "read_openchronicle"),
    "is_valid_id": ("anamnesis.store.ids", "is_valid_id"),
    "new_id": ("anamnesis.store.ids", "new_id"),
    "parse_note": ("anamnesis.store.codec", "parse"),
    "read_config": ("anamnesis.store.config", "read_config"),
    "redact_secrets": ("anamnesis.store.redact", "redact_secrets"),
    "resolve_home": ("anamnesis.store.config", "resolve_home"),
    "resolve_machine_id": ("anamnesis.store.config", "resolve_machine_id"),
    "resolve_remote": ("anamnesis.store.config", "resolve_remote"),
    "serialize_note": ("anamnesis.store.codec", "serialize"),
    "write_config": ("anamnesis.store.config", "write_config"),
    "yield_to_sessions": ("anamnesis.store.priority", "yield_to_sessions"),
    "BACKGROUND_NICE": ("anamnesis.store.priority", "BACKGROUND_NICE"),
}

__all__ = [
    "BACKGROUND_NICE",
    "CAPTURE_DIGEST_KEY",
    "CONFIG_FILE",
    "DEFAULT_MODE",
    "DURABLE_TYPES",
    "EXPORT_FORMATS",
    "KEYWORD_MODE",
    "KEYWORD_RANKINGS",
    "KEYWORD_RANKING_ENV",
    "MODEL_PATH_ENV",
    "NOTE_TYPES",
    "PROV_SOURCES",
    "REFLECTION_ENV_GUARD",
    "REWRITTEN_BY_KEY",
    "SCOPES",
    "SEARCH_MODES",
    "SEARCH_MODE_ENV",
    "STOP_WORDS",
    "AdoptedFile",
    "AmbiguousId",
    "ChronicleFile",
    "ChronicleImport",
    "ConfigKey",
    "Embedder",
    "EvalCase",
    "ExportReport",
    "FastEmbedEmbedder",
    "FrontmatterError",
    "ImportPlan",
    "IndexRebuiltWarning",
    "IndexUnavailable",
    "InterchangeError",
    "InvalidNote",
    "InvalidQuery",
    "InvalidSetting",
    "JsonTooDeep",
    "LeftoverFile",
    "MalformedNote",
    "MaskedFile",
    "Memory",
    "MemoryStore",
    "MemoryType",
    "NoteLimits",
    "NoteNotFound",
    "NoteTrees",
    "QueryVector",
    "ReadNotes",
    "RecallReport",
    "Record",
    "ReindexReport",
    "Scope",
    "SearchHit",
    "SearchMode",
    "SearchResult",
    "SkippedFile",
    "StorageError",
    "StoreBusy",
    "StoreError",
    "StoreLayout",
    "StoreStats",
    "SupersedeChain",
    "SyncCycle",
    "UnsafeFile",
    "VectorsUnavailable",
    "VectorsUnavailableWarning",
    "atomic_write_bytes",
    "checking",
    "commit_outgoing",
    "configured_model",
    "configured_search_mode",
    "content_digest",
    "content_terms",
    "count_secrets",
    "default_embedder",
    "default_machine_id",
    "derived_id",
    "display_safe",
    "every_note",
    "export_store",
    "is_capture_owned",
    "is_valid_id",
    "load_cases",
    "load_json",
    "load_notes",
    "load_project_map",
    "load_yaml_frontmatter",
    "match_text",
    "new_id",
    "open_regular",
    "openchronicle_note_id",
    "parse_note",
    "plan_import",
    "read_config",
    "read_jsonl",
    "read_markdown_export",
    "read_openchronicle",
    "read_regular",
    "recall_at_k",
    "redact_secrets",
    "resolve_home",
    "resolve_machine_id",
    "resolve_remote",
    "rewritten_by",
    "sandbox",
    "serialize_note",
    "sqlite_can_load_extensions",
    "sqlite_vec_problem",
    "store_config_keys",
    "sync_cycle",
    "utc_now",
    "validate_note",
    "vector_support",
    "write_config",
    "yield_to_sessions",
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
