"""One JSON POST to an LLM HTTP API, with bounded retries, on the standard library alone.

Rate limits (429) and server errors (5xx) are usually transient, so they are retried with
exponential backoff, at most :data:`MAX_RETRIES` times, waiting what the server's
``Retry-After`` asks for when it says so. Any other 4xx is the request's fault (bad key,
unknown model, prompt too long): retrying cannot help, so it fails at once. A timeout is not
retried either: the caller's timeout is how long they are willing to wait per call, and a
model that took that long once will likely take that long again.

A reply is read up to ``max_bytes`` (``llm.max_reply_bytes``) and no further: a server that
streams without end fails with :class:`UnusableReply` as soon as it passes the bound, not
at the timeout with the whole stream in memory. Its JSON's nesting is bounded too
(``anamnesis.store.load_json``).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from typing import Any

from anamnesis.reflect.providers.protocol import (
    DEFAULT_MAX_REPLY_BYTES,
    ProviderFailed,
    ProviderRejected,
    ProviderTimeout,
    UnusableReply,
    excerpt,
    over_max_reply,
)
from anamnesis.store import JsonTooDeep, load_json

MAX_RETRIES = 3
# The first retry waits BASE_DELAY_S, then twice that, then four times. Tests make it small
# and replace `sleep` to record the waits instead of taking them.
BASE_DELAY_S = 1.0
sleep: Callable[[float], None] = time.sleep
# A Retry-After longer than this is not waited out: a command that sleeps for an hour looks
# hung; saying "try later" is more useful.
MAX_WAIT_S = 60.0

_RETRIED = frozenset({429, 500, 502, 503, 504, 529})  # 529: Anthropic's "overloaded"
# An error's body is only quoted (its first 200 characters): no need to hold more of it.
ERROR_BODY_BYTES = 64 * 1024


class _Reply:
    __slots__ = ("body", "retry_after", "status")

    def __init__(self, status: int, retry_after: str | None, body: bytes) -> None:
        self.status = status
        self.retry_after = retry_after
        self.body = body


def post_json(
    url: str,
    payload: Mapping[str, Any],
    headers: Mapping[str, str],
    *,
    timeout_s: float,
    max_bytes: int = DEFAULT_MAX_REPLY_BYTES,
) -> Any:
    """POST ``payload`` as JSON to ``url``; the decoded JSON reply. Each attempt (connect,
    send, read the whole reply) takes at most ``timeout_s``, and reads at most
    ``max_bytes`` of reply.

    Raises ProviderTimeout, ProviderRejected (4xx but 429), ProviderFailed (unreachable,
    5xx or 429 after the retries), UnusableReply (over ``max_bytes``, not JSON, or nested
    too deep)."""
    data = json.dumps(payload).encode("utf-8")
    all_headers = {"Content-Type": "application/json", "Accept": "application/json", **headers}
    for attempt in range(MAX_RETRIES + 1):
        request = urllib.request.Request(url, data=data, headers=all_headers, method="POST")
        reply = _attempt(request, url, timeout_s, max_bytes)
        if 200 <= reply.status < 300:
            return _decode(reply, url)
        if reply.status not in _RETRIED and not 500 <= reply.status < 600:
            hint = "; check the API key (llm.api_key_env)" if reply.status in (401, 403) else ""
            raise ProviderRejected(
                f"{url} refused the request (HTTP {reply.status}): {_error_text(reply)}{hint}",
                reply.status,
            )
        asked = _retry_after(reply)
        wait = BASE_DELAY_S * 2**attempt if asked is None else asked
        if attempt == MAX_RETRIES or wait > MAX_WAIT_S:
            break
        sleep(wait)
    why = "rate limited" if reply.status == 429 else "server error"
    asked = _retry_after(reply)
    later = f"; it asks to wait {asked:g} s" if asked and asked > MAX_WAIT_S else ""
    raise ProviderFailed(
        f"{url} failed with HTTP {reply.status} ({why}) after {attempt + 1} attempt(s){later}: "
        f"{_error_text(reply)}; try again later",
        reply.status,
    )


def _attempt(request: urllib.request.Request, url: str, timeout_s: float, max_bytes: int) -> _Reply:
    # urllib's timeout bounds each socket operation, not the whole exchange: a server that
    # trickles a byte now and then would hold it forever. The attempt runs in a daemon
    # thread so that the wait for it is bounded; an abandoned thread ends at its next
    # socket timeout.
    outcome: list[_Reply | BaseException] = []

    def run() -> None:
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                retry_after = response.headers.get("Retry-After")
                body = _read_body(response, url, max_bytes)
                if isinstance(body, UnusableReply):
                    outcome.append(body)
                else:
                    outcome.append(_Reply(response.status, retry_after, body))
        except urllib.error.HTTPError as exc:  # a status is an answer, not a failure here
            try:
                body = exc.read(ERROR_BODY_BYTES)
            except (OSError, ValueError):
                body = b""
            outcome.append(_Reply(exc.code, exc.headers.get("Retry-After"), body))
        except BaseException as exc:  # handed to the caller's thread, raised there
            outcome.append(exc)

    worker = threading.Thread(target=run, name="anamnesis-llm-http", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if not outcome:
        raise ProviderTimeout(_timeout_message(url, timeout_s))
    result = outcome[0]
    if isinstance(result, _Reply):
        return result
    if isinstance(result, TimeoutError | socket.timeout) or (
        isinstance(result, urllib.error.URLError) and isinstance(result.reason, TimeoutError)
    ):
        raise ProviderTimeout(_timeout_message(url, timeout_s)) from result
    if isinstance(result, urllib.error.URLError | OSError):
        reason = result.reason if isinstance(result, urllib.error.URLError) else result
        raise ProviderFailed(
            f"could not reach {url} ({reason}): is the server running and llm.base_url right?"
        ) from result
    if isinstance(result, http.client.HTTPException | ValueError):  # a cut or garbled reply
        raise ProviderFailed(f"{url} sent a broken reply ({result!r}): try again") from result
    raise result


def _read_body(
    response: http.client.HTTPResponse, url: str, max_bytes: int
) -> bytes | UnusableReply:
    """The reply's body, or the error saying it went on past ``max_bytes``."""
    body = response.read(max_bytes + 1)  # one byte over says it went on
    if len(body) > max_bytes:
        return over_max_reply(url, max_bytes)
    if response.length:  # read(n) returns what came: Content-Length promised more
        raise http.client.IncompleteRead(body, response.length)
    return body


