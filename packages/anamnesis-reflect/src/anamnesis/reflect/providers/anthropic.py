"""Anthropic's Messages API, or a server that speaks it (``llm.base_url``)."""

from __future__ import annotations

from typing import Any

from anamnesis.reflect.prompting import redact_prompt
from anamnesis.reflect.providers.http import post_json
from anamnesis.reflect.providers.protocol import (
    DEFAULT_MAX_REPLY_BYTES,
    UnusableReply,
    excerpt,
)

DEFAULT_BASE_URL = "https://api.anthropic.com"
API_VERSION = "2023-06-01"


class AnthropicProvider:
    """``POST {base_url}/v1/messages``; the reply is its text blocks joined."""

    name = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.model = model
        self.max_reply_bytes = max_reply_bytes
        base = base_url.rstrip("/")
        # People paste the base with the version ("…/v1"), as OpenAI's base carries one.
        self.base_url = base.removesuffix("/v1")
        self._api_key = api_key  # private: never in a repr or a message

    def __repr__(self) -> str:
        return f"AnthropicProvider(model={self.model!r}, base_url={self.base_url!r})"

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        """The reply's text blocks, joined (thinking and tool blocks are skipped)."""
        url = f"{self.base_url}/v1/messages"
        headers = {"anthropic-version": API_VERSION}
        if self._api_key:
            headers["x-api-key"] = self._api_key
        payload = {
            "model": self.model,
            "max_tokens": max_tokens,
            # Masked here too, not only by the prompt builder: nothing reaches a third party
            # unmasked, whoever built the text.
            "system": redact_prompt(system),
            "messages": [{"role": "user", "content": redact_prompt(user)}],
        }
        data = post_json(url, payload, headers, timeout_s=timeout_s, max_bytes=self.max_reply_bytes)
        return _text(data, url)


def _text(data: Any, url: str) -> str:
    blocks = data.get("content") if isinstance(data, dict) else None
    texts = [
        block["text"]
        for block in blocks or ()
        if isinstance(block, dict) and block.get("type") == "text" and "text" in block
    ]
    if not isinstance(blocks, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise UnusableReply(
            f"unusable reply: {url} answered without a text block: {excerpt(str(data))}"
        )
    return "".join(texts)
