"""The redactor's rules: token formats, credential key words, placeholders, randomness.

Token formats follow what the services publish and what gitleaks' rule set and
detect-secrets' plugins match (prefix, alphabet, length), written here so that each pattern
keeps the linear-time construction that ``redact.py`` describes: a literal prefix with a
fixed-width lookbehind on the character before it (or a lookbehind first, then a bounded
class), possessive or bounded repetitions, and no possessive groups (CPython before 3.11.4
mishandles those).
"""

from __future__ import annotations

import base64
import binascii
import math
import re
import string
from collections import Counter
from collections.abc import Callable

Check = Callable[[str], bool]
# (kind, pattern, the group holding the secret, a check the secret must pass, needles,
# whether they are sought in the lowered text, whether the kind is in LONG_TOKENS). Needles
# and long runs are necessary conditions, checked before a scan that would cost 10-25 µs a
# 4 KB note for a pattern re cannot skip ahead to by a literal: every match holds one of the
# needles (for a case-insensitive pattern they are in lower case and sought in the lowered
# text, where its ASCII letters are lower case too).
Rule = tuple[str, re.Pattern[str], int, Check | None, tuple[str, ...], bool, bool]

# The kinds every match of which holds TOKEN_RUN characters of TOKEN_CHARS in a row (a
# kind belongs here only if each of its patterns' alternatives does): the shortest is a
# Stripe key, "sk_live_" and 16 more. A note without such a run, most prose, skips all
# their scans at once.
TOKEN_RUN = 24
TOKEN_CHARS = string.ascii_letters + string.digits + "_.=~-"
# fmt: off
LONG_TOKENS = frozenset({
    "anthropic-key", "github-token", "gitlab-token", "npm-token", "pypi-token",
    "rubygems-token", "huggingface-token", "stripe-key", "google-key", "jwt", "sendgrid-key",
    "twilio-key", "mailgun-key", "mailchimp-key", "azure-client-secret", "discord-bot-token",
    "telegram-bot-token", "heroku-key", "digitalocean-token", "shopify-token", "square-token",
    "facebook-token", "atlassian-token", "databricks-token", "postman-key", "doppler-token",
    "linear-key", "vault-token", "terraform-token", "age-secret-key", "saas-token",
    "airtable-token",
})
# fmt: on


def _rule(
    kind: str,
    pattern: str,
    group: int = 0,
    check: Check | None = None,
    needles: tuple[str, ...] = (),
) -> Rule:
    compiled = re.compile(pattern, re.ASCII)
    if lowered := bool(compiled.flags & re.IGNORECASE):
        needles = tuple(needle.lower() for needle in needles)
    return (kind, compiled, group, check, needles, lowered, kind in LONG_TOKENS)


def random_looking(token: str) -> bool:
    """A digit, mixed case or inner punctuation: real tokens have one, English words none."""
    return (
        any(c.isdigit() or c in "._~+/=" for c in token) or token.lower() != token != token.upper()
    )


def basic_credentials(token: str) -> bool:
    """``Basic`` auth carries base64 of ``user:password``; ``Basic troubleshooting`` not."""
    try:
        raw = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in text and text.isprintable()


def _hex_mixed(token: str) -> bool:
    """Random hex has digits and letters; ``SKabcdef...`` spelled in words does not."""
    return any(c.isdigit() for c in token) and any(c.isalpha() for c in token)


def _all_classes(token: str) -> bool:
    return (
        any(c.isdigit() for c in token)
        and any(c.islower() for c in token)
        and any(c.isupper() for c in token)
    )


def shannon_entropy(text: str) -> float:
    """Bits per character of ``text``'s own character distribution."""
    n = len(text)
    return -sum(k / n * math.log2(k / n) for k in Counter(text).values()) if n else 0.0


# Words and acronyms: CamelCase identifiers are made of them, random strings hardly.
_WORDLIKE = re.compile(r"[A-Z]?[a-z]{3,}+|[A-Z]{3,}+(?![a-z])")


def looks_random(value: str) -> bool:
    """Upper case, lower case and digits, not made of words, with the entropy random text of
    its length has. Measured on random base64 (20,000 strings a length): entropy under
    log2(n) - 1 is rarer than 1 in 1,000 from 16 characters up, and words cover over 75% of
    fewer than 1 in 1,000 at 40 characters, while CamelCase names score 85% and more.
    ULIDs, UUIDs, SHAs and version strings lack a case, so never pass."""
    n = len(value)
    if n < 8 or not _all_classes(value):
        return False
    if shannon_entropy(value) < min(4.5, math.log2(n) - 1.0):
        return False
    return _word_share(value) < 0.75


