"""The default provider: no LLM at all, so nothing leaves the machine and no key is needed.

Session summaries work without a model (the hooks' heuristic summarizer); reflecting and
merging do not, so asking this provider for a completion explains how to choose one.
"""

from __future__ import annotations

from typing import NoReturn

from anamnesis.reflect.providers.protocol import ProviderUnavailable

NO_PROVIDER = (
    "reflect and merge need an LLM, and llm.provider is 'heuristic' (no LLM). "
    "Use your Claude Code login, no key needed: `anamnesis config set llm.provider claude-code`; "
    "or an API: `anamnesis config set llm.provider openai` (or anthropic), set llm.model, "
    "and export OPENAI_API_KEY (or ANTHROPIC_API_KEY)"
)


class HeuristicProvider:
    """The "no LLM" provider: every completion raises :class:`ProviderUnavailable`."""

    name = "heuristic"
    model = ""

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> NoReturn:
        """Never completes: raises ProviderUnavailable saying how to configure a provider."""
        raise ProviderUnavailable(NO_PROVIDER)
