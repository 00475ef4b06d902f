"""One tiny call to the configured provider, timed: what ``anamnesis llm test`` shows.

Named ``test_provider`` for the command it serves; a test module importing it should
rename it (``import test_provider as probe``), or pytest would collect it as a test.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from anamnesis.reflect.providers.protocol import Provider, ProviderFailed, excerpt

PROBE_SYSTEM = "You are a connectivity check. Answer with the single word: ok"
PROBE_USER = "Reply with the single word ok."
PROBE_MAX_TOKENS = 16


@dataclass(frozen=True)
class ProbeResult:
    """Which provider and model answered, how fast, and the start of what it said."""

    provider: str
    model: str
    latency_s: float
    reply_excerpt: str


# PT028 takes the name for a pytest test's; it is the library function `anamnesis llm test` calls.
def test_provider(provider: Provider, *, timeout_s: float = 60.0) -> ProbeResult:  # noqa: PT028
    """Ask ``provider`` for one short reply. Its ProviderError subclasses propagate with
    their messages; an empty reply is ProviderFailed (a provider that says nothing cannot
    reflect)."""
    started = time.monotonic()
    reply = provider.complete(
        PROBE_SYSTEM, PROBE_USER, max_tokens=PROBE_MAX_TOKENS, timeout_s=timeout_s
    )
    latency = time.monotonic() - started
    if not reply.strip():
        raise ProviderFailed(f"{provider.name} answered with an empty reply")
    return ProbeResult(provider.name, provider.model, latency, excerpt(reply, 80))
