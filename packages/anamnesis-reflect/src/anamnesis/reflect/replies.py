"""Reading a provider's reply: one JSON object, bare or inside a ```json fence.

A model often wraps JSON in a fence or says a sentence first; both are fine. Anything else
is an :class:`InvalidReply` that says what was wrong and keeps the reply's first 200
characters for the log (never more: a reply may echo what it was sent).
"""

from __future__ import annotations

import re
from typing import Any

from anamnesis.store import JsonTooDeep, load_json

EXCERPT_CHARS = 200
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(.*?)\n?```", re.DOTALL)


class InvalidReply(Exception):
    """A reply that cannot be used; nothing is written because of it."""

    def __init__(self, reason: str, reply: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.excerpt = reply[:EXCERPT_CHARS]


def extract_object(reply: str) -> dict[str, Any]:
    """The JSON object a reply holds: the first fenced block if there is one, else the
    text from its first ``{`` to its last ``}``. Raises :class:`InvalidReply`."""
    fenced = _FENCE.search(reply)
    if fenced is not None:
        candidate = fenced.group(1)
    else:
        start, end = reply.find("{"), reply.rfind("}")
        if start < 0 or end < start:
            raise InvalidReply("the reply holds no JSON object", reply)
        candidate = reply[start : end + 1]
    try:
        data = load_json(candidate)
    except JsonTooDeep as exc:
        raise InvalidReply(f"the reply is unusable: {exc}", reply) from None  # too deep
    except ValueError as exc:
        raise InvalidReply(f"the reply is not valid JSON ({exc})", reply) from None
    if not isinstance(data, dict):
        raise InvalidReply("the reply's JSON is not an object", reply)
    return data
