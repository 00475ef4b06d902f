"""anamnesis.reflect: reflection for Anamnesis, with any LLM or none.

The provider layer: :func:`load_settings` reads the ``llm.*`` settings, :func:`make_provider`
builds the :class:`Provider` they name (heuristic, claude-code, openai, anthropic), and
:func:`fit_to_budget` masks secrets and fits texts to a token budget before they are sent.

The public names are the re-exports below, each declared once (the store's
:func:`~anamnesis.store.lazy_exports`): ``__all__`` derives from them, and each loads its
module on first use, so reading :data:`REFLECTION_ENV_GUARD` or the settings never loads
urllib or subprocess (the CLI's config reads the settings' keys).
"""

from typing import TYPE_CHECKING

from anamnesis.store import lazy_exports

__version__ = "0.5.3"

if TYPE_CHECKING:
    from anamnesis.reflect.compaction import COMPACT_MIN_TOKENS as COMPACT_MIN_TOKENS
    from anamnesis.reflect.compaction import NEEDS_REVIEW_TAG as NEEDS_REVIEW_TAG
    from anamnesis.reflect.compaction import CompactionReport as CompactionReport
    from anamnesis.reflect.compaction import NoteCompaction as NoteCompaction
    from anamnesis.reflect.compaction import fold_text as fold_text
    from anamnesis.reflect.compaction import run_compaction as run_compaction
    from anamnesis.reflect.contradiction_check import ConfirmReport as ConfirmReport
    from anamnesis.reflect.contradiction_check import (
        confirm_contradictions as confirm_contradictions,
    )
    from anamnesis.reflect.contradiction_verdicts import CONTRADICTS as CONTRADICTS
    from anamnesis.reflect.contradiction_verdicts import VERDICTS as VERDICTS
    from anamnesis.reflect.contradiction_verdicts import Verdict as Verdict
    from anamnesis.reflect.contradiction_verdicts import by_verdict as by_verdict
    from anamnesis.reflect.contradiction_verdicts import confirmed_wider as confirmed_wider
    from anamnesis.reflect.contradiction_verdicts import review_verdicts as review_verdicts
    from anamnesis.reflect.contradiction_verdicts import verdicts_for as verdicts_for
    from anamnesis.reflect.contradiction_verdicts import verdicts_path as verdicts_path
    from anamnesis.reflect.eval_cases import UnknownCases as UnknownCases
    from anamnesis.reflect.eval_cases import approve_cases as approve_cases
    from anamnesis.reflect.eval_cases import approved_cases as approved_cases
    from anamnesis.reflect.eval_cases import cases_path as cases_path
    from anamnesis.reflect.eval_cases import generate_cases as generate_cases
    from anamnesis.reflect.eval_cases import load_store_cases as load_store_cases
    from anamnesis.reflect.fact_check import FactCheck as FactCheck
    from anamnesis.reflect.fact_check import Facts as Facts
    from anamnesis.reflect.fact_check import check_facts as check_facts
    from anamnesis.reflect.fact_check import extract_facts as extract_facts
    from anamnesis.reflect.merge import run_merge as run_merge
    from anamnesis.reflect.merge_candidates import CandidateGroup as CandidateGroup
    from anamnesis.reflect.merge_gate import GateLoss as GateLoss
    from anamnesis.reflect.merge_report import GroupOutcome as GroupOutcome
    from anamnesis.reflect.merge_report import MergeCall as MergeCall
    from anamnesis.reflect.merge_report import MergeReport as MergeReport
    from anamnesis.reflect.prompting import CHARS_PER_TOKEN as CHARS_PER_TOKEN
    from anamnesis.reflect.prompting import CUT_MARKER as CUT_MARKER
    from anamnesis.reflect.prompting import Window as Window
    from anamnesis.reflect.prompting import estimate_tokens as estimate_tokens
    from anamnesis.reflect.prompting import fit_to_budget as fit_to_budget
    from anamnesis.reflect.prompting import redact_prompt as redact_prompt
    from anamnesis.reflect.providers.anthropic import AnthropicProvider as AnthropicProvider
    from anamnesis.reflect.providers.check import ProbeResult as ProbeResult
    from anamnesis.reflect.providers.check import test_provider as test_provider
    from anamnesis.reflect.providers.claude_code import ClaudeCodeProvider as ClaudeCodeProvider
    from anamnesis.reflect.providers.heuristic import HeuristicProvider as HeuristicProvider
    from anamnesis.reflect.providers.openai import OpenAIProvider as OpenAIProvider
    from anamnesis.reflect.providers.protocol import REFLECTION_ENV_GUARD as REFLECTION_ENV_GUARD
    from anamnesis.reflect.providers.protocol import InvalidLlmSetting as InvalidLlmSetting
    from anamnesis.reflect.providers.protocol import Provider as Provider
    from anamnesis.reflect.providers.protocol import ProviderError as ProviderError
    from anamnesis.reflect.providers.protocol import ProviderFailed as ProviderFailed
    from anamnesis.reflect.providers.protocol import ProviderRejected as ProviderRejected
    from anamnesis.reflect.providers.protocol import ProviderTimeout as ProviderTimeout
    from anamnesis.reflect.providers.protocol import ProviderUnavailable as ProviderUnavailable
    from anamnesis.reflect.providers.protocol import UnusableReply as UnusableReply
    from anamnesis.reflect.providers.registry import PROVIDERS as PROVIDERS
    from anamnesis.reflect.providers.registry import ProviderSpec as ProviderSpec
    from anamnesis.reflect.providers.settings import LlmSettings as LlmSettings
    from anamnesis.reflect.providers.settings import check_setting as check_setting
    from anamnesis.reflect.providers.settings import llm_config_keys as llm_config_keys
    from anamnesis.reflect.providers.settings import load_settings as load_settings
    from anamnesis.reflect.providers.settings import make_provider as make_provider
    from anamnesis.reflect.reflection import ApplyResult as ApplyResult
    from anamnesis.reflect.reflection import ProjectOutcome as ProjectOutcome
    from anamnesis.reflect.reflection import ProjectPlan as ProjectPlan
    from anamnesis.reflect.reflection import ProposedNote as ProposedNote
    from anamnesis.reflect.reflection import ReflectionReport as ReflectionReport
    from anamnesis.reflect.reflection import apply_reflection as apply_reflection
    from anamnesis.reflect.reflection import plan_reflection as plan_reflection
    from anamnesis.reflect.reflection import run_reflection as run_reflection
    from anamnesis.reflect.reflection import validate_reply as validate_reply
    from anamnesis.reflect.replies import InvalidReply as InvalidReply
    from anamnesis.reflect.run_lock import ReflectionBusy as ReflectionBusy

if not TYPE_CHECKING:  # type checkers see only the names above, never a __getattr__
    __getattr__, __dir__ = lazy_exports(__name__)