def _word_share(value: str) -> float:
    """How much of ``value`` is words (CamelCase parts, acronyms)."""
    return sum(len(w) for w in _WORDLIKE.findall(value)) / len(value)


# Whole tokens are masked; for "Bearer", "Basic", webhooks and URL signatures the value.
TOKENS: tuple[Rule, ...] = (
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
        (),
        False,
        False,
    ),
    _rule(
        "aws-access-key",
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)(?<![A-Za-z0-9]....)[0-9A-Z]{16}\b",
    ),
    _rule("aws-bedrock-key", r"ABSK(?<![A-Za-z0-9]ABSK)[A-Za-z0-9+/]{109,}+={0,2}"),
    _rule("anthropic-key", r"sk-ant-(?<![A-Za-z0-9_-]sk-ant-)[A-Za-z0-9_-]{20,}+"),
    _rule(
        "openai-key",
        r"(?:sk|rk)-(?<![A-Za-z0-9_-]...)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}+",
        needles=("sk-", "rk-"),
    ),
    _rule(
        "github-token",
        r"gh[pousr]_(?<![A-Za-z0-9_]....)[A-Za-z0-9]{30,}+"
        r"|github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{30,}+",
    ),
    _rule(
        "gitlab-token",  # personal, deploy, runner, trigger, feed, ... (routable ones: ".xx")
        r"gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|rt|ptt|ft|soat|cbt|imt|oas|agent|ffct)-"
        r"[A-Za-z0-9_-]{20,}+(?:\.[0-9a-z]{9}(?![0-9a-z]))?"
        r"|GR1348941(?<![A-Za-z0-9]GR1348941)[A-Za-z0-9_-]{20}(?![A-Za-z0-9_-])",
        needles=("gl", "GR1348941"),
    ),
    _rule("npm-token", r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}+(?![A-Za-z0-9])"),
    _rule("pypi-token", r"pypi-(?<![A-Za-z0-9_-]pypi-)AgE[A-Za-z0-9_-]{50,}+"),
    _rule("rubygems-token", r"rubygems_(?<![A-Za-z0-9_]rubygems_)[a-f0-9]{48}(?![A-Za-z0-9])"),
    _rule(
        "huggingface-token",
        r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}+"
        r"|api_org_(?<![A-Za-z0-9_]api_org_)[A-Za-z0-9]{34}(?![A-Za-z0-9])",
        needles=("hf_", "api_org_"),
    ),
    _rule(
        "slack-token",  # xoxb-, xoxp-, ..., refresh tokens (xoxe-, xoxe.xoxp-), app tokens
        r"xox[a-z](?<![A-Za-z0-9.-]....)(?:\.xox[a-z])?-[A-Za-z0-9-]{10,}+"
        r"|xapp(?<![A-Za-z0-9.-]xapp)-[A-Za-z0-9-]{10,}+",
    ),
    _rule(
        "webhook-url",  # the path of a Slack or Discord webhook is its secret
        r"(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
        r"|discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/)([A-Za-z0-9+/_-]{20,}+)",
        1,
        needles=("hooks.slack.com/", "/api/webhooks/"),
    ),
    _rule(
        "stripe-key",
        r"sk_(?<![A-Za-z0-9_]sk_)(?:live|test|prod)_[A-Za-z0-9]{16,}+"
        r"|whsec_(?<![A-Za-z0-9_]whsec_)[A-Za-z0-9]{20,}+",
        needles=("sk_live_", "sk_test_", "sk_prod_", "whsec_"),
    ),
    # One literal prefix a pattern: an alternation of prefixes makes the scan stop at every
    # "s", "r" and "p" of the text (13 ms a MB instead of 0.7).
    _rule("stripe-key", r"rk_(?<![A-Za-z0-9_]rk_)(?:live|test|prod)_[A-Za-z0-9]{16,}+"),
    _rule("stripe-key", r"pk_(?<![A-Za-z0-9_]pk_)(?:live|test|prod)_[A-Za-z0-9]{16,}+"),
    _rule(
        "google-key",  # API keys, OAuth client secrets, OAuth access tokens
        r"AIza(?<![A-Za-z0-9_-]AIza)[0-9A-Za-z_-]{35}"
        r"|GOCSPX-(?<![A-Za-z0-9_-]GOCSPX-)[A-Za-z0-9_-]{28}"
        r"|ya29\.(?<![A-Za-z0-9_.-]ya29\.)[A-Za-z0-9_-]{30,}+",
        needles=("AIza", "GOCSPX-", "ya29."),
    ),
    _rule(
        "jwt",
        r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}+",
        needles=(".eyJ",),
    ),
    _rule(
        "bearer-token",
        r"(?i)bearer(?<![A-Za-z0-9_]bearer)[ \t]++([A-Za-z0-9._~+/-]{16,}+=*+)",
        1,
        random_looking,
        ("bearer",),
    ),
    _rule(
        "basic-auth",
        r"(?i)basic(?<![A-Za-z0-9_]basic)[ \t]++([A-Za-z0-9+/]{12,}+={0,2})",
        1,
        basic_credentials,
        ("basic",),
    ),
    _rule(
        "auth-header",  # Authorization: Token ..., Bot ..., Key ...
        r"(?i)authorization(?<![A-Za-z0-9_-]authorization)[\"']?[ \t]*+[:=][ \t]*+[\"']?"
        r"(?:token|bot|key|apikey|api-key|sso-key)[ \t]++([A-Za-z0-9._~+/=-]{8,}+)",
        1,
        random_looking,
        ("authorization",),
    ),
    _rule("sendgrid-key", r"SG\.(?<![A-Za-z0-9_.-]SG\.)[\w-]{22}\.[\w-]{43}(?![A-Za-z0-9_-])"),
    _rule("twilio-key", r"SK(?<![A-Za-z0-9_]SK)[0-9a-fA-F]{32}(?![A-Za-z0-9_])", 0, _hex_mixed),
    _rule("mailgun-key", r"key-(?<![A-Za-z0-9_-]key-)[0-9a-z]{32}(?![A-Za-z0-9_-])", 0, _hex_mixed),
    _rule(
        "mailchimp-key",
        r"(?<![A-Za-z0-9_-])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9_-])",
        0,
        _hex_mixed,
        ("-us",),
    ),
    _rule(
        "azure-client-secret",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
        needles=("Q~",),
    ),
    _rule(
        "signed-url",  # Azure SAS and presigned S3/GCS URLs: the signature is the credential
        r"[?&;](?:sig|X-Amz-Signature|X-Goog-Signature|X-Amz-Security-Token)="
        r"([A-Za-z0-9%+/=_.~-]{16,}+)",
        1,
        needles=("sig=", "-Signature=", "-Security-Token="),
    ),
    _rule(
        "discord-bot-token",
        r"[MNO](?<![A-Za-z0-9_.-].)[\w-]{23,25}\.[\w-]{6}\.[\w-]{27,38}(?![A-Za-z0-9_.-])",
        0,
        _all_classes,
    ),
    _rule(
        "telegram-bot-token",
        r"(?<![\w:-])[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])",
        needles=(":AA",),
    ),
    _rule("heroku-key", r"HRKU-(?<![A-Za-z0-9_-]HRKU-)AA[A-Za-z0-9_-]{58}(?![A-Za-z0-9_-])"),
    _rule("digitalocean-token", r"do[opr]_v1_(?<![A-Za-z0-9_]do._v1_)[a-f0-9]{64}(?![A-Za-z0-9])"),
    _rule(
        "shopify-token",
        r"shp(?:at|ca|pa|ss)_(?<![A-Za-z0-9_]shp.._)[a-fA-F0-9]{32}(?![A-Za-z0-9])",
    ),
    _rule(
        "square-token",
        r"sq0(?:atp|csp)-(?<![A-Za-z0-9_-]sq0...-)[\w-]{22,43}+(?![A-Za-z0-9_-])"
        r"|EAAA(?<![A-Za-z0-9_-]EAAA)[\w-]{60}(?![A-Za-z0-9_-])",
        0,
        random_looking,
        ("sq0", "EAAA"),
    ),
    _rule("facebook-token", r"EAA[CM](?<![A-Za-z0-9]EAA.)[A-Za-z0-9]{100,}+", 0, _all_classes),
    _rule("atlassian-token", r"ATATT3(?<![A-Za-z0-9_-]ATATT3)[A-Za-z0-9_=-]{150,}+"),
    _rule(
        "databricks-token",
        r"dapi(?<![A-Za-z0-9_]dapi)[a-f0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])",
        0,
        _hex_mixed,
    ),
    _rule("postman-key", r"PMAK-(?<![A-Za-z0-9_-]PMAK-)[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])"),
    _rule(
        "doppler-token",
        r"dp\.(?<![A-Za-z0-9_.-]dp\.)(?:pt|st|ct|sa|scim|audit)\."
        r"[A-Za-z0-9]{40,44}+(?![A-Za-z0-9])",
    ),
    _rule("linear-key", r"lin_api_(?<![A-Za-z0-9_]lin_api_)[A-Za-z0-9]{40}(?![A-Za-z0-9])"),
    _rule(
        "grafana-token",
        r"glc_(?<![A-Za-z0-9_]glc_)[A-Za-z0-9+/]{32,}+={0,2}"
        r"|glsa_(?<![A-Za-z0-9_]glsa_)[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}(?![A-Za-z0-9])",
    ),
    _rule("sentry-token", r"sntry[su]_(?<![A-Za-z0-9_]sntry._)[A-Za-z0-9+/=_]{40,}+"),
    _rule("vault-token", r"hv[sb]\.(?<![A-Za-z0-9_.-]hv.\.)[A-Za-z0-9_-]{24,}+"),
    _rule(
        "terraform-token",
        r"(?<![A-Za-z0-9])[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}+",
        needles=(".atlasv1.",),
    ),
    _rule("age-secret-key", r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"),
    _rule(
        "saas-token",  # fixed-format tokens with a service prefix; the rule sets' lengths
        r"NRAK-(?<![A-Za-z0-9_-]NRAK-)[A-Z0-9]{27}(?![A-Za-z0-9])"
        r"|pul-(?<![A-Za-z0-9_-]pul-)[a-f0-9]{40}(?![A-Za-z0-9])"
        r"|sbp_(?<![A-Za-z0-9_]sbp_)[a-f0-9]{40}(?![A-Za-z0-9])"
        r"|ntn_(?<![A-Za-z0-9_]ntn_)[0-9]{11}[A-Za-z0-9]{35}(?![A-Za-z0-9])"
        r"|gsk_(?<![A-Za-z0-9_]gsk_)[A-Za-z0-9]{52}(?![A-Za-z0-9])"
        r"|xai-(?<![A-Za-z0-9_-]xai-)[A-Za-z0-9]{80}(?![A-Za-z0-9])"
        r"|r8_(?<![A-Za-z0-9_]r8_)[A-Za-z0-9]{37}(?![A-Za-z0-9])"
        r"|pplx-(?<![A-Za-z0-9_-]pplx-)[A-Za-z0-9]{48}(?![A-Za-z0-9])"
        r"|fo1_(?<![A-Za-z0-9_]fo1_)[\w-]{43}(?![A-Za-z0-9_-])"
        r"|pscale_(?<![A-Za-z0-9_]pscale_)(?:tkn|oauth|pw)_[\w=.-]{32,64}+(?![\w=.-])"
        r"|xkeysib-(?<![A-Za-z0-9_-]xkeysib-)[a-f0-9]{64}-[A-Za-z0-9]{16}(?![A-Za-z0-9])"
        r"|AKCp(?<![A-Za-z0-9]AKCp)[A-Za-z0-9]{69}(?![A-Za-z0-9])"
        r"|dt0c01\.(?<![A-Za-z0-9.]dt0c01\.)[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}(?![A-Za-z0-9])"
        r"|sha256~(?<![A-Za-z0-9]sha256~)[\w-]{43}(?![A-Za-z0-9_-])"
        r"|v1\.0-(?<![A-Za-z0-9.]v1\.0-)[a-f0-9]{24}-[a-f0-9]{146}(?![A-Za-z0-9])",
        needles=(
            *("NRAK-", "pul-", "sbp_", "ntn_", "gsk_", "xai-", "r8_", "pplx-", "fo1_"),
            *("pscale_", "xkeysib-", "AKCp", "dt0c01.", "sha256~", "v1.0-"),
        ),
    ),
    _rule("airtable-token", r"pat(?<![A-Za-z0-9]pat)[A-Za-z0-9]{14}\.[a-f0-9]{64}(?![A-Za-z0-9])"),
)