def _timeout_message(url: str, timeout_s: float) -> str:
    return (
        f"{url} did not answer within {timeout_s:g} s: try again, or allow longer "
        "(`anamnesis config set llm.timeout_s 120`)"
    )


def _decode(reply: _Reply, url: str) -> Any:
    try:
        return load_json(reply.body.decode("utf-8"))
    except JsonTooDeep as exc:
        raise UnusableReply(f"unusable reply: {url} answered with {exc}") from None
    except (UnicodeDecodeError, ValueError):
        shown = excerpt(reply.body.decode("utf-8", "replace")) or "(empty)"
        raise UnusableReply(
            f"unusable reply: {url} answered with something that is not JSON: {shown}"
        ) from None


def _retry_after(reply: _Reply) -> float | None:
    """The ``Retry-After`` in seconds; None when absent or an HTTP date (then the backoff
    applies: a date needs a trustworthy clock on both sides)."""
    raw = reply.retry_after
    try:
        seconds = float(raw) if raw else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 <= seconds < float("inf") else None


def _error_text(reply: _Reply) -> str:
    """The API's own error message (OpenAI and Anthropic both say ``{"error": {"message":
    ...}}``), else the start of the body."""
    text = reply.body.decode("utf-8", "replace")
    try:
        data = load_json(text)
    except ValueError:
        return excerpt(text) or "(no details)"
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return excerpt(message if isinstance(message, str) and message else text)
