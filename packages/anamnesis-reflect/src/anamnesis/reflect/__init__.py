"""anamnesis.reflect: reflection for Anamnesis, with any LLM or none.

The provider layer: :func:`load_settings` reads the ``llm.*`` settings, :func:`make_provider`
builds the :class:`Provider` they name (heuristic, claude-code, openai, anthropic), and
:func:`fit_to_budget` masks secrets and fits texts to a token budget before they are sent.

Importing this package is cheap: names load from their modules on first use, so reading
:data:`REFLECTION_ENV_GUARD` or the settings never loads urllib or subprocess.
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing itself costs an import; type checkers read this as True
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.reflect.compaction import DEFAULT_MIN_TOKENS as COMPACT_MIN_TOKENS
    from anamnesis.reflect.compaction import (
        NEEDS_REVIEW_TAG,
        CompactionReport,
        NoteCompaction,
        fold_text,
        run_compaction,
    )
    from anamnesis.reflect.eval_cases import (
        UnknownCases,
        approve_cases,
        approved_cases,
        cases_path,
        generate_cases,
        load_store_cases,
    )
    from anamnesis.reflect.fact_check import FactCheck, Facts, check_facts, extract_facts
    from anamnesis.reflect.merge import run_merge
    from anamnesis.reflect.merge_candidates import CandidateGroup
    from anamnesis.reflect.merge_gate import GateLoss
    from anamnesis.reflect.merge_report import GroupOutcome, MergeCall, MergeReport
    from anamnesis.reflect.prompting import (
        CHARS_PER_TOKEN,
        CUT_MARKER,
        Window,
        estimate_tokens,
        fit_to_budget,
        redact_prompt,
    )
    from anamnesis.reflect.providers.anthropic import AnthropicProvider
    from anamnesis.reflect.providers.check import ProbeResult, test_provider
    from anamnesis.reflect.providers.claude_code import ClaudeCodeProvider
    from anamnesis.reflect.providers.heuristic import HeuristicProvider
    from anamnesis.reflect.providers.openai import OpenAIProvider
    from anamnesis.reflect.providers.protocol import (
        REFLECTION_ENV_GUARD,
        InvalidLlmSetting,
        Provider,
        ProviderError,
        ProviderFailed,
        ProviderRejected,
        ProviderTimeout,
        ProviderUnavailable,
        UnusableReply,
    )
    from anamnesis.reflect.providers.registry import PROVIDERS, ProviderSpec
    from anamnesis.reflect.providers.settings import (
        LlmSettings,
        check_setting,
        llm_config_keys,
        load_settings,
        make_provider,
    )
    from anamnesis.reflect.reflection import (
        ApplyResult,
        ProjectOutcome,
        ProjectPlan,
        ProposedNote,
        ReflectionReport,
        apply_reflection,
        plan_reflection,
        run_reflection,
        validate_reply,
    )
    from anamnesis.reflect.replies import InvalidReply
    from anamnesis.reflect.run_lock import ReflectionBusy

__version__ = "0.2.0"

_PROTOCOL = "anamnesis.reflect.providers.protocol"
_SETTINGS = "anamnesis.reflect.providers.settings"
_PROMPTING = "anamnesis.reflect.prompting"
_REFLECTION = "anamnesis.reflect.reflection"
_COMPACTION = "anamnesis.reflect.compaction"
_FACT_CHECK = "anamnesis.reflect.fact_check"
_EXPORTS: dict[str, tuple[str, str]] = {
    "COMPACT_MIN_TOKENS": (_COMPACTION, "DEFAULT_MIN_TOKENS"),
    "NEEDS_REVIEW_TAG": (_COMPACTION, "NEEDS_REVIEW_TAG"),
    "CompactionReport": (_COMPACTION, "CompactionReport"),
    "NoteCompaction": (_COMPACTION, "NoteCompaction"),
    "fold_text": (_COMPACTION, "fold_text"),
    "run_compaction": (_COMPACTION, "run_compaction"),
    "FactCheck": (_FACT_CHECK, "FactCheck"),
    "Facts": (_FACT_CHECK, "Facts"),
    "check_facts": (_FACT_CHECK, "check_facts"),
    "extract_facts": (_FACT_CHECK, "extract_facts"),
    "CandidateGroup": ("anamnesis.reflect.merge_candidates", "CandidateGroup"),
    "GateLoss": ("anamnesis.reflect.merge_gate", "GateLoss"),
    "GroupOutcome": ("anamnesis.reflect.merge_report", "GroupOutcome"),
    "MergeCall": ("anamnesis.reflect.merge_report", "MergeCall"),
    "MergeReport": ("anamnesis.reflect.merge_report", "MergeReport"),
    "run_merge": ("anamnesis.reflect.merge", "run_merge"),
    "UnknownCases": ("anamnesis.reflect.eval_cases", "UnknownCases"),
    "approve_cases": ("anamnesis.reflect.eval_cases", "approve_cases"),
    "approved_cases": ("anamnesis.reflect.eval_cases", "approved_cases"),
    "cases_path": ("anamnesis.reflect.eval_cases", "cases_path"),
    "generate_cases": ("anamnesis.reflect.eval_cases", "generate_cases"),
    "load_store_cases": ("anamnesis.reflect.eval_cases", "load_store_cases"),
    "REFLECTION_ENV_GUARD": (_PROTOCOL, "REFLECTION_ENV_GUARD"),
    "InvalidLlmSetting": (_PROTOCOL, "InvalidLlmSetting"),
    "Provider": (_PROTOCOL, "Provider"),
    "ProviderError": (_PROTOCOL, "ProviderError"),
    "ProviderFailed": (_PROTOCOL, "ProviderFailed"),
    "ProviderRejected": (_PROTOCOL, "ProviderRejected"),
    "ProviderTimeout": (_PROTOCOL, "ProviderTimeout"),
    "ProviderUnavailable": (_PROTOCOL, "ProviderUnavailable"),
    "UnusableReply": (_PROTOCOL, "UnusableReply"),
    "PROVIDERS": ("anamnesis.reflect.providers.registry", "PROVIDERS"),
    "ProviderSpec": ("anamnesis.reflect.providers.registry", "ProviderSpec"),
    "LlmSettings": (_SETTINGS, "LlmSettings"),
    "load_settings": (_SETTINGS, "load_settings"),
    "make_provider": (_SETTINGS, "make_provider"),
    "check_setting": (_SETTINGS, "check_setting"),
    "llm_config_keys": (_SETTINGS, "llm_config_keys"),
    "InvalidReply": ("anamnesis.reflect.replies", "InvalidReply"),
    "ReflectionBusy": ("anamnesis.reflect.run_lock", "ReflectionBusy"),
    "HeuristicProvider": ("anamnesis.reflect.providers.heuristic", "HeuristicProvider"),
    "ClaudeCodeProvider": ("anamnesis.reflect.providers.claude_code", "ClaudeCodeProvider"),
    "OpenAIProvider": ("anamnesis.reflect.providers.openai", "OpenAIProvider"),
    "AnthropicProvider": ("anamnesis.reflect.providers.anthropic", "AnthropicProvider"),
    "ProbeResult": ("anamnesis.reflect.providers.check", "ProbeResult"),
    "test_provider": ("anamnesis.reflect.providers.check", "test_provider"),
    "CHARS_PER_TOKEN": (_PROMPTING, "CHARS_PER_TOKEN"),
    "CUT_MARKER": (_PROMPTING, "CUT_MARKER"),
    "Window": (_PROMPTING, "Window"),
    "estimate_tokens": (_PROMPTING, "estimate_tokens"),
    "fit_to_budget": (_PROMPTING, "fit_to_budget"),
    "redact_prompt": (_PROMPTING, "redact_prompt"),
    "ApplyResult": (_REFLECTION, "ApplyResult"),
    "ProjectOutcome": (_REFLECTION, "ProjectOutcome"),
    "ProjectPlan": (_REFLECTION, "ProjectPlan"),
    "ProposedNote": (_REFLECTION, "ProposedNote"),
    "ReflectionReport": (_REFLECTION, "ReflectionReport"),
    "apply_reflection": (_REFLECTION, "apply_reflection"),
    "plan_reflection": (_REFLECTION, "plan_reflection"),
    "run_reflection": (_REFLECTION, "run_reflection"),
    "validate_reply": (_REFLECTION, "validate_reply"),
}

__all__ = [
    "CHARS_PER_TOKEN",
    "COMPACT_MIN_TOKENS",
    "CUT_MARKER",
    "NEEDS_REVIEW_TAG",
    "PROVIDERS",
    "REFLECTION_ENV_GUARD",
    "AnthropicProvider",
    "ApplyResult",
    "CandidateGroup",
    "ClaudeCodeProvider",
    "CompactionReport",
    "FactCheck",
    "Facts",
    "GateLoss",
    "GroupOutcome",
    "HeuristicProvider",
    "InvalidLlmSetting",
    "InvalidReply",
    "LlmSettings",
    "MergeCall",
    "MergeReport",
    "NoteCompaction",
    "OpenAIProvider",
    "ProbeResult",
    "ProjectOutcome",
    "ProjectPlan",
    "ProposedNote",
    "Provider",
    "ProviderError",
    "ProviderFailed",
    "ProviderRejected",
    "ProviderSpec",
    "ProviderTimeout",
    "ProviderUnavailable",
    "ReflectionBusy",
    "ReflectionReport",
    "UnknownCases",
    "UnusableReply",
    "Window",
    "apply_reflection",
    "approve_cases",
    "approved_cases",
    "cases_path",
    "check_facts",
    "check_setting",
    "estimate_tokens",
    "extract_facts",
    "fit_to_budget",
    "fold_text",
    "generate_cases",
    "llm_config_keys",
    "load_settings",
    "load_store_cases",
    "make_provider",
    "plan_reflection",
    "redact_prompt",
    "run_compaction",
    "run_merge",
    "run_reflection",
    "test_provider",
    "validate_reply",
]


def __getattr__(name: str) -> Any:
    try:
        module, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'anamnesis.reflect' has no attribute {name!r}") from None
    value = getattr(import_module(module), attribute)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
