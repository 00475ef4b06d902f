"""The OpenAI-compatible and Anthropic providers against a local scripted server: request
shape, keys, retries and their waits, timeouts, errors, and that no secret gets out."""

from __future__ import annotations

import socket
import time

import pytest
from anamnesis_testsupport.fake_llm import (
    AWS_KEY_ID,
    GITHUB_TOKEN,
    FakeLLMServer,
    Scripted,
    anthropic_reply,
    api_error,
    endless_openai_reply,
    nested_json,
    openai_reply,
)

from anamnesis.reflect import (
    AnthropicProvider,
    OpenAIProvider,
    ProviderFailed,
    ProviderRejected,
    ProviderTimeout,
    fit_to_budget,
)
from anamnesis.reflect.providers import http

FENCED = '```json\n{"notes": [{"title": "Use uv"}]}\n```'


def openai(server: FakeLLMServer, key: str | None = None) -> OpenAIProvider:
    return OpenAIProvider("local-model", base_url=server.url + "/v1/", api_key=key)


def anthropic(server: FakeLLMServer, key: str | None = "sk-ant-test") -> AnthropicProvider:
    return AnthropicProvider("claude-test", base_url=server.url, api_key=key)


def ask(provider: OpenAIProvider | AnthropicProvider, timeout_s: float = 5.0) -> str:
    return provider.complete("be brief", "hello", max_tokens=64, timeout_s=timeout_s)


def test_openai_sends_a_chat_completion_and_returns_the_message(server: FakeLLMServer) -> None:
    server.queue(openai_reply("hi there"))
    assert ask(openai(server)) == "hi there"
    (request,) = server.received
    assert request.path == "/v1/chat/completions"
    assert request.json == {
        "model": "local-model",
        "max_tokens": 64,
        "messages": [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "hello"},
        ],
    }


def test_anthropic_sends_a_message_and_joins_the_text_blocks(server: FakeLLMServer) -> None:
    server.queue(anthropic_reply("one ", "two"))
    assert ask(anthropic(server)) == "one two"
    (request,) = server.received
    assert request.path == "/v1/messages"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.json == {
        "model": "claude-test",
        "max_tokens": 64,
        "system": "be brief",
        "messages": [{"role": "user", "content": "hello"}],
    }


def test_a_base_url_given_with_v1_is_not_doubled(server: FakeLLMServer) -> None:
    server.queue(anthropic_reply("ok"))
    provider = AnthropicProvider("m", base_url=server.url + "/v1/", api_key="k")
    assert ask(provider) == "ok"
    assert server.received[0].path == "/v1/messages"


def test_keys_are_sent_only_when_set(server: FakeLLMServer) -> None:
    server.queue(openai_reply("a"), openai_reply("b"), anthropic_reply("c"), anthropic_reply("d"))
    ask(openai(server, key="sk-local-123"))
    ask(openai(server, key=None))
    ask(anthropic(server, key="sk-ant-456"))
    ask(anthropic(server, key=None))
    with_key, without, ant_key, ant_without = (r.headers for r in server.received)
    assert with_key["authorization"] == "Bearer sk-local-123"
    assert "authorization" not in without
    assert ant_key["x-api-key"] == "sk-ant-456"
    assert "x-api-key" not in ant_without
    assert "authorization" not in ant_key and "x-api-key" not in with_key


def test_keys_never_show_in_a_repr(server: FakeLLMServer) -> None:
    assert "sk-secret" not in repr(openai(server, key="sk-secret"))
    assert "sk-secret" not in repr(anthropic(server, key="sk-secret"))


def test_reply_text_comes_back_verbatim_fenced_or_not_json(server: FakeLLMServer) -> None:
    # Pulling JSON out of a fence is the caller's job; the provider must not alter the text.
    server.queue(openai_reply(FENCED), openai_reply("Sure! Here you go."))
    assert ask(openai(server)) == FENCED
    assert ask(openai(server)) == "Sure! Here you go."


