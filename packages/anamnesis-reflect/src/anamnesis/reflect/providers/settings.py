"""Which LLM to use, from config.json's ``llm.*`` keys and ``ANAMNESIS_LLM_*`` variables,
and the provider built from that (:func:`make_provider`). What each provider is and needs is
the table of providers (:mod:`.registry`).

A key is never read from a file: config.json names the environment variable holding it
(``llm.api_key_env``), because the store's folder is backed up and shared, and a key in it
would travel. ``ANAMNESIS_LLM_API_KEY`` is the one exception to the naming, for a shell or an
MCP entry that sets a key for Anamnesis alone.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.reflect.providers.protocol import (
    DEFAULT_MAX_REPLY_BYTES,
    InvalidLlmSetting,
    Provider,
    ProviderUnavailable,
)
from anamnesis.reflect.providers.registry import DEFAULT_PROVIDER, PROVIDERS
from anamnesis.store import ConfigKey, checking, read_config, redact_secrets

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_INPUT_TOKENS = 24_000
# The architecture spec's name for the provider variable; ANAMNESIS_LLM_PROVIDER wins.
SPEC_PROVIDER_ENV = "ANAMNESIS_REFLECTION_PROVIDER"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})


@dataclass(frozen=True)
class LlmSettings:
    """The resolved ``llm.*`` settings. ``api_key`` is the key itself, read from the
    environment (never shown in the repr); ``api_key_env`` the variable it came from."""

    provider: str = DEFAULT_PROVIDER
    model: str = ""
    base_url: str = ""
    api_key: str | None = field(default=None, repr=False)
    api_key_env: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_input_tokens: int = DEFAULT_MAX_INPUT_TOKENS
    summarize_sessions: bool = False
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES


def load_settings(home: Path | None = None, env: Mapping[str, str] | None = None) -> LlmSettings:
    """The settings of the store at ``home`` (default: ``resolve_home()``), environment
    variables over config.json over the defaults. Raises InvalidLlmSetting for a bad value."""
    environ = os.environ if env is None else env
    config = read_config(home)

    def setting(key: str, *variables: str) -> tuple[str, Any]:
        """The value and the name it was found under (for error messages)."""
        for name in variables:
            value = environ.get(name, "").strip()
            if value:
                return name, value
        return key, config.get(key)

    where, raw = setting("llm.provider", "ANAMNESIS_LLM_PROVIDER", SPEC_PROVIDER_ENV)
    provider = _provider(where, raw)
    where, raw = setting("llm.model", "ANAMNESIS_LLM_MODEL")
    model = _text(where, raw)
    where, raw = setting("llm.base_url", "ANAMNESIS_LLM_BASE_URL")
    base_url = _url(where, raw) or PROVIDERS[provider].base_url
    key_env = _key_env(config.get("llm.api_key_env")) or PROVIDERS[provider].key_env
    if environ.get("ANAMNESIS_LLM_API_KEY", "").strip():
        key_env = "ANAMNESIS_LLM_API_KEY"
    api_key = (environ.get(key_env, "").strip() or None) if key_env else None
    where, raw = setting("llm.timeout_s", "ANAMNESIS_LLM_TIMEOUT")
    timeout_s = _positive(where, raw, DEFAULT_TIMEOUT_S)
    raw = config.get("llm.max_input_tokens")
    max_input_tokens = int(_positive("llm.max_input_tokens", raw, DEFAULT_MAX_INPUT_TOKENS, True))
    summarize = _flag("llm.summarize_sessions", config.get("llm.summarize_sessions"))
    raw = config.get("llm.max_reply_bytes")
    max_reply_bytes = int(_positive("llm.max_reply_bytes", raw, DEFAULT_MAX_REPLY_BYTES, True))
    return LlmSettings(
        provider,
        model,
        base_url,
        api_key,
        key_env,
        timeout_s,
        max_input_tokens,
        summarize,
        max_reply_bytes,
    )


def llm_config_keys() -> tuple[ConfigKey, ...]:
    """The ``llm.*`` settings, declared for ``anamnesis config``, doctor and the docs; the
    providers as their table has them now (:data:`.registry.PROVIDERS`)."""
    names = ", ".join(PROVIDERS)
    needing = [name for name, spec in PROVIDERS.items() if spec.needs_model]
    urls = [spec.base_url for spec in PROVIDERS.values() if spec.base_url]
    key_envs = [spec.key_env for spec in PROVIDERS.values() if spec.key_env]

    def key(
        name: str,
        help: str,
        default: str,
        *env: str,
        choices: tuple[str, ...] = (),
        env_is_secret: bool = False,
    ) -> ConfigKey:
        return ConfigKey(
            name,
            help,
            default=default,
            env=env,
            choices=choices,
            check=checking(name, check_setting, InvalidLlmSetting),
            owner="reflect",
            env_is_secret=env_is_secret,
        )

    return (
        key("llm.provider", f"the LLM reflection uses: {names} (default {DEFAULT_PROVIDER}: none)",
            DEFAULT_PROVIDER, "ANAMNESIS_LLM_PROVIDER", SPEC_PROVIDER_ENV,
            choices=tuple(PROVIDERS)),
        key("llm.model",
            f"the provider's model ({', '.join(needing)}: required; the others: optional)",
            "the provider's own", "ANAMNESIS_LLM_MODEL"),
        key("llm.base_url",
            "an OpenAI-compatible or Anthropic server (Ollama, LM Studio, vLLM, ...)",
            ", ".join(urls), "ANAMNESIS_LLM_BASE_URL"),
        key("llm.api_key_env",
            "the NAME of the environment variable holding the key (never the key)",
            ", ".join(key_envs), "ANAMNESIS_LLM_API_KEY", env_is_secret=True),
        key("llm.timeout_s", "seconds one provider call may take (default 60)",
            f"{DEFAULT_TIMEOUT_S:g}", "ANAMNESIS_LLM_TIMEOUT"),
        key("llm.max_input_tokens", "the most a prompt may hold, estimated (default 24000)",
            str(DEFAULT_MAX_INPUT_TOKENS)),
        key("llm.max_reply_bytes",
            "the most a provider's reply may be, in bytes (default 4194304)",
            str(DEFAULT_MAX_REPLY_BYTES)),
        key("llm.summarize_sessions",
            "true: rewrite each captured session's note with the provider", "false",
            choices=("true", "false")),
    )  # fmt: skip


def check_setting(key: str, value: str, where: str = "") -> str:
    """The value as config.json should hold it, or InvalidLlmSetting saying why not (the
    same checks :func:`load_settings` makes, so a bad value is refused when it is set).
    ``where``: where the value came from, for the message (default: the key)."""
    where = where or key
    checks: dict[str, Callable[[], str]] = {
        "llm.provider": lambda: _provider(where, value),
        "llm.model": lambda: _text(where, value),
        "llm.base_url": lambda: _url(where, value),
        "llm.api_key_env": lambda: _key_env(value),
        "llm.timeout_s": lambda: str(_positive(where, value, DEFAULT_TIMEOUT_S)),
        "llm.max_input_tokens": lambda: str(int(_positive(where, value, 1, True))),
        "llm.max_reply_bytes": lambda: str(int(_positive(where, value, 1, True))),
        "llm.summarize_sessions": lambda: "true" if _flag(where, value) else "false",
    }
    if key not in checks:
        raise InvalidLlmSetting(key, f"{key} is not an LLM setting: {', '.join(checks)}")
    return checks[key]()


def make_provider(settings: LlmSettings) -> Provider:
    """The provider the settings choose (:data:`.registry.PROVIDERS`). Raises
    ProviderUnavailable when it lacks a model or a key it needs, saying how to set them
    (`claude` on PATH is checked when used)."""
    name = settings.provider
    spec = PROVIDERS[name]
    if spec.needs_model and not settings.model:
        raise ProviderUnavailable(
            f"the {name} provider needs a model: `anamnesis config set llm.model "
            f"{spec.example_model or 'MODEL'}` (or set ANAMNESIS_LLM_MODEL)"
        )
    # The public APIs need a key; a local server (another base_url) usually does not.
    if spec.key_env and not settings.api_key and settings.base_url == spec.base_url:
        variable = settings.api_key_env or spec.key_env
        raise ProviderUnavailable(
            f"the {name} provider needs an API key in the environment variable {variable}, "
            f"which is not set: export {variable}=<your key> (keys are never read from "
            "config.json; llm.api_key_env names another variable), or use your Claude Code "
            "login, no key needed: `anamnesis config set llm.provider claude-code`"
        )
    return spec.factory(
        model=settings.model,
        base_url=settings.base_url,
        api_key=settings.api_key,
        max_reply_bytes=settings.max_reply_bytes,
    )


def _provider(where: str, raw: Any) -> str:
    if raw is None or raw == "":
        return DEFAULT_PROVIDER
    value = raw.strip().lower() if isinstance(raw, str) else raw
    if value not in PROVIDERS:
        raise InvalidLlmSetting(
            where, f"{where} is {raw!r}, which is not a provider: use one of {', '.join(PROVIDERS)}"
        )
    return str(value)


def _text(where: str, raw: Any) -> str:
    if raw is None:
        return ""
    if not isinstance(raw, str):
        raise InvalidLlmSetting(where, f"{where} must be text, not {raw!r}")
    return raw.strip()


def _url(where: str, raw: Any) -> str:
    url = _text(where, raw)
    if url and not url.startswith(("http://", "https://")):
        raise InvalidLlmSetting(
            where, f"{where} must be an http:// or https:// URL, like http://localhost:11434/v1"
        )
    return url.rstrip("/")


def _key_env(raw: Any) -> str:
    name = _text("llm.api_key_env", raw)
    # People paste the key itself here. Never echo the value: it may be that key.
    if name and (not _ENV_NAME.fullmatch(name) or redact_secrets(name) != name):
        raise InvalidLlmSetting(
            "llm.api_key_env",
            "llm.api_key_env must be the NAME of an environment variable holding the key "
            "(like OPENAI_API_KEY), not the key itself: keys never go in config.json",
        )
    return name


def _positive(where: str, raw: Any, default: float, whole: bool = False) -> float:
    if raw is None or raw == "":
        return default
    kind = "a whole number" if whole else "a number of seconds"
    try:
        value = math.nan if isinstance(raw, bool) else float(raw)  # JSON true is not 1 s
    except (TypeError, ValueError):
        value = math.nan
    if not math.isfinite(value) or value <= 0 or (whole and not value.is_integer()):
        raise InvalidLlmSetting(where, f"{where} must be {kind} greater than 0, not {raw!r}")
    return value


def _flag(where: str, raw: Any) -> bool:
    if raw is None or raw == "":
        return False
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
        return raw.strip().lower() in _TRUE
    raise InvalidLlmSetting(where, f"{where} must be true or false, not {raw!r}")
