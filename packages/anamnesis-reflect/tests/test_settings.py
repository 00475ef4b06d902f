"""The llm.* settings: defaults, config.json, environment overrides, bad values, keys only
from the environment, and the provider each choice builds."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.fake_llm import GITHUB_TOKEN

from anamnesis.reflect import (
    PROVIDERS,
    AnthropicProvider,
    ClaudeCodeProvider,
    HeuristicProvider,
    InvalidLlmSetting,
    LlmSettings,
    OpenAIProvider,
    ProviderUnavailable,
    load_settings,
    make_provider,
)
from anamnesis.reflect.providers import anthropic, openai
from anamnesis.store import write_config


def configure(home: Path, **values: Any) -> None:
    """Write config.json with ``llm.<key>`` for each keyword, as `anamnesis config set` does."""
    write_config({f"llm.{key}": value for key, value in values.items()}, home)


def test_defaults_need_no_config_and_no_llm(isolated_home: Path) -> None:
    assert load_settings() == LlmSettings(
        provider="heuristic",
        model="",
        base_url="",
        api_key=None,
        api_key_env="",
        timeout_s=60.0,
        max_input_tokens=24_000,
        summarize_sessions=False,
        max_reply_bytes=4 * 1024 * 1024,
    )
    assert isinstance(make_provider(load_settings()), HeuristicProvider)


def test_config_values_are_read(isolated_home: Path) -> None:
    configure(
        isolated_home,
        provider="openai",
        model="llama3.1",
        base_url="http://localhost:11434/v1/",
        timeout_s="90",  # `anamnesis config set` stores text
        max_input_tokens=8000,
        summarize_sessions="true",
        max_reply_bytes="65536",
    )
    got = load_settings()
    assert (got.provider, got.model, got.base_url) == (
        "openai",
        "llama3.1",
        "http://localhost:11434/v1",
    )
    assert (got.timeout_s, got.max_input_tokens, got.summarize_sessions) == (90.0, 8000, True)
    assert got.api_key_env == "OPENAI_API_KEY" and got.max_reply_bytes == 65536


def test_the_environment_overrides_the_config(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(isolated_home, provider="openai", model="a", base_url="http://a", timeout_s=5)
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "Anthropic ")
    monkeypatch.setenv("ANAMNESIS_LLM_MODEL", "claude-x")
    monkeypatch.setenv("ANAMNESIS_LLM_BASE_URL", "https://proxy.example")
    monkeypatch.setenv("ANAMNESIS_LLM_TIMEOUT", "2.5")
    monkeypatch.setenv("ANAMNESIS_LLM_API_KEY", "sk-from-env")
    got = load_settings()
    assert (got.provider, got.model, got.base_url, got.timeout_s) == (
        "anthropic",
        "claude-x",
        "https://proxy.example",
        2.5,
    )
    assert (got.api_key, got.api_key_env) == ("sk-from-env", "ANAMNESIS_LLM_API_KEY")


def test_an_empty_variable_counts_as_unset(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(isolated_home, provider="claude-code")
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "")
    assert load_settings().provider == "claude-code"


def test_the_specs_variable_chooses_the_provider_too(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(isolated_home, provider="openai")
    monkeypatch.setenv("ANAMNESIS_REFLECTION_PROVIDER", "claude-code")
    assert load_settings().provider == "claude-code"
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "anthropic")
    assert load_settings().provider == "anthropic"


def test_an_explicit_environment_mapping_replaces_os_environ(isolated_home: Path) -> None:
    got = load_settings(env={"ANAMNESIS_LLM_PROVIDER": "openai", "OPENAI_API_KEY": "sk-x"})
    assert (got.provider, got.api_key) == ("openai", "sk-x")


@pytest.mark.parametrize("value", ["gpt", "claude", "none", 3])
def test_an_unknown_provider_names_the_key_and_the_choices(
    isolated_home: Path, value: object
) -> None:
    configure(isolated_home, provider=value)
    with pytest.raises(InvalidLlmSetting) as caught:
        load_settings()
    assert caught.value.key == "llm.provider"
    assert str(caught.value).startswith(f"llm.provider is {value!r}, which is not a provider")
    assert "heuristic, claude-code, openai, anthropic" in str(caught.value)


def test_a_bad_provider_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANAMNESIS_REFLECTION_PROVIDER", "llama")
    with pytest.raises(InvalidLlmSetting, match=r"^ANAMNESIS_REFLECTION_PROVIDER is 'llama'"):
        load_settings()


@pytest.mark.parametrize("value", ["0", "-3", "soon", "nan", "inf", True, [], 0])
def test_a_timeout_must_be_a_positive_number(isolated_home: Path, value: object) -> None:
    configure(isolated_home, timeout_s=value)
    with pytest.raises(InvalidLlmSetting) as caught:
        load_settings()
    assert caught.value.key == "llm.timeout_s"
    assert "llm.timeout_s must be a number of seconds greater than 0" in str(caught.value)


def test_a_bad_timeout_variable_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANAMNESIS_LLM_TIMEOUT", "1m")
    with pytest.raises(InvalidLlmSetting, match=r"^ANAMNESIS_LLM_TIMEOUT must be a number"):
        load_settings()


@pytest.mark.parametrize(
    ("key", "value", "expected"),
    [
        ("max_input_tokens", "1.5", "llm.max_input_tokens must be a whole number"),
        ("max_input_tokens", -1, "llm.max_input_tokens must be a whole number"),
        ("max_reply_bytes", 0, "llm.max_reply_bytes must be a whole number"),
        ("max_reply_bytes", "lots", "llm.max_reply_bytes must be a whole number"),
        ("summarize_sessions", "maybe", "llm.summarize_sessions must be true or false"),
        ("base_url", "localhost:11434", "llm.base_url must be an http:// or https:// URL"),
        ("model", 4, "llm.model must be text"),
    ],
)
def test_other_bad_values_name_their_key(
    isolated_home: Path, key: str, value: object, expected: str
) -> None:
    configure(isolated_home, **{key: value})
    with pytest.raises(InvalidLlmSetting) as caught:
        load_settings()
    assert caught.value.key == f"llm.{key}"
    assert str(caught.value).startswith(expected)


def test_a_key_in_config_json_is_never_read(isolated_home: Path) -> None:
    configure(isolated_home, provider="openai", model="gpt-x", api_key="sk-in-a-file-1234")
    got = load_settings()
    assert got.api_key is None
    with pytest.raises(ProviderUnavailable) as caught:
        make_provider(got)
    message = str(caught.value)
    assert "export OPENAI_API_KEY=<your key>" in message
    assert "never read from config.json" in message
    assert "llm.provider claude-code" in message


def test_the_key_comes_from_the_variable_config_names(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    configure(isolated_home, provider="anthropic", model="m", api_key_env="WORK_ANTHROPIC_KEY")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-personal")
    monkeypatch.setenv("WORK_ANTHROPIC_KEY", "sk-work")
    got = load_settings()
    assert (got.api_key, got.api_key_env) == ("sk-work", "WORK_ANTHROPIC_KEY")
    assert "sk-work" not in repr(got)


@pytest.mark.parametrize("value", ["sk-proj-abc123def456", GITHUB_TOKEN])
def test_a_key_pasted_as_the_variable_name_is_refused_unshown(
    isolated_home: Path, value: str
) -> None:
    configure(isolated_home, provider="openai", api_key_env=value)
    with pytest.raises(InvalidLlmSetting) as caught:
        load_settings()
    assert caught.value.key == "llm.api_key_env"
    assert "NAME of an environment variable" in str(caught.value)
    assert value not in str(caught.value)


def test_each_provider_is_built_from_its_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(make_provider(LlmSettings()), HeuristicProvider)
    claude = make_provider(LlmSettings(provider="claude-code", model="opus", max_reply_bytes=9))
    assert isinstance(claude, ClaudeCodeProvider) and claude.model == "opus"
    assert claude.max_reply_bytes == 9
    monkeypatch.setenv("OPENAI_API_KEY", "sk-o")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-a")
    for name, kind in (("openai", OpenAIProvider), ("anthropic", AnthropicProvider)):
        monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", name)
        monkeypatch.setenv("ANAMNESIS_LLM_MODEL", "m1")
        built = make_provider(replace(load_settings(), max_reply_bytes=5000))
        assert isinstance(built, kind)
        assert (built.name, built.model, built.max_reply_bytes) == (name, "m1", 5000)
    assert list(PROVIDERS) == ["heuristic", "claude-code", "openai", "anthropic"]


def test_a_local_server_needs_no_key(isolated_home: Path) -> None:
    configure(isolated_home, provider="openai", model="qwen", base_url="http://127.0.0.1:8080/v1")
    built = make_provider(load_settings())
    assert isinstance(built, OpenAIProvider)
    assert built.base_url == "http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(("name", "example"), [("openai", "gpt-"), ("anthropic", "claude-")])
def test_an_api_provider_without_a_model_says_how_to_set_one(
    monkeypatch: pytest.MonkeyPatch, name: str, example: str
) -> None:
    monkeypatch.setenv("ANAMNESIS_LLM_API_KEY", "k")
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", name)
    with pytest.raises(ProviderUnavailable) as caught:
        make_provider(load_settings())
    assert f"the {name} provider needs a model: `anamnesis config set llm.model {example}" in str(
        caught.value
    )


def test_the_default_urls_match_the_providers() -> None:
    assert {name: spec.base_url for name, spec in PROVIDERS.items() if spec.base_url} == {
        "openai": openai.DEFAULT_BASE_URL,
        "anthropic": anthropic.DEFAULT_BASE_URL,
    }