@pytest.mark.parametrize(
    "body",
    [b"<html>502 Bad Gateway</html>", b"", {"choices": []}, {"choices": [{"message": {}}]}],
)
def test_an_unreadable_openai_response_fails(server: FakeLLMServer, body: object) -> None:
    server.queue(Scripted(200, body))
    with pytest.raises(ProviderFailed) as caught:
        ask(openai(server))
    assert server.url in str(caught.value)


def test_an_anthropic_response_without_text_fails(server: FakeLLMServer) -> None:
    server.queue(Scripted(200, {"content": [{"type": "tool_use", "id": "x", "input": {}}]}))
    with pytest.raises(ProviderFailed, match="without a text block"):
        ask(anthropic(server))


def test_429_is_retried_after_the_wait_the_server_asks_for(
    server: FakeLLMServer, waits: list[float]
) -> None:
    server.queue(api_error(429, "slow down", **{"Retry-After": "7"}), openai_reply("done"))
    assert ask(openai(server)) == "done"
    assert len(server.received) == 2
    assert waits == [7.0]


def test_without_retry_after_the_waits_back_off_exponentially(
    server: FakeLLMServer, waits: list[float], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "BASE_DELAY_S", 0.5)
    server.queue(*[api_error(503, "busy")] * 3, anthropic_reply("finally"))
    assert ask(anthropic(server)) == "finally"
    assert len(server.received) == 4
    assert waits == [0.5, 1.0, 2.0]


def test_server_errors_fail_after_three_retries(server: FakeLLMServer, waits: list[float]) -> None:
    server.queue(*[api_error(500, "internal trouble")] * 5)
    with pytest.raises(ProviderFailed) as caught:
        ask(openai(server))
    assert len(server.received) == 4  # the first attempt and 3 retries, no more
    assert len(waits) == 3
    assert caught.value.status == 500
    assert "HTTP 500" in str(caught.value) and "internal trouble" in str(caught.value)
    assert "4 attempt(s)" in str(caught.value)


def test_a_rate_limit_that_outlasts_the_retries_fails(server: FakeLLMServer) -> None:
    server.queue(*[api_error(429, "quota", **{"Retry-After": "1"})] * 4)
    with pytest.raises(ProviderFailed, match="rate limited") as caught:
        ask(anthropic(server))
    assert caught.value.status == 429
    assert len(server.received) == 4


def test_a_retry_after_too_long_to_wait_fails_at_once(
    server: FakeLLMServer, waits: list[float]
) -> None:
    server.queue(api_error(429, "come back tomorrow", **{"Retry-After": "86400"}))
    with pytest.raises(ProviderFailed, match="asks to wait 86400 s"):
        ask(openai(server))
    assert len(server.received) == 1
    assert waits == []


@pytest.mark.parametrize("status", [400, 401, 404, 413])
def test_other_client_errors_are_not_retried(
    server: FakeLLMServer, waits: list[float], status: int
) -> None:
    server.queue(api_error(status, "model 'nope' not found"), openai_reply("never"))
    with pytest.raises(ProviderRejected) as caught:
        ask(openai(server))
    assert caught.value.status == status
    assert f"HTTP {status}" in str(caught.value)
    assert "model 'nope' not found" in str(caught.value)  # the API's own words
    assert len(server.received) == 1
    assert waits == []


def test_a_hung_server_times_out_without_a_retry(server: FakeLLMServer) -> None:
    server.queue(Scripted(200, {"choices": []}, delay_s=10))
    started = time.monotonic()
    with pytest.raises(ProviderTimeout, match=r"did not answer within 0\.5 s"):
        ask(openai(server), timeout_s=0.5)
    assert time.monotonic() - started < 2.0
    assert len(server.received) == 1


