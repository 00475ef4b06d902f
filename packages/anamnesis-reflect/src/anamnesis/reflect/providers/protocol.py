"""What every LLM provider offers (:class:`Provider`) and the errors a provider raises.

Reflection and merging talk to a provider through ``complete(system, user)`` only, so the
user's choice (no LLM, their Claude Code login, any OpenAI-compatible server, Anthropic's
API) changes nothing above this layer. Every error is a :class:`ProviderError` whose message
says what to do next: the CLI prints it as one line.
"""

from __future__ import annotations

from typing import Protocol

# Set (to "1") in the environment of the `claude` child that the claude-code provider starts.
# That child is a full Claude Code session, so it runs the user's hooks; Anamnesis's hooks
# see this variable and do nothing, or reflecting would capture the reflection as a session.
# Defined by the store, which the hooks and this package both depend on.
from anamnesis.store import REFLECTION_ENV_GUARD as REFLECTION_ENV_GUARD

# Far above any reply a command asks for (a compacted note comes back at most as long as its
# prompt, 24,000 tokens by default) and as much as a note may hold: a runaway or endless
# reply stops here (``llm.max_reply_bytes``) instead of growing the process until the timeout.
DEFAULT_MAX_REPLY_BYTES = 4 * 1024 * 1024


class Provider(Protocol):
    """A language model behind one call: a system text and a user text in, the reply out."""

    name: str  # "heuristic" | "claude-code" | "openai" | "anthropic"
    model: str  # "" when the provider has no model to choose (or uses its own default)

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        """The model's reply to ``user`` under ``system``, at most ``max_tokens`` long where
        the provider can bound it. Raises a :class:`ProviderError` subclass."""
        ...


class ProviderError(Exception):
    """Base of the provider errors; the message is one line a user can act on."""


class ProviderUnavailable(ProviderError):
    """No usable provider: none configured, a model or key missing, `claude` not on PATH."""


class ProviderTimeout(ProviderError):
    """The provider did not answer within the timeout (``llm.timeout_s``)."""


class ProviderRejected(ProviderError):
    """The provider refused the request (an HTTP 4xx other than 429): retrying cannot help."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class ProviderFailed(ProviderError):
    """The provider failed: 5xx or 429 after the retries, unreachable, an unreadable reply,
    or the `claude` CLI exited with an error."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class UnusableReply(ProviderFailed):
    """The provider answered, and the answer cannot be read: more than
    ``llm.max_reply_bytes``, not JSON, JSON nested too deep, or without the text where
    its format puts it. A model's reply is untrusted input; nothing is made of this one."""


def over_max_reply(source: str, max_bytes: int) -> UnusableReply:
    """The error for a reply that went on past ``max_bytes``: what sent it, and the
    setting that allows more."""
    return UnusableReply(
        f"unusable reply: {source} sent more than {max_bytes} bytes (llm.max_reply_bytes) "
        "and was not read further; if a reply that long is expected, allow more: "
        "`anamnesis config set llm.max_reply_bytes BYTES`"
    )


class InvalidLlmSetting(ProviderError):
    """An ``llm.*`` setting (config.json) or ``ANAMNESIS_LLM_*`` variable has a bad value."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


def excerpt(text: str, limit: int = 200) -> str:
    """``text`` on one line, cut to ``limit`` characters: what an error message quotes of a
    reply or a stderr (whole replies would drown the message)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
