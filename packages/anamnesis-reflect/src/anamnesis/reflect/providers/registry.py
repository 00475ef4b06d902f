"""The LLM providers, declared once (:data:`PROVIDERS`): each one's name, what it is, how it
is built, and what it needs (a model; a key, in which variable, for which default server).
Everything else derives from this table: :func:`~.settings.make_provider`, the check of
``llm.provider`` and its help, the defaults :func:`~.settings.load_settings` fills in, and
the configuration docs (a test holds them to it).

Each factory of a provider that talks to a model imports its module only when called:
reading the settings loads no HTTP client and no subprocess.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from anamnesis.reflect.providers.heuristic import HeuristicProvider
from anamnesis.reflect.providers.protocol import Provider


class ProviderFactory(Protocol):
    """Builds a provider from the resolved settings it may use (each takes what it needs)."""

    def __call__(
        self, *, model: str, base_url: str, api_key: str | None, max_reply_bytes: int
    ) -> Provider: ...


@dataclass(frozen=True)
class ProviderSpec:
    """One provider. ``help`` says what it is (the settings' help and the docs show it).
    ``needs_model``: building it without ``llm.model`` is refused, naming
    ``example_model``. ``base_url``: the server it talks to unless ``llm.base_url`` names
    another ("": none). ``key_env``: the variable its key is read from unless
    ``llm.api_key_env`` names another; a key is required only for the default server (a
    local one usually needs none). "": it takes no key."""

    name: str
    help: str
    factory: ProviderFactory
    needs_model: bool = False
    example_model: str = ""
    base_url: str = ""
    key_env: str = ""


def _heuristic(*, model: str, base_url: str, api_key: str | None, max_reply_bytes: int) -> Provider:
    return HeuristicProvider()


def _claude_code(
    *, model: str, base_url: str, api_key: str | None, max_reply_bytes: int
) -> Provider:
    # subprocess: loaded only when built (see the docstring)
    from anamnesis.reflect.providers.claude_code import ClaudeCodeProvider

    return ClaudeCodeProvider(model, max_reply_bytes=max_reply_bytes)


def _openai(*, model: str, base_url: str, api_key: str | None, max_reply_bytes: int) -> Provider:
    # urllib: loaded only when built (see the docstring)
    from anamnesis.reflect.providers.openai import OpenAIProvider

    return OpenAIProvider(
        model, base_url=base_url, api_key=api_key, max_reply_bytes=max_reply_bytes
    )


def _anthropic(*, model: str, base_url: str, api_key: str | None, max_reply_bytes: int) -> Provider:
    # urllib: loaded only when built (see the docstring)
    from anamnesis.reflect.providers.anthropic import AnthropicProvider

    return AnthropicProvider(
        model, base_url=base_url, api_key=api_key, max_reply_bytes=max_reply_bytes
    )


# The base URLs are openai.DEFAULT_BASE_URL and anthropic.DEFAULT_BASE_URL, repeated so that
# reading the settings does not load urllib (a test holds them equal). In the order every
# list of providers shows them; a new provider is one entry here.
PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec("heuristic", "no LLM", _heuristic),
        ProviderSpec("claude-code", "your own `claude` CLI and login: no key", _claude_code),
        ProviderSpec(
            "openai",
            "any OpenAI-compatible server: OpenAI, Ollama, LM Studio, vLLM",
            _openai,
            needs_model=True,
            example_model="gpt-4o-mini",
            base_url="https://api.openai.com/v1",
            key_env="OPENAI_API_KEY",
        ),
        ProviderSpec(
            "anthropic",
            "the Messages API",
            _anthropic,
            needs_model=True,
            example_model="claude-3-5-haiku-latest",
            base_url="https://api.anthropic.com",
            key_env="ANTHROPIC_API_KEY",
        ),
    )
}
DEFAULT_PROVIDER = "heuristic"
