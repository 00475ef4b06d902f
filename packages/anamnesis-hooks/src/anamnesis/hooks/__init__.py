"""anamnesis.hooks: coding agents' session lifecycles (Claude Code's, Codex's, ...) feeding
and reading the memory.

Never imports the MCP SDK. The public names are the re-exports below, each declared once
(the store's :func:`~anamnesis.store.lazy_exports`): ``__all__`` derives from them, and
each loads its module on first use, so each hook process loads only what it needs; other
packages import them from here.
"""

from anamnesis.store import lazy_exports

__version__ = "0.7.1"

TYPE_CHECKING = False  # typing itself costs the hooks an import; type checkers read True
if TYPE_CHECKING:
    from anamnesis.hooks.__main__ import main as main
    from anamnesis.hooks.agents.table import AGENTS as AGENTS
    from anamnesis.hooks.agents.table import DEFAULT_AGENT as DEFAULT_AGENT
    from anamnesis.hooks.agents.table import AgentHook as AgentHook
    from anamnesis.hooks.agents.table import AgentSpec as AgentSpec
    from anamnesis.hooks.capture import CaptureResult as CaptureResult
    from anamnesis.hooks.capture import capture_session as capture_session
    from anamnesis.hooks.capture_queue import queued_captures as queued_captures
    from anamnesis.hooks.capture_queue import refused_captures as refused_captures
    from anamnesis.hooks.recall_settings import InvalidRecallSetting as InvalidRecallSetting
    from anamnesis.hooks.recall_settings import check_recall_setting as check_recall_setting
    from anamnesis.hooks.recall_settings import recall_config_keys as recall_config_keys
    from anamnesis.hooks.registry import HOOKS as HOOKS
    from anamnesis.hooks.registry import HookSpec as HookSpec
    from anamnesis.hooks.syncing import sync_store as sync_store

if not TYPE_CHECKING:  # type checkers see only the names above, never a __getattr__
    __getattr__, __dir__ = lazy_exports(__name__)
