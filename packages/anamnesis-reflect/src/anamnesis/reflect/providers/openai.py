"""Any OpenAI-compatible chat API: OpenAI itself, or a local server (Ollama, LM Studio,
vLLM, llama.cpp) through ``llm.base_url``. Local servers need no key, so the bearer
header is sent only when one is set.
"""

from __future__ import annotations

from typing import Any

from anamnesis.reflect.prompting import redact_prompt
from anamnesis.reflect.providers.http import post_json
from anamnesis.reflect.providers.protocol import (
    DEFAULT_MAX_REPLY_BYTES,
    UnusableReply,
    excerpt,
)

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider:
    """``POST {base_url}/chat/completions`` with a system and a user message."""

    name = "openai"

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
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key  # private: never in a repr or a message

    def __repr__(self) -> str:
        return f"OpenAIProvider(model={self.model!r}, base_url={self.base_url!r})"

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        """The text of the first choice's message."""
        url = f"{self.base_url}/chat/completions"
        headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
        payload = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": [
                # Masked here too, not only by the prompt builder: nothing reaches a third
                # party unmasked, whoever built the text.
                {"role": "system", "content": redact_prompt(system)},
                {"role": "user", "content": redact_prompt(user)},
            ],
        }
        data = post_json(url, payload, headers, timeout_s=timeout_s, max_bytes=self.max_reply_bytes)
        return _content(data, url)


def _content(data: Any, url: str) -> str:
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        content = None
    if not isinstance(content, str):
        raise UnusableReply(
            f"unusable reply: {url} answered without choices[0].message.content: "
            f"{excerpt(str(data))}"
        )
    return content
