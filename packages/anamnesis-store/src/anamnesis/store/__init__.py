"""anamnesis.store: memory notes as markdown files, with a derived SQLite FTS5 index.

The public names are the re-exports below, each declared once (:mod:`.exports`): type
checkers read them as written, and at run time each loads its module on first use, so
importing this package is cheap (a session hook that only reads notes never loads the
YAML, ULID or redaction code), and PyYAML and python-ulid load only when a note is parsed
the slow way or created. Everything else in the package is private to it.
"""

from anamnesis.store.exports import export_table as export_table
from anamnesis.store.exports import lazy_exports as lazy_exports

__version__ = "0.8.12"

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from anamnesis.store.config import REFLECTION_ENV_GUARD as REFLECTION_ENV_GUARD
    from anamnesis.store.config import read_config as read_config
    from anamnesis.store.config import resolve_home as resolve_home
    from anamnesis.store.config import resolve_machine_id as resolve_machine_id
    from anamnesis.store.config import resolve_remote as resolve_remote
    from anamnesis.store.config import write_config as write_config
    from anamnesis.store.config_keys import ConfigKey as ConfigKey
    from anamnesis.store.config_keys import InvalidSetting as InvalidSetting
    from anamnesis.store.config_keys import checking as checking
    from anamnesis.store.config_keys import default_machine_id as default_machine_id
    from anamnesis.store.config_keys import store_config_keys as store_config_keys
    from anamnesis.store.detached import log_to_store as log_to_store
    from anamnesis.store.detached import start_detached as start_detached
    from anamnesis.store.errors import AmbiguousId as AmbiguousId
    from anamnesis.store.errors import IndexRebuiltWarning as IndexRebuiltWarning
    from anamnesis.store.errors import IndexUnavailable as IndexUnavailable
    from anamnesis.store.errors import InvalidNote as InvalidNote
    from anamnesis.store.errors import InvalidQuery as InvalidQuery
    from anamnesis.store.errors import MalformedNote as MalformedNote
    from anamnesis.store.errors import NoteNotFound as NoteNotFound
    from anamnesis.store.errors import StorageError as StorageError
    from anamnesis.store.errors import StoreBusy as StoreBusy
    from anamnesis.store.errors import StoreError as StoreError
    from anamnesis.store.exchange.bounded_json import JsonTooDeep as JsonTooDeep
    from anamnesis.store.exchange.bounded_json import load_json as load_json
    from anamnesis.store.exchange.interchange import EXPORT_FORMATS as EXPORT_FORMATS
    from anamnesis.store.exchange.interchange import ExportReport as ExportReport
    from anamnesis.store.exchange.interchange import ImportPlan as ImportPlan
    from anamnesis.store.exchange.interchange import InterchangeError as InterchangeError
    from anamnesis.store.exchange.interchange import ReadNotes as ReadNotes
    from anamnesis.store.exchange.interchange import export_store as export_store
    from anamnesis.store.exchange.interchange import plan_import as plan_import
    from anamnesis.store.exchange.interchange import read_jsonl as read_jsonl
    from anamnesis.store.exchange.interchange import read_markdown_export as read_markdown_export
    from anamnesis.store.exchange.note_pages import every_note as every_note
    from anamnesis.store.exchange.openchronicle import ChronicleFile as ChronicleFile
    from anamnesis.store.exchange.openchronicle import ChronicleImport as ChronicleImport
    from anamnesis.store.exchange.openchronicle import load_project_map as load_project_map
    from anamnesis.store.exchange.openchronicle import (
        openchronicle_note_id as openchronicle_note_id,
    )
    from anamnesis.store.exchange.openchronicle import read_openchronicle as read_openchronicle
    from anamnesis.store.exchange.recall_eval import EvalCase as EvalCase
    from anamnesis.store.exchange.recall_eval import RecallReport as RecallReport
    from anamnesis.store.exchange.recall_eval import load_cases as load_cases
    from anamnesis.store.exchange.recall_eval import load_notes as load_notes
    from anamnesis.store.exchange.recall_eval import recall_at_k as recall_at_k
    from anamnesis.store.exchange.recall_eval import sandbox as sandbox
    from anamnesis.store.exchange.usage_report import UsageReport as UsageReport
    from anamnesis.store.exchange.usage_report import UsedNote as UsedNote
    from anamnesis.store.exchange.usage_report import never_used as never_used
    from anamnesis.store.exchange.usage_report import usage_report as usage_report
    from anamnesis.store.exchange.write_replies import (
        batch_contradictions as batch_contradictions,
    )
    from anamnesis.store.exchange.write_replies import contradictions_reply as contradictions_reply
    from anamnesis.store.exchange.write_replies import difference_text as difference_text
    from anamnesis.store.exchange.write_replies import differences_text as differences_text
    from anamnesis.store.exchange.write_replies import reply_line as reply_line
    from anamnesis.store.files.atomic import atomic_write_bytes as atomic_write_bytes
    from anamnesis.store.files.layout import StoreLayout as StoreLayout
    from anamnesis.store.files.safe_files import UnsafeFile as UnsafeFile
    from anamnesis.store.files.safe_files import open_regular as open_regular
    from anamnesis.store.files.safe_files import read_regular as read_regular
    from anamnesis.store.note.capture_digest import CAPTURE_DIGEST_KEY as CAPTURE_DIGEST_KEY
    from anamnesis.store.note.capture_digest import content_digest as content_digest
    from anamnesis.store.note.capture_digest import is_capture_owned as is_capture_owned
    from anamnesis.store.note.codec import parse_note as parse_note
    from anamnesis.store.note.codec import serialize_note as serialize_note
    from anamnesis.store.note.frontmatter import FrontmatterError as FrontmatterError
    from anamnesis.store.note.frontmatter import load_yaml_frontmatter as load_yaml_frontmatter
    from anamnesis.store.note.ids import derived_id as derived_id
    from anamnesis.store.note.ids import is_valid_id as is_valid_id
    from anamnesis.store.note.ids import new_id as new_id
    from anamnesis.store.note.invisible import display_safe as display_safe
    from anamnesis.store.note.invisible import match_text as match_text
    from anamnesis.store.note.limits import NoteLimits as NoteLimits
    from anamnesis.store.note.model import DURABLE_TYPES as DURABLE_TYPES
    from anamnesis.store.note.model import GLOBAL_PROJECT as GLOBAL_PROJECT
    from anamnesis.store.note.model import NOTE_TYPES as NOTE_TYPES
    from anamnesis.store.note.model import PROV_SOURCES as PROV_SOURCES
    from anamnesis.store.note.model import SCOPES as SCOPES
    from anamnesis.store.note.model import AdoptedFile as AdoptedFile
    from anamnesis.store.note.model import LeftoverFile as LeftoverFile
    from anamnesis.store.note.model import Memory as Memory
    from anamnesis.store.note.model import MemoryType as MemoryType
    from anamnesis.store.note.model import ReindexReport as ReindexReport
    from anamnesis.store.note.model import Scope as Scope
    from anamnesis.store.note.model import SearchHit as SearchHit
    from anamnesis.store.note.model import SearchResult as SearchResult
    from anamnesis.store.note.model import SkippedFile as SkippedFile
    from anamnesis.store.note.model import StoreStats as StoreStats
    from anamnesis.store.note.model import SupersedeChain as SupersedeChain
    from anamnesis.store.note.model_rewrite import REWRITTEN_BY_KEY as REWRITTEN_BY_KEY
    from anamnesis.store.note.model_rewrite import rewritten_by as rewritten_by
    from anamnesis.store.note.provenance import SOURCE_WORDS as SOURCE_WORDS
    from anamnesis.store.note.provenance import is_unconfirmed as is_unconfirmed
    from anamnesis.store.note.provenance import source_word as source_word
    from anamnesis.store.note.timestamps import utc_now as utc_now
    from anamnesis.store.note.validation import is_agent_name as is_agent_name
    from anamnesis.store.note.validation import validate_note as validate_note
    from anamnesis.store.note.validity import FROM_TODAY_FORMS as FROM_TODAY_FORMS
    from anamnesis.store.note.validity import check_when as check_when
    from anamnesis.store.note.validity import due_bound as due_bound
    from anamnesis.store.note.validity import expiry_bound as expiry_bound
    from anamnesis.store.note.validity import is_due as is_due
    from anamnesis.store.note.validity import is_expired as is_expired
    from anamnesis.store.note.validity import read_when as read_when
    from anamnesis.store.priority import BACKGROUND_NICE as BACKGROUND_NICE
    from anamnesis.store.priority import yield_to_sessions as yield_to_sessions
    from anamnesis.store.record import Record as Record
    from anamnesis.store.review.records import Contradiction as Contradiction
    from anamnesis.store.review.records import Difference as Difference
    from anamnesis.store.search.relative_scores import relative_scores as relative_scores
    from anamnesis.store.search.search_modes import DEFAULT_MODE as DEFAULT_MODE
    from anamnesis.store.search.search_modes import KEYWORD_MODE as KEYWORD_MODE
    from anamnesis.store.search.search_modes import KEYWORD_RANKING_ENV as KEYWORD_RANKING_ENV
    from anamnesis.store.search.search_modes import KEYWORD_RANKINGS as KEYWORD_RANKINGS
    from anamnesis.store.search.search_modes import SEARCH_MODE_ENV as SEARCH_MODE_ENV
    from anamnesis.store.search.search_modes import SEARCH_MODES as SEARCH_MODES
    from anamnesis.store.search.search_modes import QueryVector as QueryVector
    from anamnesis.store.search.search_modes import SearchMode as SearchMode
    from anamnesis.store.search.search_modes import configured_search_mode as configured_search_mode
    from anamnesis.store.search.stop_words import STOP_WORDS as STOP_WORDS
    from anamnesis.store.search.stop_words import content_terms as content_terms
    from anamnesis.store.secrets.commit_message import describe_commit as describe_commit
    from anamnesis.store.secrets.outgoing import SyncCycle as SyncCycle
    from anamnesis.store.secrets.outgoing import commit_outgoing as commit_outgoing
    from anamnesis.store.secrets.outgoing import sync_cycle as sync_cycle
    from anamnesis.store.secrets.redact import count_secrets as count_secrets
    from anamnesis.store.secrets.redact import redact_secrets as redact_secrets
    from anamnesis.store.secrets.secret_scan import MaskedFile as MaskedFile
    from anamnesis.store.secrets.secret_scan import NoteTrees as NoteTrees
    from anamnesis.store.sqlite_wal import use_wal as use_wal
    from anamnesis.store.store import MemoryStore as MemoryStore
    from anamnesis.store.usage.usage_log import USAGE_EVENTS as USAGE_EVENTS
    from anamnesis.store.usage.usage_log import NoteUse as NoteUse
    from anamnesis.store.usage.usage_log import RunCount as RunCount
    from anamnesis.store.usage.usage_log import UsageCounts as UsageCounts
    from anamnesis.store.usage.usage_log import UsageLog as UsageLog
    from anamnesis.store.vectors.embedding import MODEL_PATH_ENV as MODEL_PATH_ENV
    from anamnesis.store.vectors.embedding import Embedder as Embedder
    from anamnesis.store.vectors.embedding import FastEmbedEmbedder as FastEmbedEmbedder
    from anamnesis.store.vectors.embedding import (
        NotesNotEmbeddedWarning as NotesNotEmbeddedWarning,
    )
    from anamnesis.store.vectors.embedding import VectorsUnavailable as VectorsUnavailable
    from anamnesis.store.vectors.embedding import (
        VectorsUnavailableWarning as VectorsUnavailableWarning,
    )
    from anamnesis.store.vectors.embedding import configured_model as configured_model
    from anamnesis.store.vectors.embedding import default_embedder as default_embedder
    from anamnesis.store.vectors.embedding import (
        sqlite_can_load_extensions as sqlite_can_load_extensions,
    )
    from anamnesis.store.vectors.embedding import sqlite_vec_problem as sqlite_vec_problem
    from anamnesis.store.vectors.embedding import unreachable_model as unreachable_model
    from anamnesis.store.vectors.embedding import vector_support as vector_support
    from anamnesis.store.vectors.model_download import MODEL_FOLDER_HINT as MODEL_FOLDER_HINT
    from anamnesis.store.vectors.model_download import RETRY_AFTER_S as RETRY_AFTER_S
    from anamnesis.store.vectors.model_download import ModelUnreachable as ModelUnreachable
    from anamnesis.store.vectors.model_download import (
        forget_unreachable_model as forget_unreachable_model,
    )

if not TYPE_CHECKING:  # type checkers see only the names above, never a __getattr__
    __getattr__, __dir__ = lazy_exports(__name__)
