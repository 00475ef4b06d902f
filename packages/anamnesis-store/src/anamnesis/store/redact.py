"""Secrets never reach a note: mask credential-shaped text before anything is written.

Notes sync to other machines and into a git remote, so every writer (session capture, the
MCP server, the CLI) runs text through :func:`redact_secrets`. The patterns are specific
(known token prefixes and formats, ``key = value`` pairs whose key names a credential), so
ULIDs, UUIDs, git SHAs, paths and ordinary prose pass through untouched.

Redaction takes time linear in the text, whatever its shape (it runs on whole session
transcripts). Every pattern is built so that a match attempt reads at most the run of
characters it starts on, and attempts start only where such a run begins:

* each pattern opens with a negative lookbehind on its own leading characters, so no
  attempt starts inside a run another attempt already read;
* its repetitions are possessive (``*+``, ``{n,}+``) or bounded, so a failed attempt never
  backtracks through what it read;
* a pattern that reads past its run (a quoted value, a PEM block) either matches what it
  read, which the scan then skips, or stops at a character that no attempt in between can
  start from.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import pairwise

from anamnesis.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

MASK = "[REDACTED]"


class Finding(Record):
    """One secret found in a text: what kind, and where."""

    __slots__ = ("end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int) -> None:
        self.kind = kind
        self.start = start
        self.end = end


def _random_looking(token: str) -> bool:
    """A digit, mixed case or inner punctuation: real tokens have one, English words none."""
    return (
        any(c.isdigit() or c in "._~+/=" for c in token) or token.lower() != token != token.upper()
    )


def _basic_credentials(token: str) -> bool:
    """``Basic`` auth carries base64 of ``user:password``; ``Basic troubleshooting`` not."""
    import base64
    import binascii

    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in text and text.isprintable()


# (kind, pattern, the group holding the secret, a check the secret must pass). Whole
# tokens are masked; for "Bearer" and "Basic" only what follows the word. Patterns open
# with their literal prefix (the regex engine then skips ahead to it) and check the
# character before it with a fixed-width lookbehind right after it.
_TOKENS: tuple[tuple[str, re.Pattern[str], int, Callable[[str], bool] | None], ...] = (
    (
        "private-key",  # an unterminated block is masked to the end of the text
        re.compile(
            # To its END line, or to the end of the text. No possessive group here: CPython
            # before 3.11.4 (Debian 12 has 3.11.2) ends `(?:(?!X).)*+` early, which let a
            # key glued to the block through. Each match resumes after itself: linear.
            r"-----BEGIN (?:[A-Z0-9]{1,32} ){0,4}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]{1,32} ){0,4}PRIVATE KEY(?: BLOCK)?-----|.*)",
            re.DOTALL,
        ),
        0,
        None,
    ),
    (
        "aws-access-key",
        re.compile(
            r"(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)(?<![A-Za-z0-9]....)[0-9A-Z]{16}\b"
        ),
        0,
        None,
    ),
    (
        "anthropic-key",
        re.compile(r"sk-ant-(?<![A-Za-z0-9_-]sk-ant-)[A-Za-z0-9_-]{20,}+"),
        0,
        None,
    ),
    (
        "openai-key",
        re.compile(r"(?:sk|rk)-(?<![A-Za-z0-9_-]...)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+"),
        0,
        None,
    ),
    (
        "github-token",
        re.compile(
            r"gh[pousr]_(?<![A-Za-z0-9_]....)[A-Za-z0-9]{30,}+"
            r"|github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{30,}+"
        ),
        0,
        None,
    ),
    ("gitlab-token", re.compile(r"glpat-(?<![A-Za-z0-9_-]glpat-)[A-Za-z0-9_-]{20,}+"), 0, None),
    ("npm-token", re.compile(r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}+(?![A-Za-z0-9])"), 0, None),
    ("huggingface-token", re.compile(r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}+"), 0, None),
    (
        "slack-token",  # xoxb-, xoxp-, ..., refresh tokens (xoxe-, xoxe.xoxp-), app tokens
        re.compile(
            r"xox[a-z](?<![A-Za-z0-9.-]....)(?:\.xox[a-z])?-[A-Za-z0-9-]{10,}+"
            r"|xapp(?<![A-Za-z0-9.-]xapp)-[A-Za-z0-9-]{10,}+"
        ),
        0,
        None,
    ),
    (
        "stripe-key",
        re.compile(
            r"(?:sk|rk|pk)_(?<![A-Za-z0-9_]...)(?:live|test)_[A-Za-z0-9]{16,}+"
            r"|whsec_(?<![A-Za-z0-9_]whsec_)[A-Za-z0-9]{20,}+"
        ),
        0,
        None,
    ),
    ("google-api-key", re.compile(r"AIza(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{35}"), 0, None),
    (
        "jwt",
        re.compile(
            r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+"
        ),
        0,
        None,
    ),
    (
        "bearer-token",
        re.compile(r"(?i)bearer(?<![A-Za-z0-9_]bearer)[ \t]++([A-Za-z0-9._~+/-]{16,}+=*+)"),
        1,
        _random_looking,
    ),
    (
        "basic-auth",
        re.compile(r"(?i)basic(?<![A-Za-z0-9_]basic)[ \t]++([A-Za-z0-9+/]{12,}+={0,2})"),
        1,
        _basic_credentials,
    ),
)

# scheme://user:password@host -> the password is masked, the rest stays readable. The user
# may be empty (redis://:pw@host); the password runs to the last "@" before the path, so a
# password holding "@" is masked whole.
_URL_CREDENTIALS = re.compile(
    r"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}+://[^/\s:@?#]{0,256}+:([^/\s?#]{1,512})@"
)

# key = value / key: value / "key": "value" / --key=value, for a key holding a word that
# may name a credential (pass, secret, token, key, ...; _credential_key decides). Only
# then is the value read, so a URL after "https:" cannot hide the "token=..." inside it.
_KEY_SEP = re.compile(
    r"(?<![A-Za-z0-9_.\-])"
    r"(?P<key>[A-Za-z0-9_.\-]{0,48}?(?i:pass|pwd|secret|token|key|credential)[A-Za-z0-9_.\-]{0,48}+)"
    r"[\"']?(?P<sep>[ \t]*+(?::=|=>|:|=)[ \t]*+)"
)
_VALUE = re.compile(
    r"\[REDACTED\]|\"[^\"\n]{0,1024}+\"|'[^'\n]{0,1024}+'|<[^>\n]{0,256}+>"
    r"|\$\{\{[^}\n]{0,256}+\}\}|\{\{[^}\n]{0,256}+\}\}|[^\s,;}\])]{1,1024}+"
)
_KEY_WORD_SPLIT = re.compile(r"[_.\-]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
# Words that make a key name a credential.
_CREDENTIAL_WORDS = frozenset(
    {
        "password",
        "passwords",
        "passwd",
        "passphrase",
        "pwd",
        "secret",
        "secrets",
        "token",  # not "tokens": max_tokens, input_tokens count tokens, they are not one
        "credential",
        "credentials",
        "apikey",
        "accesskey",
        "secretkey",
        "privatekey",
        "authtoken",
        "accesstoken",
    }
)
# "<word> key" names a credential for these words: api_key, accessKey, X-Api-Key, ...
_KEY_QUALIFIERS = frozenset(
    {"api", "access", "private", "secret", "signing", "encryption", "master", "auth"}
)
# A key ending in one of these names something about a credential, not the credential:
# token_url, password_file, secret_name, token_type, password_length, ...
_ABOUT_WORDS = frozenset(
    {
        "url",
        "uri",
        "endpoint",
        "path",
        "file",
        "dir",
        "name",
        "id",
        "ids",
        "type",
        "kind",
        "count",
        "length",
        "len",
        "size",
        "max",
        "min",
        "limit",
        "env",
        "var",
        "header",
        "field",
        "prefix",
        "suffix",
        "format",
        "policy",
        "ttl",
        "expiry",
        "expires",
        "expiration",
        "timeout",
        "usage",
        "enabled",
        "required",
        "provider",
        "location",
        "source",
        "label",
        "hint",
        "help",
        "description",
        "cmd",
        "command",
        "store",
        "manager",
        "rotation",
        "regex",
        "pattern",
        "version",
        "mode",
    }
)
# Values that are code or placeholders, not secrets: masking them would only hurt notes.
_NOT_SECRET_VALUE = re.compile(
    r"""(?ix)^["']?(?:
        |none|null|nil|true|false|undefined|empty|required|optional|redacted|\[redacted\]
        |\**|x+|\.{3}|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%\(?[A-Za-z_]*\)?s?
        |\$?\{\{.*\}\}
        |[A-Za-z_][A-Za-z0-9_.]*\(.*|os\.environ.*|process\.env.*|env\(.*|getenv.*
    )["']?$"""
)
_PUNCTUATION_ONLY = re.compile(r"[^A-Za-z0-9]*")
# "token: see the runbook": after a colon, a short lower-case word followed by more words
# is prose. After "=" it is a value (secret=swordfish); alone it is one (password: hunter).
_PLAIN_WORD = re.compile(r"[a-z]{1,12}")
_MORE_PROSE = re.compile(r"[ \t]+[A-Za-z]")
_INTEGER = re.compile(r"[0-9]{1,9}")
_PATH = re.compile(r"(?:~|\.{1,2})?/")


def find_secrets(text: str) -> list[Finding]:
    """Every secret-shaped span in ``text``, in order (for reports and tests)."""
    found: list[Finding] = []
    for kind, pattern, group, check in _TOKENS:
        for m in pattern.finditer(text):
            if check is None or check(m.group(group)):
                found.append(Finding(kind, m.start(group), m.end(group)))
    for m in _URL_CREDENTIALS.finditer(text):
        if m.group(1) != MASK:
            found.append(Finding("url-password", m.start(1), m.end(1)))
    found.extend(_pair_values(text))
    return sorted(found, key=lambda f: (f.start, -f.end))


def _pair_values(text: str) -> list[Finding]:
    """The values of ``key = value`` pairs whose key names a credential."""
    found: list[Finding] = []
    pos = 0
    while (pair := _KEY_SEP.search(text, pos)) is not None:
        pos = pair.end()
        claim = _credential_key(pair.group("key"))
        if claim is None:
            continue
        value_match = _VALUE.match(text, pos)
        if value_match is None:
            continue
        pos = value_match.end()  # the value, secret or not, is never read as a key
        value = value_match.group()
        if _is_secret_value(value, claim, pair.group("sep"), text, pos):
            start, end = value_match.span()
            if len(value) > 1 and value[0] in "\"'" and value[-1] == value[0]:
                start, end = start + 1, end - 1  # keep the quotes: the text stays valid code
            found.append(Finding("key-value", start, end))
    return found


def count_secrets(text: str) -> int:
    """How many separate secrets ``text`` holds (overlapping matches count once)."""
    return sum(len(spans) for _text, spans in _passes(text))


def redact_secrets(text: str) -> str:
    """``text`` with every secret masked as ``[REDACTED]`` (keys of pairs are kept)."""
    for masked, _spans in _passes(text):
        text = masked
    return text


# A token glued to another one ("...END PRIVATE KEY-----sk-...") is not at a token
# boundary until its neighbour is masked; a second pass finds it, so that redacting twice
# changes nothing. Each pass is linear; a third is never needed in practice.
_MAX_PASSES = 3


def _passes(text: str) -> Iterator[tuple[str, list[tuple[int, int]]]]:
    """Each masking pass that found something: the masked text and the spans it masked."""
    for _ in range(_MAX_PASSES):
        spans = _merged(find_secrets(text)) if text else []
        if not spans:
            return
        parts: list[str] = []
        done = 0
        for start, end in spans:
            parts.append(text[done:start])
            parts.append(MASK)
            done = end
        parts.append(text[done:])
        text = "".join(parts)
        yield text, spans


def _merged(findings: list[Finding]) -> list[tuple[int, int]]:
    """The findings' spans (sorted by start) with overlapping ones joined."""
    spans: list[tuple[int, int]] = []
    for finding in findings:
        if spans and finding.start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(spans[-1][1], finding.end))
        else:
            spans.append((finding.start, finding.end))
    return spans


@lru_cache(maxsize=1024)  # the same few keys recur through a transcript
def _credential_key(key: str) -> str | None:
    """What credential a key names: "token", "pwd" (alone, it may be a folder) or
    "secret" (anything else, the strongest claim); None when it names none."""
    words = [w for w in _KEY_WORD_SPLIT.split(_CAMEL.sub(r"\1_\2", key).lower()) if w]
    if not words or words[-1] in _ABOUT_WORDS:
        return None
    named = {w for w in words if w in _CREDENTIAL_WORDS}
    named |= {
        "apikey" for before, word in pairwise(words) if word == "key" and before in _KEY_QUALIFIERS
    }
    if not named:
        return None
    if named == {"token"}:
        return "token"
    return "pwd" if named == {"pwd"} else "secret"


def _is_secret_value(value: str, claim: str, sep: str, text: str, end: int) -> bool:
    if MASK in value or _NOT_SECRET_VALUE.match(value):
        return False
    if len(value) <= 3 and _PUNCTUATION_ONLY.fullmatch(value):  # "if password == x"
        return False
    quoted = len(value) > 1 and value[0] in "\"'" and value[-1] == value[0]
    if quoted:
        return True
    if ":" in sep and _PLAIN_WORD.fullmatch(value) and _MORE_PROSE.match(text, end):
        return False
    if claim == "token" and _INTEGER.fullmatch(value):  # max_token=4096: a count
        return False
    return not (claim == "pwd" and _PATH.match(value))  # pwd: /home/me/src is a folder
