"""`anamnesis llm test`'s probe: one tiny call, timed, errors passed through as they are."""

from __future__ import annotations

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer, api_error, openai_reply

from anamnesis.reflect import (
    HeuristicProvider,
    OpenAIProvider,
    ProbeResult,
    ProviderFailed,
    ProviderRejected,
    ProviderUnavailable,
)
from anamnesis.reflect import test_provider as probe  # renamed: pytest would collect it


def test_a_working_provider_reports_its_name_model_latency_and_reply(
    server: FakeLLMServer,
) -> None:
    server.queue(openai_reply("  ok\n"))
    result = probe(OpenAIProvider("tiny", base_url=server.url), timeout_s=5)
    assert isinstance(result, ProbeResult)
    assert (result.provider, result.model, result.reply_excerpt) == ("openai", "tiny", "ok")
    assert 0 < result.latency_s < 5
    (request,) = server.received
    assert request.json["max_tokens"] == 16  # a probe, not a conversation


def test_an_empty_reply_fails(server: FakeLLMServer) -> None:
    server.queue(openai_reply("   "))
    with pytest.raises(ProviderFailed, match="openai answered with an empty reply"):
        probe(OpenAIProvider("tiny", base_url=server.url), timeout_s=5)


def test_a_long_reply_is_cut_to_an_excerpt(server: FakeLLMServer) -> None:
    server.queue(openai_reply("ok " * 100))
    result = probe(OpenAIProvider("tiny", base_url=server.url), timeout_s=5)
    assert len(result.reply_excerpt) == 80 and result.reply_excerpt.endswith("…")


def test_provider_errors_pass_through_unchanged(server: FakeLLMServer) -> None:
    server.queue(api_error(401, "Incorrect API key provided"))
    with pytest.raises(ProviderRejected, match="Incorrect API key provided") as caught:
        probe(OpenAIProvider("tiny", base_url=server.url, api_key="bad"), timeout_s=5)
    assert caught.value.status == 401
    assert str(caught.value).endswith("check the API key (llm.api_key_env)")


def test_the_heuristic_provider_says_how_to_choose_a_real_one() -> None:
    with pytest.raises(ProviderUnavailable) as caught:
        probe(HeuristicProvider())
    message = str(caught.value)
    assert "reflect and merge need an LLM" in message
    assert "anamnesis config set llm.provider claude-code" in message
    assert "no key needed" in message
