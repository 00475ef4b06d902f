"""Remote URLs: shown without passwords, and transport failures turned into plain words."""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

_SCP_LIKE = re.compile(r"^(?P<user>[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).*)$")


# A user name kept in shown URLs: short and plain ("git", "me", "alice.smith"). Anything
# longer, or shaped like a token (GitHub "ghp_...", GitLab "glpat-..."), is a secret
# given as the user name, as hosts let tokens be given.
_PLAIN_USER = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,19}")
_TOKEN_PREFIXES = ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gldt-")


def redact_url(url: str) -> str:
    """The URL with any password, or a token given as the user name, replaced by ``***``.

    Plain user names stay: they help diagnose SSH (``git@host:...``).
    """
    userinfo = _userinfo(url)
    if not userinfo:
        return url
    user, colon, _password = userinfo.partition(":")
    shown = f"{user}{':***' if colon else ''}" if _is_plain_user(unquote(user)) else "***"
    return url.replace(f"{userinfo}@", f"{shown}@", 1)


def _userinfo(url: str) -> str:
    """What comes before the ``@`` of the host: ``user`` or ``user:password``."""
    if "://" not in url:
        scp = _SCP_LIKE.match(url)
        return scp.group("user")[:-1] if scp is not None and scp.group("user") else ""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return ""
    return netloc.rpartition("@")[0]


def _is_plain_user(user: str) -> bool:
    return bool(_PLAIN_USER.fullmatch(user)) and not user.lower().startswith(_TOKEN_PREFIXES)


def _secrets(url: str) -> list[str]:
    """The secret parts of ``url``, as typed and URL-decoded, longest first: scrubbed from
    error messages that repeat the URL."""
    user, _colon, password = _userinfo(url).partition(":")
    raw = [password] if _is_plain_user(unquote(user)) else [user, password]
    return sorted({form for r in raw if r for form in (r, unquote(r))}, key=len, reverse=True)


def describe(url: str) -> str:
    """A short, password-free name for a remote, for messages."""
    return redact_url(url)


def is_local(url: str) -> bool:
    """True for plain paths and file:// URLs (no network involved)."""
    if url.startswith("file://"):
        return True
    if "://" in url:
        return False
    return _SCP_LIKE.match(url) is None or url.startswith(("/", ".", "~"))


# An HTTP 401/403 status in an error text: a whole number, never part of a port
# ("127.0.0.1:40157") or a longer number, which once read a timeout as a refusal.
_HTTP_REFUSAL = re.compile(r"(?<![\d:.=])40[13](?![\d])")


def explain_transport_error(url: str, exc: BaseException, action: str = "reach") -> str:
    """One line saying what went wrong talking to the remote and what to check.

    ``action`` is "fetch from" or "push to" (or "reach" when unknown). Secrets in the URL
    never appear, even when the underlying error repeats the URL.
    """
    name = type(exc).__name__
    text = " ".join(str(exc).split()) or name
    for secret in _secrets(url):
        text = text.replace(secret, "***")
    where = describe(url)
    lowered = text.lower()
    own_hint = getattr(exc, "hint", None)
    if isinstance(own_hint, str) and own_hint:
        hint = own_hint
    elif "not a git repository" in lowered or name == "NotGitRepository":
        hint = "the path is not a git repository; create it with 'git init --bare' or check the URL"
    elif "publickey" in lowered or ("permission denied" in lowered and "ssh" in lowered):
        hint = "authentication failed; check your SSH key or credentials"
    elif name in ("HTTPUnauthorized", "HTTPProxyUnauthorized") or "credentials" in lowered:
        hint = (
            "the server wants credentials; put a token in the remote URL "
            "(https://USER:TOKEN@host/path, never shown) or use an ssh remote"
        )
    elif (
        isinstance(exc, PermissionError)
        or "permission denied" in lowered
        or "not permitted" in lowered
    ):
        hint = "the remote refused to be written; check that you may push to it"
    elif "unauthorized" in lowered or _HTTP_REFUSAL.search(lowered):
        hint = "the server refused the credentials; check the token or password"
    elif "certificate verify failed" in lowered or "sslerror" in lowered:
        hint = (
            "the server's TLS certificate is not trusted here; check the URL, or point "
            "http.sslCAInfo in the repository's config at your CA"
        )
    elif "could not resolve" in lowered or "name or service not known" in lowered:
        hint = "the host name does not resolve; check the URL and your network"
    elif (
        isinstance(exc, TimeoutError)
        or "connection refused" in lowered
        or "timed out" in lowered
        or "unreachable" in lowered
    ):
        hint = "the host did not answer; check your network or VPN"
    elif isinstance(exc, FileNotFoundError) and "ssh" in lowered:
        hint = "no ssh client found on PATH; install OpenSSH or use an https:// remote"
    else:
        hint = "check the remote URL and that the server is reachable"
    if len(text) > 300:  # HTTP stacks nest their causes; the head says enough
        text = text[:297] + "..."
    return f"cannot {action} remote {where}: {text} ({hint})"