# -- a token glued to a word ------------------------------------------------------------
# Each pattern above keeps its token from starting or ending inside a word: a lookbehind
# after its prefix, a lookahead (or \b) at its end. Pasted text glues tokens to words all
# the same ("GH_TOKENghp_...", "token%3Dghp_...", "AKIA...secret"), so a token that opens
# with a literal prefix is scanned for with those guards taken out (GLUED, derived here
# from TOKENS: each format stays written once; None where there is no such pattern). A
# match the guarded pattern also makes at the same place is judged as always; any other
# must, past its prefix, read as a token on its own (glued_token): words glued to "sk-"
# ("task-1234-fix-the-login") are no key. Not derived: a discord bot token (its prefix is
# one letter: a longer word is no glued token), a JWT (its three parts are unbounded runs,
# which a scan without the guard would read again from every "eyJ" inside one), and the
# rules that mask a group (a value after "Bearer" and the like).
NOT_GLUED = frozenset({"discord-bot-token", "jwt"})
_GUARD_BEFORE = re.compile(r"\(\?<!\[[^\]]*\][^()\[\]]*\)")
_GUARD_AFTER = re.compile(r"(?:\(\?!\[[^\]]*\]\)|\\b)\Z")


def _alternatives(pattern: str) -> list[str]:
    """``pattern`` split at each "|" outside a group or a class."""
    parts: list[str] = []
    depth, start, i, in_class = 0, 0, 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    return [*parts, pattern[start:]]


