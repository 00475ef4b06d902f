"""anamnesis.hooks: Claude Code's session lifecycle feeding and reading the memory.

Never imports the MCP SDK. Names load from their modules on first use, so each hook
process loads only what it needs; other packages import them from here.
"""

from __future__ import annotations

from importlib import import_module

__version__ = "0.4.0"

TYPE_CHECKING = False  # typing itself costs an import; type checkers read this as True
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.hooks.__main__ import main
    from anamnesis.hooks.capture import CaptureResult, capture_session
    from anamnesis.hooks.capture_queue import queued_captures, refused_captures
    from anamnesis.hooks.recall_settings import (
        InvalidRecallSetting,
        check_recall_setting,
        recall_config_keys,
    )
    from anamnesis.hooks.registry import HOOKS, ClaudeCodeHook, HookSpec
    from anamnesis.hooks.syncing import sync_store

_EXPORTS: dict[str, str] = {
    "CaptureResult": "anamnesis.hooks.capture",
    "ClaudeCodeHook": "anamnesis.hooks.registry",
    "HOOKS": "anamnesis.hooks.registry",
    "HookSpec": "anamnesis.hooks.registry",
    "InvalidRecallSetting": "anamnesis.hooks.recall_settings",
    "capture_session": "anamnesis.hooks.capture",
    "check_recall_setting": "anamnesis.hooks.recall_settings",
    "recall_config_keys": "anamnesis.hooks.recall_settings",
    "main": "anamnesis.hooks.__main__",
    "queued_captures": "anamnesis.hooks.capture_queue",
    "refused_captures": "anamnesis.hooks.capture_queue",
    "sync_store": "anamnesis.hooks.syncing",
}

__all__ = [
    "HOOKS",
    "CaptureResult",
    "ClaudeCodeHook",
    "HookSpec",
    "InvalidRecallSetting",
    "__version__",
    "capture_session",
    "check_recall_setting",
    "main",
    "queued_captures",
    "recall_config_keys",
    "refused_captures",
    "sync_store",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'anamnesis.hooks' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value
