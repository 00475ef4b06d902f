"""Secrets never reach a note: mask credential-shaped text before anything is written.

Notes sync to other machines and into a git remote, so every writer (session capture, the
MCP server, the CLI) runs text through :func:`redact_secrets`. The patterns are specific
(known token prefixes and formats, ``key = value`` pairs with a credential-like key), so
ULIDs, UUIDs, git SHAs, paths and ordinary prose pass through untouched.
"""

from __future__ import annotations

import re

from anamnesis.store.record import Record

MASK = "[REDACTED]"


class Finding(Record):
    """One secret found in a text: what kind, and where."""

    __slots__ = ("end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int) -> None:
        self.kind = kind
        self.start = start
        self.end = end


# (kind, pattern). Whole matches are masked. Order matters: a PEM block may contain text
# that looks like other tokens, so it goes first.
_TOKENS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
            re.DOTALL,
        ),
    ),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[0-9A-Z]{16}\b")),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    ("openai-key", re.compile(r"\b(?:sk|rk)-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}")),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})")),
    ("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    (
        "stripe-key",
        re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|\bwhsec_[A-Za-z0-9]{20,}"),
    ),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("bearer-token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*")),
    ("basic-auth", re.compile(r"(?i)\bbasic\s+[A-Za-z0-9+/]{12,}={0,2}")),
)

# scheme://user:password@host -> the password is masked, the rest stays readable.
_URL_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.-]*://[^/\s:@]+:)([^/\s@]+)(@)", re.IGNORECASE)

# key = value / key: value / "key": "value" for credential-like keys (the key is kept).
_PAIR = re.compile(
    r"(?i)(?P<key>\b[A-Za-z0-9_.-]*?"
    r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|auth[_-]?token|credentials?)"
    r"[A-Za-z0-9_]*\b[\"']?)"
    r"(?P<sep>\s*(?::|=|:=|=>)\s*)"
    r"(?P<value>\[REDACTED\]|\"[^\"\n]*\"|'[^'\n]*'|<[^>\n]*>|[^\s,;}\]\)]+)"
)
# A bare lowercase word after "token:" in prose ("token: see vault") is not a secret.
_PLAIN_WORD = re.compile(r"[a-z]{1,12}")
# Values that are code or placeholders, not secrets: masking them would only hurt notes.
_NOT_SECRET_VALUE = re.compile(
    r"""(?ix)^["']?(?:
        |none|null|nil|true|false|undefined|empty|required|optional|redacted|\[redacted\]
        |\**|x+|\.{3}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%\(?[A-Za-z_]*\)?s?
        |[A-Za-z_][A-Za-z0-9_.]*\(.*|os\.environ.*|process\.env.*|env\(.*|getenv.*
    )["']?$"""
)


def find_secrets(text: str) -> list[Finding]:
    """Every secret-shaped span in ``text``, in order (for reports and tests)."""
    found: list[Finding] = []
    for kind, pattern in _TOKENS:
        found.extend(Finding(kind, m.start(), m.end()) for m in pattern.finditer(text))
    found.extend(
        Finding("url-password", m.start(2), m.end(2)) for m in _URL_CREDENTIALS.finditer(text)
    )
    for m in _PAIR.finditer(text):
        if _is_secret_value(m.group("value")):
            found.append(Finding("key-value", m.start("value"), m.end("value")))
    return sorted(found, key=lambda f: (f.start, -f.end))


def count_secrets(text: str) -> int:
    """How many separate secrets ``text`` holds (overlapping matches count once)."""
    count, end = 0, -1
    for finding in find_secrets(text):  # sorted by start
        if finding.start >= end:
            count += 1
        end = max(end, finding.end)
    return count


def redact_secrets(text: str) -> str:
    """``text`` with every secret masked as ``[REDACTED]`` (keys of pairs are kept)."""
    if not text:
        return text
    for _kind, pattern in _TOKENS:
        text = pattern.sub(MASK, text)
    text = _URL_CREDENTIALS.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3)}", text)
    return _PAIR.sub(_mask_pair, text)


def _is_secret_value(value: str) -> bool:
    if MASK in value or _NOT_SECRET_VALUE.match(value):
        return False
    quoted = len(value) > 1 and value[0] in "\"'" and value[-1] == value[0]
    return quoted or _PLAIN_WORD.fullmatch(value) is None


def _mask_pair(match: re.Match[str]) -> str:
    value = match.group("value")
    if not _is_secret_value(value):
        return match.group(0)
    quote = value[0] if value[:1] in "\"'" and value[-1:] == value[:1] and len(value) > 1 else ""
    return f"{match.group('key')}{match.group('sep')}{quote}{MASK}{quote}"