def _unguarded(rule: Rule) -> re.Pattern[str] | None:
    """The rule's pattern with its word guards taken out, what follows each prefix in a
    group of its own (a match's last group); None when a glued match of it could not be
    told from a word."""
    kind, compiled, group, *_ = rule
    if group or kind in NOT_GLUED:
        return None
    alternatives = []
    for alternative in _alternatives(compiled.pattern):
        guard = _GUARD_BEFORE.search(alternative)
        if guard is None or guard.start() == 0:  # no prefix before its guard
            return None
        rest = _GUARD_AFTER.sub("", alternative[guard.end() :])
        alternatives.append(f"{alternative[: guard.start()]}({rest})")
    return re.compile("|".join(alternatives), compiled.flags)


GLUED: tuple[re.Pattern[str] | None, ...] = tuple(_unguarded(rule) for rule in TOKENS)
_LOWER_RUN = re.compile(r"[a-z]{3,}+")
_SEPARATORS = re.compile(r"[-_.]")
# A part made of words: lower case, Capitalized, CamelCase or capitals, maybe a number last.
_WORDY = re.compile(r"(?=.{3})(?:[A-Z]?[a-z]{2,}+|[A-Z]{2,}+(?![a-z]))+[0-9]*+")
_HEX_LETTERS = frozenset("abcdef")


