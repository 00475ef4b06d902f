"""Remote URLs: shown without passwords, and transport failures turned into plain words."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

_SCP_LIKE = re.compile(r"^(?P<user>[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).*)$")


def redact_url(url: str) -> str:
    """The URL with any password removed (user names stay: they help diagnose SSH)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if parts.scheme and parts.password is not None:
        host = parts.hostname or ""
        if parts.port:
            host = f"{host}:{parts.port}"
        user = f"{parts.username}:***@" if parts.username else "***@"
        return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))
    return url


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


def explain_transport_error(url: str, exc: BaseException, action: str = "reach") -> str:
    """One line saying what went wrong talking to the remote and what to check.

    ``action`` is "fetch from" or "push to" (or "reach" when unknown).
    """
    name = type(exc).__name__
    text = " ".join(str(exc).split()) or name
    where = describe(url)
    lowered = text.lower()
    if "not a git repository" in lowered or name == "NotGitRepository":
        hint = "the path is not a git repository; create it with 'git init --bare' or check the URL"
    elif "publickey" in lowered or ("permission denied" in lowered and "ssh" in lowered):
        hint = "authentication failed; check your SSH key or credentials"
    elif (
        isinstance(exc, PermissionError)
        or "permission denied" in lowered
        or "not permitted" in lowered
    ):
        hint = "the remote refused to be written; check that you may push to it"
    elif "unauthorized" in lowered or "401" in lowered or "403" in lowered:
        hint = "the server refused the credentials; check the token or password"
    elif "could not resolve" in lowered or "name or service not known" in lowered:
        hint = "the host name does not resolve; check the URL and your network"
    elif "connection refused" in lowered or "timed out" in lowered or "unreachable" in lowered:
        hint = "the host did not answer; check your network or VPN"
    elif isinstance(exc, FileNotFoundError) and "ssh" in lowered:
        hint = "no ssh client found on PATH; install OpenSSH or use an https:// remote"
    else:
        hint = "check the remote URL and that the server is reachable"
    if len(text) > 300:  # HTTP stacks nest their causes; the head says enough
        text = text[:297] + "..."
    return f"cannot {action} remote {where}: {text} ({hint})"