def test_the_timeout_bounds_the_whole_attempt_not_each_read(server: FakeLLMServer) -> None:
    # A reply dribbled out a byte every 50 ms never trips a socket timeout of 0.5 s; the
    # attempt must still end at 0.5 s.
    server.queue(
        Scripted(200, {"choices": [{"message": {"content": "x" * 200}}]}, delay_s=10, trickle=True)
    )
    started = time.monotonic()
    with pytest.raises(ProviderTimeout):
        ask(anthropic(server), timeout_s=0.5)
    assert time.monotonic() - started < 1.5


def test_a_server_that_is_not_there_fails_naming_the_url() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = OpenAIProvider("m", base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ProviderFailed) as caught:
        ask(provider)
    message = str(caught.value)
    assert f"could not reach http://127.0.0.1:{port}/v1/chat/completions" in message
    assert "llm.base_url" in message


def test_planted_secrets_never_reach_the_server(server: FakeLLMServer) -> None:
    note = (
        f"Deploy notes. export GITHUB_TOKEN={GITHUB_TOKEN}\n"
        f"aws_access_key_id = {AWS_KEY_ID}\nThen run the migration."
    )
    prompt = fit_to_budget(["Session 1: fixed the build.", note], 1000).text
    server.queue(openai_reply("ok"), anthropic_reply("ok"), openai_reply("ok"))
    openai(server, key="k").complete("Summarise.", prompt, max_tokens=32, timeout_s=5.0)
    anthropic(server).complete("Summarise.", prompt, max_tokens=32, timeout_s=5.0)
    # Defence in depth: even text that skipped the prompt builder is masked on the way out.
    openai(server).complete(note, note, max_tokens=32, timeout_s=5.0)
    assert len(server.received) == 3
    for request in server.received:
        sent = request.raw.decode()
        assert GITHUB_TOKEN not in sent and AWS_KEY_ID not in sent
        assert "[REDACTED]" in sent and "Then run the migration." in sent  # sent, masked


def test_a_reply_cut_short_fails_as_a_provider_error(server: FakeLLMServer) -> None:
    # Content-Length promises more than arrives: the connection closes mid-body.
    server.queue(Scripted(200, {"choices": []}, delay_s=0.2, trickle=True))
    with pytest.raises(ProviderFailed, match="broken reply"):
        ask(openai(server), timeout_s=5)


def test_a_reply_that_never_ends_stops_at_the_bound_well_before_the_timeout(
    server: FakeLLMServer,
) -> None:
    endless = endless_openai_reply()
    server.queue(endless)
    started = time.monotonic()
    with pytest.raises(ProviderFailed, match=r"unusable reply: .* more than 4194304 bytes"):
        ask(openai(server), timeout_s=4)  # the default bound, llm.max_reply_bytes
    assert time.monotonic() - started < 2
    # Read no further than the bound (and what the sockets buffer): not the whole stream.
    assert endless.streamed < 16 * 1024 * 1024


def test_a_smaller_bound_is_kept_to_and_an_error_body_is_read_only_in_part(
    server: FakeLLMServer,
) -> None:
    small = OpenAIProvider("m", base_url=server.url, max_reply_bytes=1000)
    server.queue(openai_reply("x" * 2000), openai_reply("x" * 500))
    with pytest.raises(ProviderFailed, match="more than 1000 bytes"):
        ask(small)
    assert ask(small) == "x" * 500
    server.queue(Scripted(400, b'{"error": {"message": "' + b"e" * 200_000 + b'"}}'))
    with pytest.raises(ProviderRejected, match="HTTP 400"):  # cut, still a clear error
        ask(small)


@pytest.mark.parametrize("where", ["envelope", "error body"])
def test_json_nested_too_deep_is_an_unusable_reply_not_a_crash(
    server: FakeLLMServer, where: str
) -> None:
    deep = nested_json().encode()
    if where == "envelope":
        server.queue(Scripted(200, deep))
        with pytest.raises(
            ProviderFailed, match=r"unusable reply: .* answered with JSON nested 100000 levels"
        ):
            ask(anthropic(server))
    else:
        server.queue(Scripted(400, deep))
        with pytest.raises(ProviderRejected, match=r"HTTP 400\): \[\[\["):
            ask(anthropic(server))