def glued_token(body: str) -> bool:
    """What follows a glued token's prefix reads as a token on its own: letters and digits,
    not mostly words between separators ("JIRA-1234-fix-login", "MyBranch-Fix-2": branch
    names), and, past a short first part that is the rest of a prefix ("pat-", "live_"),
    either all three classes and mostly not words (CamelCase names are; kebab-case more
    often), or one case and no word (hex, base32: lower-case letters beyond a-f are one)."""
    if not any(c.isdigit() for c in body) or not any(c.isalpha() for c in body):
        return False
    parts = _SEPARATORS.split(body)
    words = [part for part in parts if _WORDY.fullmatch(part)]
    if len(words) > 1 and sum(map(len, words)) >= 0.3 * len(body):
        return False
    rest = body[len(parts[0]) + 1 :] if len(parts) > 1 and len(parts[0]) <= 7 else body
    if rest.lower() != rest != rest.upper():
        kebab = _SEPARATORS.search(rest) is not None
        return _all_classes(rest) and _word_share(rest) < (0.5 if kebab else 0.75)
    return not any(set(run) - _HEX_LETTERS for run in _LOWER_RUN.findall(rest))


FILLER_MIN = 8


def filler(span: str) -> bool:
    """One character makes up two thirds of it or more (``aaaa...``, ``ghp_xxxx...``,
    ``AKIAAAAA...``): a placeholder, never a generated secret."""
    if len(span) < FILLER_MIN:
        return False
    most = Counter(span).most_common(1)[0][1]
    return most >= FILLER_MIN and 3 * most >= 2 * len(span)


