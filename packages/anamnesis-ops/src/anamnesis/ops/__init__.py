"""anamnesis.ops: one home and what every front end does with it.

:class:`Home` (the layout, config, machine id and remote of a store root; it opens the store
and makes the sync backend), the one sync cycle (:func:`run_sync`, :class:`SyncReport`,
:func:`commit_for_sync`), keep-both for conflicts (:func:`store_fork`), Claude Code's own
memory mirrored in (:func:`import_native_memory`), the project a folder belongs to
(:func:`resolve_project_key`), the memory block a session starts with
(:func:`select_inject`, :func:`render_inject`: the SessionStart hook prints it, the MCP
server serves it as a resource; each note under a marker of where it comes from, read from
a :class:`Viewpoint`), doctor's checks of a home (:func:`home_checks`, each a
:class:`Check`) and embedding in a process of its own (:func:`start_background_embedding`,
never started by a hook). The hooks, the MCP server, the CLI and the dashboard all stand on it.

The public names are the re-exports below, each declared once (the store's
:func:`~anamnesis.store.lazy_exports`): ``__all__`` derives from them, and each loads its
module on first use, so importing this package is cheap (a session hook resolves a project
key without loading the sync code or dulwich).
"""

from anamnesis.store import lazy_exports

__version__ = "0.5.0"

TYPE_CHECKING = False  # typing itself costs the hooks an import; type checkers read True
if TYPE_CHECKING:
    from anamnesis.ops.background_embedding import BackgroundEmbedding as BackgroundEmbedding
    from anamnesis.ops.background_embedding import EmbeddingBusy as EmbeddingBusy
    from anamnesis.ops.background_embedding import embed_backlog as embed_backlog
    from anamnesis.ops.background_embedding import embedder_pid as embedder_pid
    from anamnesis.ops.background_embedding import embedding_turn as embedding_turn
    from anamnesis.ops.background_embedding import (
        start_background_embedding as start_background_embedding,
    )
    from anamnesis.ops.checks.store_checks import swept_summary as swept_summary
    from anamnesis.ops.checks.table import home_check_table as home_check_table
    from anamnesis.ops.checks.table import home_checks as home_checks
    from anamnesis.ops.checks.verdict import FAIL as FAIL
    from anamnesis.ops.checks.verdict import OK as OK
    from anamnesis.ops.checks.verdict import WARN as WARN
    from anamnesis.ops.checks.verdict import Check as Check
    from anamnesis.ops.checks.verdict import CheckTable as CheckTable
    from anamnesis.ops.checks.verdict import HomeCheck as HomeCheck
    from anamnesis.ops.checks.verdict import run_check_table as run_check_table
    from anamnesis.ops.cycle import SyncReport as SyncReport
    from anamnesis.ops.cycle import commit_for_sync as commit_for_sync
    from anamnesis.ops.cycle import run_sync as run_sync
    from anamnesis.ops.cycle import sync_with as sync_with
    from anamnesis.ops.home import Home as Home
    from anamnesis.ops.keep_both import open_conflicts as open_conflicts
    from anamnesis.ops.keep_both import store_fork as store_fork
    from anamnesis.ops.memory_block import INJECT_BUDGET as INJECT_BUDGET
    from anamnesis.ops.memory_block import INJECT_K as INJECT_K
    from anamnesis.ops.memory_block import INJECT_MAX_BUDGET as INJECT_MAX_BUDGET
    from anamnesis.ops.memory_block import INJECT_MIN_BUDGET as INJECT_MIN_BUDGET
    from anamnesis.ops.memory_block import MARKED_NOTICE as MARKED_NOTICE
    from anamnesis.ops.memory_block import MEMORY_NOTICE as MEMORY_NOTICE
    from anamnesis.ops.memory_block import BlockSelection as BlockSelection
    from anamnesis.ops.memory_block import fence as fence
    from anamnesis.ops.memory_block import fit_notes as fit_notes
    from anamnesis.ops.memory_block import injectable as injectable
    from anamnesis.ops.memory_block import injected_ids as injected_ids
    from anamnesis.ops.memory_block import render_inject as render_inject
    from anamnesis.ops.memory_block import select_inject as select_inject
    from anamnesis.ops.native import ImportReport as ImportReport
    from anamnesis.ops.native import claude_home as claude_home
    from anamnesis.ops.native import import_native_memory as import_native_memory
    from anamnesis.ops.project import resolve_project_key as resolve_project_key
    from anamnesis.ops.provenance_marker import Viewpoint as Viewpoint
    from anamnesis.ops.provenance_marker import age_text as age_text
    from anamnesis.ops.provenance_marker import note_marker as note_marker
    from anamnesis.ops.remotes.codec import CodecError as CodecError
    from anamnesis.ops.remotes.codec import MirrorCodec as MirrorCodec
    from anamnesis.ops.remotes.codec import PlainCodec as PlainCodec
    from anamnesis.ops.remotes.codec import codec_for as codec_for
    from anamnesis.ops.remotes.config import DEFAULT_REMOTE as DEFAULT_REMOTE
    from anamnesis.ops.remotes.config import RemoteConfigError as RemoteConfigError
    from anamnesis.ops.remotes.config import RemoteSpec as RemoteSpec
    from anamnesis.ops.remotes.config import remote_specs as remote_specs
    from anamnesis.ops.remotes.manage import add_remote as add_remote
    from anamnesis.ops.remotes.manage import remove_remote as remove_remote
    from anamnesis.ops.remotes.manage import set_rules as set_rules
    from anamnesis.ops.remotes.moves import Move as Move
    from anamnesis.ops.remotes.moves import apply_moves as apply_moves
    from anamnesis.ops.remotes.moves import pending_moves as pending_moves
    from anamnesis.ops.remotes.moves import share as share
    from anamnesis.ops.remotes.multi_cycle import RemoteReport as RemoteReport
    from anamnesis.ops.remotes.routing import NoteFacts as NoteFacts
    from anamnesis.ops.remotes.routing import Route as Route
    from anamnesis.ops.remotes.routing import Router as Router
    from anamnesis.ops.remotes.routing import which_remote as which_remote
    from anamnesis.ops.remotes.sealed import MemberAdded as MemberAdded
    from anamnesis.ops.remotes.sealed import Membership as Membership
    from anamnesis.ops.remotes.sealed import add_member as add_member
    from anamnesis.ops.remotes.sealed import machine_public_key as machine_public_key
    from anamnesis.ops.remotes.sealed import membership as membership
    from anamnesis.ops.remotes.sealing.errors import NotARecipient as NotARecipient
    from anamnesis.ops.remotes.sealing.errors import RecipientsError as RecipientsError
    from anamnesis.ops.remotes.sealing.errors import SealError as SealError
    from anamnesis.ops.remotes.state import RemoteState as RemoteState
    from anamnesis.ops.remotes.state import remotes_state as remotes_state

if not TYPE_CHECKING:  # type checkers see only the names above, never a __getattr__
    __getattr__, __dir__ = lazy_exports(__name__)
