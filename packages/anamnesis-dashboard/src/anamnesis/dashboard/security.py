"""Who may talk to the dashboard: a local page that can rewrite memory is a target.

Every request passes these checks, in this order, before any page code runs:

1. **Host**: only ``127.0.0.1:PORT`` or ``localhost:PORT`` (and the explicitly chosen bind
   address). A DNS-rebinding page reaches us under its own host name and is refused here.
2. **Session**: the URL printed at start carries a one-time ``token``; the first request
   with it gets an HttpOnly, SameSite=Strict cookie and a redirect to the same page without
   the token (so it stays out of history and referrers). After that the token is spent: a
   copy of the URL in a shell history or a screenshot opens nothing. No cookie, no page.
3. **State changes** are POSTs only, each with the session's CSRF token in the form and an
   ``Origin`` header naming this server exactly. SameSite=Strict already keeps the cookie
   off other sites' requests; the CSRF token and Origin check hold even where it does not.

Every answer carries a strict Content-Security-Policy (``default-src 'self'``: no inline
script, no request to any other host) and headers that forbid framing and sniffing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "anamnesis_dashboard"
CSRF_FIELD = "csrf"
# What a page may load: only this server. `form-action` keeps forms posting here,
# `frame-ancestors` stops another page from framing ours (clickjacking an edit).
CSP = (
    "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; "
    "object-src 'none'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),  # no-referrer makes form posts send Origin: null
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)
SAFE_METHODS = frozenset({"GET", "HEAD"})
LOOPBACK_NAMES = ("127.0.0.1", "localhost")


@dataclass
class Guard:
    """The secrets of one dashboard run: the one-time start token, the session cookie's
    value and the CSRF token derived from it. Nothing here is stored on disk."""

    port: int
    extra_host: str | None = None  # an explicitly chosen non-loopback bind address
    start_token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    session: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    token_spent: bool = False

    @property
    def csrf(self) -> str:
        return hmac.new(self.session.encode(), b"csrf", hashlib.sha256).hexdigest()

    def allowed_hosts(self) -> set[str]:
        names = [*LOOPBACK_NAMES, *([self.extra_host] if self.extra_host else [])]
        return {f"{name}:{self.port}" for name in names}

    def allowed_origins(self) -> set[str]:
        return {f"http://{host}" for host in self.allowed_hosts()}

    def start_url(self, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}/?token={self.start_token}"

    def has_session(self, cookie_header: str) -> bool:
        value = _cookie(cookie_header, COOKIE)
        return value is not None and hmac.compare_digest(value, self.session)

    def redeem(self, token: str) -> bool:
        """Spend the start token: True once, for the right token, never again."""
        if self.token_spent or not hmac.compare_digest(token, self.start_token):
            return False
        self.token_spent = True
        return True

    def csrf_ok(self, value: str) -> bool:
        return hmac.compare_digest(value, self.csrf)


class GuardMiddleware:
    """The checks above as ASGI middleware, plus the security headers and a
    ``Server-Timing: app;dur=<ms>`` header (what the benchmark reads as server time)."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = _headers(scope)
        refusal = self._refusal(scope, headers)
        if refusal is not None:
            status, text = refusal
            await _plain(send, status, text)
            return
        query = scope.get("query_string", b"").decode("latin-1")
        token = dict(parse_qsl(query)).get("token")
        if token is not None:
            await self._exchange(scope, send, query, token)
            return
        if not self.guard.has_session(headers.get("cookie", "")):
            await _plain(
                send, 403,
                "No session. Open the link `anamnesis dashboard` printed (it works once), "
                "or restart it for a new one.",
            )  # fmt: skip
            return
        if scope["method"] not in SAFE_METHODS:
            checked = await self._checked_form(scope, receive, send, headers)
            if checked is None:
                return
            receive = checked

        async def timed_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                elapsed = (time.perf_counter() - started) * 1000
                extra = [*SECURITY_HEADERS, (b"server-timing", f"app;dur={elapsed:.2f}".encode())]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, timed_send)

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        if headers.get("host", "") not in self.guard.allowed_hosts():
            return 421, "This dashboard answers only at its own address (127.0.0.1 or localhost)."
        if scope["method"] not in SAFE_METHODS and scope["method"] != "POST":
            return 405, "Only GET and POST are served here."
        if scope["method"] == "POST" and headers.get("origin") not in self.guard.allowed_origins():
            return 403, "Refused: the request came from another origin."
        return None

    async def _exchange(self, scope: Scope, send: Send, query: str, token: str) -> None:
        """The printed link's first use: set the cookie, then show the page without the
        token in its address."""
        if scope["method"] not in SAFE_METHODS or not self.guard.redeem(token):
            await _plain(
                send, 403,
                "This link was already used (or is wrong). Restart `anamnesis dashboard` for "
                "a new one.",
            )  # fmt: skip
            return
        kept = urlencode([(k, v) for k, v in parse_qsl(query) if k != "token"])
        location = scope.get("path", "/") + (f"?{kept}" if kept else "")
        cookie = f"{COOKIE}={self.guard.session}; HttpOnly; SameSite=Strict; Path=/"
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", location.encode()),
                    (b"set-cookie", cookie.encode()),
                    *SECURITY_HEADERS,
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    async def _checked_form(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]
    ) -> Receive | None:
        """Read a POST's body, check its CSRF token, and hand the body on to the app."""
        if headers.get("content-type", "").split(";")[0].strip() != (
            "application/x-www-form-urlencoded"
        ):
            await _plain(send, 415, "Forms only (application/x-www-form-urlencoded).")
            return None
        body = await _read_body(receive)
        if body is None:
            await _plain(send, 413, "That form is too large.")
            return None
        fields = dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))
        if not self.guard.csrf_ok(fields.get(CSRF_FIELD, "")):
            await _plain(send, 403, "Refused: the form's CSRF token is missing or wrong.")
            return None
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return replay


MAX_FORM_BYTES = 2 * 1024 * 1024  # a note is a few KB; a 2 MB form is a mistake or an attack


async def _read_body(receive: Receive) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_FORM_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _cookie(header: str, name: str) -> str | None:
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