# -- a private key without its BEGIN line ------------------------------------------------
# Its base64 lines before an END line are its body, or, with no END line either, base64
# whose first bytes are a private key's DER: a SEQUENCE, then version 0 and an INTEGER or
# an AlgorithmIdentifier (PKCS#1 RSA, DSA, PKCS#8), or version 1 and an OCTET STRING or an
# AlgorithmIdentifier (SEC1 EC, RFC 5958); or OpenSSH's "openssh-key-v1". A certificate, a
# public key or a signature opens with a SEQUENCE inside the SEQUENCE (or an OID): never
# this. PEM lines are 64 characters (70 for OpenSSH, 76 for some tools); the last is shorter.
PEM_END = re.compile(r"-----END (?:[A-Z0-9]{1,32} ){0,4}PRIVATE KEY(?: BLOCK)?-----")
PEM_LINE = 40  # a body line before the last one is at least this long
_LINE_BREAK = r"(?:\r?\n|(?:\\r)?\\n)[ \t]*+"  # in the text, or escaped in a JSON string
# The next line of base64, and how long it is (group 1).
PEM_NEXT_LINE = re.compile(rf"{_LINE_BREAK}([A-Za-z0-9+/=]++)")
_LINE_ENDS = r"(?=[ \t]*+(?:\r?\n|(?:\\r)?\\n|[\"',]|\Z))"
# OpenSSH's format states no length up front: the lines that follow its first one are
# read as PEM lines, full ones and then a shorter last one (not a word: "thanks").
PEM_MORE_LINES = re.compile(
    rf"(?:{_LINE_BREAK}[A-Za-z0-9+/=]{{{PEM_LINE},}}+{_LINE_ENDS})*"
    rf"(?:{_LINE_BREAK}(?=[a-z]*+[A-Z0-9+/=])[A-Za-z0-9+/=]{{1,{PEM_LINE - 1}}}+{_LINE_ENDS})?"
)
OPENSSH_KEY = "b3BlbnNzaC1rZXktdjE"  # base64 of "openssh-key-v1"
DER_PRIVATE_KEY = re.compile(
    rb"\x30(?:[\x00-\x7f]|\x81.|\x82..|\x83...)\x02\x01(?:\x00[\x02\x30]|\x01[\x04\x30])",
    re.DOTALL,
)


def der_private_key_size(text: str, start: int) -> int | None:
    """How many base64 characters the private key whose DER starts at ``start`` takes
    (its outer SEQUENCE's length says); None when none starts there."""
    if not text.startswith("M", start):  # 0x30, a SEQUENCE, is where all of them start
        return None
    try:
        head = base64.b64decode(text[start : start + 24], validate=True)
    except (binascii.Error, ValueError):
        return None
    if DER_PRIVATE_KEY.match(head) is None:
        return None
    extra = head[1] - 0x80 if head[1] > 0x80 else 0  # a long form's bytes of length
    size = 2 + extra + (int.from_bytes(head[2 : 2 + extra], "big") if extra else head[1])
    return 4 * -(-size // 3)


# scheme://user:password@host -> the password is masked, the rest stays readable. The user
# may be empty (redis://:pw@host); the password runs to the last "@" before the path, so a
# password holding "@" is masked whole.
_SCHEME = r"(?i)(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}+"
URL_CREDENTIALS = re.compile(_SCHEME + r"://[^/\s:@?#]{0,256}+:([^/\s?#]{1,512})@")
# A password typed raw, with "#", "/", "?" or a blank in it (postgres://u:p#ss@h), stops
# URL_CREDENTIALS short of its "@". Where that fails, this reads it (after the "://") up
# to the first "@" that a host follows, on one line and outside quotes; redact.py then
# refuses what is a port and a path (host:8080/@vite), a path segment ("/@user") or prose.
URL_RAW_CREDENTIALS = re.compile(
    r"://[^\s/:@?#\[\]]{0,256}+:([^\n\r\"'`<>]{1,128}?)"
    r"@(?=[A-Za-z0-9][A-Za-z0-9.-]{0,252}+(?![A-Za-z0-9.@-]))"
)
URL_RAW_REACH = 3 + 256 + 1 + 128  # from the "://" to the farthest "@" it can read to
PORT_THEN_PATH = re.compile(r"[0-9]++[/?#\s]")
# A match can start only at the scheme before a "://" (at most URL_SCHEME_MAX characters
# long): searched for just before each, with endpos at the "://" (the lookbehind still
# sees the text before where the search starts).
URL_SCHEME = re.compile(_SCHEME + r"\Z")
URL_SCHEME_MAX = 32

# key = value / key: value / "key": "value" / --key=value, for a key holding a word that
# may name a credential (pass, secret, token, key, auth, ...; the caller decides). Only
# then is the value read, so a URL after "https:" cannot hide the "token=..." inside it.
KEYWORDS = ("pass", "pwd", "secret", "token", "key", "credential", "auth")
_KEY = rf"[A-Za-z0-9_.\-]{{0,48}}?(?i:{'|'.join(KEYWORDS)})[A-Za-z0-9_.\-]{{0,48}}+"
KEY_SEP = re.compile(
    rf"(?<![A-Za-z0-9_.\-])(?P<key>{_KEY})[\"']?(?P<sep>[ \t]*+(?::=|=>|:|=|%3[Dd])[ \t]*+)"
)
# A KEY_SEP match starts where a run of KEY_CHARS (its key's class) starts, at most
# KEY_PREFIX characters before a keyword, so redact.py tries it only there. Beyond ASCII,
# re's case-insensitive matching (simple case folding, a character at a time) takes these
# characters for a keyword's letters: İ and ı for i, ſ for s, the Kelvin sign for k.
KEY_CHARS = string.ascii_letters + string.digits + "_.-"
KEY_PREFIX = 48
KEYWORD_FOLDS = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))
VALUE = re.compile(
    r"\[REDACTED\]|\"[^\"\n]{0,1024}+\"|'[^'\n]{0,1024}+'|<[^>\n]{0,256}+>"
    r"|\$\{\{[^}\n]{0,256}+\}\}|\{\{[^}\n]{0,256}+\}\}|[^\s,;}\])]{1,1024}+"
)
# After a pair's value: an assignment, so that "value" was the next pair's key.
ASSIGNED_TO = re.compile(r"[ \t]*+:?=(?!=)")
# How far past a value its key's separator (blanks around ":" or "=") is looked for.
MAX_SEP_BLANKS = 64
# --password value, -token value: a command-line flag and its argument.
FLAG = re.compile(
    rf"(?P<key>-(?<![A-Za-z0-9_.\-]-)-?{_KEY})[ \t]++"
    r"(?P<value>\"[^\"\n]{1,256}+\"|'[^'\n]{1,256}+'|[^\s\"'`]{1,256}+)"
)
# <password>value</password> (Maven settings, .NET and Java configs).
XML_ELEMENT = re.compile(r"<([A-Za-z][A-Za-z0-9_.:-]{0,48}+)>([^<>\n]{1,256}+)</\1>")
# ~/.netrc: "machine host login me password value", on one line or several.
NETRC = re.compile(
    r"machine(?<![A-Za-z0-9_-]machine)[ \t\n]++\S{1,256}+[ \t\n]++"
    r"(?:login[ \t\n]++\S{1,256}+[ \t\n]++)?password[ \t\n]++(\S{1,256}+)"
)
# curl -u user:password, sshpass -p password.
USER_PASSWORD = re.compile(
    r"-(?<!\S-)(?:u|-user)(?:[ \t]++|=)[\"']?+[^\s:\"'@/]{1,64}+:([^\s\"'@]{1,256}+)"
)
SSHPASS = re.compile(r"sshpass(?<![A-Za-z0-9_-]sshpass)[ \t]++-p[ \t]*+[\"']?+([^\s\"']{1,256}+)")
# A bare AWS secret access key: 40 characters of base64 standing alone. Masked only when it
# looks random (looks_random) and an access key id, "aws" or "secret" is near it.
BARE_AWS_SECRET = re.compile(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
BASE64_CHARS = string.ascii_letters + string.digits + "/+="  # a match is a run of these
BARE_AWS_LENGTH = 40
AWS_CONTEXT = re.compile(r"(?i)aws|secret|(?-i:A[KS]IA[0-9A-Z]{16})")
AWS_CONTEXT_BEFORE = 240
AWS_CONTEXT_AFTER = 120

# fmt: off
KEY_WORD_SPLIT = re.compile(r"[_.\-]+")
CAMEL = re.compile(r"([a-z0-9])([A-Z])")
# Words that make a key name a credential ("token": not "tokens", max_tokens counts them).
CREDENTIAL_WORDS = frozenset({
    "password", "passwords", "passwd", "passphrase", "pwd", "secret", "secrets", "token",
    "credential", "credentials", "creds", "apikey", "accesskey", "secretkey", "privatekey",
    "authtoken", "accesstoken",
})
# One word spelling a credential with a prefix: PGPASSWORD, adminpassword, openaiapikey.
CREDENTIAL_SUFFIXES = ("password", "passwd", "passphrase", "secret", "apikey", "accesskey")
# "<word> key" names a credential for these words: api_key, accessKey, AccountKey, ...
KEY_QUALIFIERS = frozenset({
    "api", "access", "private", "secret", "signing", "encryption", "master", "auth", "account",
    "shared", "client", "consumer", "storage", "subscription", "primary", "secondary",
    "service", "hmac", "jwt", "app",
})
# Words that name a credential only when the value looks random (looks_random): "auth"
# is as often a mode (auth: oauth2) as a credential, and "key" alone mostly a hash or a name.
WEAK_WORDS = frozenset({"auth", "authorization"})
# A key ending in one of these names something about a credential, not the credential:
# token_url, password_file, secret_name, token_type, password_length, ...
ABOUT_WORDS = frozenset({
    "url", "uri", "endpoint", "path", "file", "dir", "name", "id", "ids", "type", "kind",
    "count", "length", "len", "size", "max", "min", "limit", "env", "var", "header", "field",
    "prefix", "suffix", "format", "policy", "ttl", "expiry", "expires", "expiration", "timeout",
    "usage", "enabled", "required", "provider", "location", "source", "label", "hint", "help",
    "description", "cmd", "command", "store", "manager", "rotation", "regex", "pattern",
    "version", "mode", "stdin", "method", "rate", "ratio", "threshold", "status", "state",
    "result", "at", "date", "time", "range", "mgr",
})
# "<word> token" names a position or a count, not a credential: progressToken, page_token.
CURSOR_WORDS = frozenset({
    "progress", "page", "next", "prev", "previous", "continuation", "pagination", "cursor",
    "cancellation", "sync", "resume", "input", "output", "prompt", "completion", "max", "min",
    "num", "total", "count", "start", "end", "last", "first",
})
# fmt: on
# Values that are code or placeholders, not secrets: masking them would only hurt notes.
NOT_SECRET_VALUE = re.compile(
    r"""(?ix)^["']?(?:
        |none|null|nil|true|false|on|off|yes|no|enabled|disabled|read|write|undefined|empty
        |required
        |optional|redacted|\[redacted\]
        |\**|x+|\.{3}|…|-+|•+|<[^>]*>|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$\{[^}]*\}?|%\(?[A-Za-z_]*\)?s?
        |%[A-Za-z_][A-Za-z0-9_]*%|\$\(.*\)|`.*`|[{(\[].*|(?:%\(?\w*\)?[sdr]|\{\w*\}|[:@/._-])+
        |\$?\{\{.*\}\}
        |[A-Za-z_][A-Za-z0-9_.]*\(.*|[A-Za-z_][A-Za-z0-9_.]*\[.*
        |os\.environ.*|process\.env.*|env\(.*|getenv.*
        |change_?me|changeit|password|passwd|pass|secret|token|example|sample|dummy|fake|placeholder
        |todo|tbd|fixme|hidden|masked|removed|omitted|your[_-]?[a-z_-]*
        |await|new|yield|async|lambda|function|typeof
        |str|string|int|number|bool|boolean|bytes|any|unknown|object|secretstr
    )["']?$"""
)
# self.password, settings.SECRET_KEY: an attribute, not a value.
DOTTED_NAME = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)+")
# fmt: off
RECEIVERS = frozenset({
    "self", "cls", "this", "config", "conf", "cfg", "settings", "args", "opts", "options",
    "params", "props", "env", "ctx", "context", "request", "req", "os", "process", "secrets",
    "vars", "data", "creds", "credentials", "app", "kwargs", "user", "account", "client",
    "auth", "session",
})
# fmt: on
IDENTIFIER = re.compile(r"[A-Za-z_]++")
ATTRIBUTE_OWNERS = ("self.", "this.", "cls.")
# After a value: an operator or a condition, so the value was an operand, not a literal.
EXPRESSION_GOES_ON = re.compile(r"[ \t]++(?:[-+*/%|&^]|if|else|or|and|for|in)[ \t]")
UPPER_WORD = re.compile(r"[A-Z][A-Z_]++")  # https://USER:TOKEN@host in documentation
PUNCTUATION_ONLY = re.compile(r"[^A-Za-z0-9]*")
# "token: see the runbook": after a colon, a short lower-case word followed by more words
# is prose. After "=" it is a value (secret=swordfish); alone it is one (password: hunter).
PLAIN_WORD = re.compile(r"[A-Za-z][a-z]{0,11}")
MORE_PROSE = re.compile(r"[ \t]+[A-Za-z]")
INTEGER = re.compile(r"[0-9]{1,9}")
NUMBER = re.compile(r"[0-9][0-9.,_]*+%?")
PATH_START = re.compile(r"(?:~|\.{1,2})?/")
# ~/.aws/credentials, /run/secrets/db: where a secret is kept, not the secret.
PATH = re.compile(r"(?:~|\.{1,2})?(?:/[\w.@+-]+)+/?")
FILE_NAME = re.compile(r"[\w-]++\.[a-z]{1,5}")
