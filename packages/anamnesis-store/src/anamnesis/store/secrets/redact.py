"""Secrets never reach a note: mask credential-shaped text before anything is written.

Notes sync to other machines and into a git remote, so every writer (session capture, the
MCP server, the CLI) runs text through :func:`redact_secrets`. Three kinds of rule, all in
``redact_rules.py``:

* tokens with a known prefix or shape (AWS, GitHub, GitLab, Slack, Stripe, SendGrid, Twilio,
  Azure, Google, ...: the families of gitleaks' rule set and detect-secrets' plugins), masked
  wherever they stand;
* ``key = value`` pairs (env, shell, YAML, JSON, TOML, XML, netrc, command-line flags) whose
  key names a credential: the value is masked, the key kept. Code and placeholders
  (``os.environ[...]``, ``self.password``, ``${VAR}``, ``changeme``, ``<password>``) are
  kept. A password needs no entropy to be one (``hunter2``), but words that only sometimes
  name a credential (``auth``, ``key`` alone) need a value that looks random: all three
  character classes, not made of words, Shannon entropy near that of random text;
* a bare 40-character AWS secret key, only when it looks random that way and an access key
  id, "aws" or "secret" stands near it.

Pasted text hides tokens from those rules in three ways, each read through: a token glued
to a word or a URL-encoded "=" (``GH_TOKENghp_...``, ``%3Dghp_...``: the token patterns
are scanned for again without their word guards, and what follows the prefix must then
read as a token on its own); a character that shows nothing inside it (every rule reads the
text without them, and a mask takes those inside the secret with it); a private key's body
without its BEGIN line (its lines before an END line, or base64 that opens as a private
key's DER does). A URL password typed raw (``postgres://u:p#ss@h``) is read up to the "@"
before its host.

Nothing is masked for looking random alone, so ULIDs, UUIDs, git SHAs, digests, integrity
hashes, base64 images, certificates, paths and prose pass through untouched; nor is a span
that one character makes up (``token: aaaa...``, ``ghp_xxxx...``): a placeholder.

A dependency instead? detect-secrets 1.5 (PyPI; default plugins and filters, each text
scanned as a markdown file), measured on tests/secrets_corpus.py on one machine in one run:
47 of 115 secrets found (ours: 115), 24 of 125 look-alikes flagged (digests, integrity
hashes, ``password = getpass()``; ours: 0), 4.1 s a MB against 0.32. The store may depend
only on PyYAML and python-ulid, and gitleaks is a Go binary; so the rules are ours, written
from those tools' published token formats.

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

The checks that follow a match read only the match, or a bounded window around it.

Most attempts are never made (on one machine a 4 KB note took 0.08 ms, where scanning it
with every pattern took 0.7; ``bench/suites/redact_bench.py`` measures it). A token pattern is not
scanned for when the text lacks a string, or a run of token characters, that each of its
matches holds. KEY_SEP, URL_CREDENTIALS and BARE_AWS_SECRET are tried only where a match
can start: at the run of key characters before a keyword, at the scheme before a "://", in
a run of 40 base64 characters or more. String search and ``bytes.translate`` find those
places in linear time, and each place is tried once, in order: a subset of the attempts
the scan would make, each the same attempt. A raw URL password is tried only where an "@"
is within its reach; a key body's lines are read once, forward from a run of 40 base64
characters or back from an END line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

from anamnesis.store.note.invisible import INVISIBLE, INVISIBLE_CHARS
from anamnesis.store.record import Record
from anamnesis.store.secrets import redact_rules as rules

if TYPE_CHECKING:
    from collections.abc import Iterator

MASK = "[REDACTED]"


class Finding(Record):
    """One secret found in a text: what kind, and where."""

    __slots__ = ("end", "kind", "start")

    def __init__(self, kind: str, start: int, end: int) -> None:
        self.kind = kind
        self.start = start
        self.end = end


def find_secrets(text: str) -> list[Finding]:
    """Every secret-shaped span in ``text``, in order (for reports and tests)."""
    if text.isascii() or (cuts := _invisible_cuts(text)) is None:
        return _find_visible(text)
    # The rules read the text without its invisible characters; a span found there is
    # widened back over the ones inside it, so that masking takes them with the secret.
    return [
        Finding(f.kind, _original(cuts, f.start), _original(cuts, f.end - 1) + 1)
        for f in _find_visible(INVISIBLE.sub("", text))
    ]


def _invisible_cuts(text: str) -> list[int] | None:
    """Where each invisible character was, as a position in the text without them (None
    when there is none): what :func:`_original` maps back with."""
    if not any(map(text.__contains__, INVISIBLE_CHARS)):
        return None
    return [m.start() - n for n, m in enumerate(INVISIBLE.finditer(text))]


def _original(cuts: list[int], at: int) -> int:
    """The position in the text of the character at ``at`` in the text without its
    invisible characters: each one removed at or before it shifts it by one."""
    return at + bisect_right(cuts, at)


def _find_visible(text: str) -> list[Finding]:
    found: list[Finding] = []
    lowered = text.lower()
    folded = _folded(text)
    long_run = _has_run(folded, _TOKEN_RUNS, rules.TOKEN_RUN)
    base64_runs = folded.translate(_BASE64_RUNS)
    for rule, glued in zip(rules.TOKENS, rules.GLUED, strict=True):
        kind, pattern, group, check, needles, in_lowered, long = rule
        if long and not long_run:
            continue
        if needles and not any(map((lowered if in_lowered else text).__contains__, needles)):
            continue
        if glued is None:
            for m in pattern.finditer(text):
                if check is None or check(m.group(group)):
                    found.append(Finding(kind, m.start(group), m.end(group)))
            continue
        # One scan finds both: a match the guarded pattern makes too is judged as ever.
        for m in glued.finditer(text):
            if (clean := pattern.match(text, m.start())) is not None:
                if check is None or check(clean.group()):
                    found.append(Finding(kind, clean.start(), clean.end()))
            elif rules.glued_token(m.group(m.lastindex or 0)) and (
                check is None or check(m.group())
            ):
                found.append(Finding(kind, m.start(), m.end()))
    found.extend(_url_passwords(text))
    found.extend(_pair_values(text, folded))
    found.extend(_flag_values(text))
    found.extend(_element_values(text))
    found.extend(_command_passwords(text))
    found.extend(_bare_aws_secrets(text, lowered, base64_runs))
    found.extend(_key_bodies(text, base64_runs))
    # A run of one character is a placeholder whatever names it (token: aaaa..., ghp_xxx...).
    kept = (f for f in found if not rules.filler(text[f.start : f.end]))
    return sorted(kept, key=lambda f: (f.start, -f.end))


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


def _folded(text: str) -> bytes:
    """``text`` in lower case as ASCII, a byte a character so that positions carry over:
    wherever KEY_SEP's case-insensitive keywords match, it spells them in lower case (the
    folds of KEYWORD_FOLDS included); other characters beyond ASCII become "?"."""
    if not text.isascii():
        for char, letter in rules.KEYWORD_FOLDS:
            if char in text:
                text = text.replace(char, letter)
    return text.encode("ascii", "replace").lower()


def _run_table(chars: str) -> bytes:
    """A ``bytes.translate`` table taking ``chars`` to "a" and every other byte to " "."""
    members = chars.encode("ascii")
    return bytes(0x61 if byte in members else 0x20 for byte in range(256))


# Both classes are ASCII and hold both cases, and folding only turns what would be "?" into
# letters: a run of them in the text is a run in the folded text (maybe a longer one).
_TOKEN_RUNS = _run_table(rules.TOKEN_CHARS)
_BASE64_RUNS = _run_table(rules.BASE64_CHARS)


def _has_run(folded: bytes, table: bytes, length: int) -> bool:
    return b"a" * length in folded.translate(table)


def _url_passwords(text: str) -> list[Finding]:
    """``scheme://user:password@host``: the password."""
    found: list[Finding] = []
    # As URL_CREDENTIALS.finditer would, but trying only the scheme before each "://" (the
    # scan tried every position: 100 µs a 4 KB note); pos keeps matches from overlapping.
    pos = 0
    at = text.find("://")
    at_sign = text.find("@")  # the next "@": a raw password is tried only with one near
    while at >= 0:
        start = max(pos, at - rules.URL_SCHEME_MAX)
        if (scheme := rules.URL_SCHEME.search(text, start, at)) is not None:
            m = rules.URL_CREDENTIALS.match(text, scheme.start())
            if 0 <= at_sign < at:
                at_sign = text.find("@", at)
            raw = m is None and at >= pos and 0 <= at_sign - at <= rules.URL_RAW_REACH
            if raw:
                m = rules.URL_RAW_CREDENTIALS.match(text, at)
            if m is not None:
                pos = m.end()
                password = m.group(1)
                refused = raw and _not_a_raw_password(password)
                if not refused and not _is_code_or_placeholder(password):
                    found.append(Finding("url-password", m.start(1), m.end(1)))
        at = text.find("://", at + 3)
    return found


def _not_a_raw_password(value: str) -> bool:
    """What URL_RAW_CREDENTIALS read is no password: a port and a path
    (``localhost:5173/@vite``), a path up to a segment that opens with "@" (``/@user``), a
    URL running into another, or prose (``https://example.com: mail me@...``)."""
    return (
        value != value.strip()
        or value.endswith("/")
        or "://" in value
        or rules.PORT_THEN_PATH.match(value) is not None
    )


def _keyword_positions(folded: bytes) -> list[int]:
    """Where each of KEY_SEP's keywords starts, in order (overlapping ones too)."""
    positions: list[int] = []
    for keyword in _KEYWORDS:
        at = folded.find(keyword)
        while at >= 0:
            positions.append(at)
            at = folded.find(keyword, at + 1)
    positions.sort()
    return positions


_KEYWORDS = tuple(keyword.encode("ascii") for keyword in rules.KEYWORDS)


def _pair_values(text: str, folded: bytes) -> list[Finding]:
    """The values of ``key = value`` pairs whose key names a credential."""
    found: list[Finding] = []
    pos = 0
    tried = -1
    # Searching KEY_SEP tries its lazy key prefix at every word (270 µs a 4 KB note: re
    # cannot skip ahead to a case-insensitive keyword). A match starts where the run of key
    # characters before a keyword starts (its lookbehind allows no other place), at most
    # KEY_PREFIX before it; so KEY_SEP is tried only there, each run once, in order, from
    # where the last pair ended, as the search would have found them.
    for keyword_at in _keyword_positions(folded):
        if keyword_at < pos:
            continue
        before = text[max(0, keyword_at - rules.KEY_PREFIX - 1) : keyword_at]
        start = keyword_at - len(before) + len(before.rstrip(rules.KEY_CHARS))
        if keyword_at - start > rules.KEY_PREFIX or start < pos or start == tried:
            continue
        tried = start
        if (pair := rules.KEY_SEP.match(text, start)) is None:
            continue
        pos = pair.end()
        claim = _credential_key(pair.group("key"))
        if claim is None:
            continue
        value_match = rules.VALUE.match(text, pos)
        if value_match is None:
            continue
        if _is_next_key(text, value_match):
            pos = value_match.start()  # read it as the key it is
            continue
        pos = value_match.end()  # the value, secret or not, is never read as a key
        value = value_match.group()
        if len(value) > 1 and value[-1] in "\"'" and value[-1] not in value[:-1]:
            value = value[:-1]  # "...;AccountKey=abc": the quote closes a string around the pair
        key, sep = pair.group("key"), pair.group("sep")
        if "=" in sep and _is_variable(key, value, text, pos):
            continue
        if _is_secret_value(value, claim, sep, text, pos):
            found.append(_unquoted("key-value", value, value_match.start()))
    return found


def _is_next_key(text: str, value: re.Match[str]) -> bool:
    """What stands as a pair's value is the key of the next pair: a variable being
    assigned (``password: $env:PGPASSWORD = "..."``), or a credential key whose separator
    ends the value (``password:  DB_PASS: "..."``, ``password: {"credentials": "..."}``).
    Read as a value it would be masked and the real secret after it never read. A value
    with a separator inside it (``password: a=b``) stays a value: masking it whole is the
    safe side."""
    if rules.ASSIGNED_TO.match(text, value.end()) is not None:
        return True
    # A key may open the value or follow punctuation in it ('{"credentials":'); it counts
    # when its separator reaches the value's end. Bounded: the value is at most 1 KB.
    pair = rules.KEY_SEP.search(text, value.start(), value.end() + rules.MAX_SEP_BLANKS)
    return (
        pair is not None
        and pair.start() < value.end() <= pair.end("sep")
        and _credential_key(pair.group("key")) is not None
    )


def _is_variable(key: str, value: str, text: str, end: int) -> bool:
    """In code, a bare name after "=" is a variable: ``pwd=pwd``, ``self.token = nextchar``,
    ``Token = Ignore + Plain``. A name with a digit (``password = hunter2``) is a value."""
    if not rules.IDENTIFIER.fullmatch(value):
        return False
    if value.lower() == key.rsplit(".", 1)[-1].lower() or key.startswith(rules.ATTRIBUTE_OWNERS):
        return True
    return rules.EXPRESSION_GOES_ON.match(text, end) is not None


def _flag_values(text: str) -> list[Finding]:
    """``--password value``: the argument of a flag that names a credential."""
    found: list[Finding] = []
    for m in rules.FLAG.finditer(text):
        claim = _credential_key(m.group("key").lstrip("-"))
        if claim is not None and _is_flag_secret(m.group("value"), claim):
            found.append(_unquoted("flag-value", m.group("value"), m.start("value")))
    return found


def _element_values(text: str) -> list[Finding]:
    """``<password>value</password>``: an element whose name names a credential."""
    found: list[Finding] = []
    for m in rules.XML_ELEMENT.finditer(text):
        claim = _credential_key(m.group(1))
        if claim is not None and _is_secret_value(m.group(2), claim, "=", text, m.end(2)):
            found.append(Finding("xml-value", m.start(2), m.end(2)))
    return found


def _command_passwords(text: str) -> list[Finding]:
    """``machine h login u password p`` (netrc), ``curl -u user:p``, ``sshpass -p p``."""
    found: list[Finding] = []
    for m in rules.NETRC.finditer(text):
        if not _is_code_or_placeholder(m.group(1)):
            found.append(Finding("netrc-password", m.start(1), m.end(1)))
    for m in rules.SSHPASS.finditer(text):
        if not _is_code_or_placeholder(m.group(1)):
            found.append(Finding("command-password", m.start(1), m.end(1)))
    for m in rules.USER_PASSWORD.finditer(text):
        # docker -u 1000:1000 is a uid and gid; curl -u me:$TOKEN a reference.
        value = m.group(1)
        secret = rules.random_looking(value) and not rules.NUMBER.fullmatch(value)
        if secret and not _is_code_or_placeholder(value):
            found.append(Finding("command-password", m.start(1), m.end(1)))
    return found


def _bare_aws_secrets(text: str, lowered: str, runs: bytes) -> list[Finding]:
    """40 random base64 characters near an access key id, "aws" or "secret" (``runs``:
    the text's base64 characters as "a", the rest as " ")."""
    found: list[Finding] = []
    run_at = runs.find(b"a" * rules.BARE_AWS_LENGTH)
    if run_at < 0 or not any(word in lowered for word in ("aws", "secret", "akia", "asia")):
        return found  # no run that long, or no company anywhere
    # A match is a whole run of base64 characters, so only long runs are scanned, each on
    # its own: what bounds a run is no base64 character, which the lookarounds accept as
    # they do the ends of the scanned range.
    while run_at >= 0:
        run_end = runs.find(b" ", run_at)
        run_end = len(runs) if run_end < 0 else run_end
        for m in rules.BARE_AWS_SECRET.finditer(text, run_at, run_end):
            if not rules.looks_random(m.group()):
                continue
            start, end = m.span()
            near = rules.AWS_CONTEXT.search(text, max(0, start - rules.AWS_CONTEXT_BEFORE), start)
            if near or rules.AWS_CONTEXT.search(text, end, end + rules.AWS_CONTEXT_AFTER):
                found.append(Finding("aws-secret-key", start, end))
        run_at = runs.find(b"a" * rules.BARE_AWS_LENGTH, run_end)
    return found


def _key_bodies(text: str, runs: bytes) -> list[Finding]:
    """Private keys pasted without their BEGIN line: the base64 lines before an END line,
    and base64 lines whose first bytes are a private key's (see redact_rules)."""
    found: list[Finding] = []
    if "PRIVATE KEY-----" in text:
        for end_line in rules.PEM_END.finditer(text):
            start = _body_before(text, runs, end_line.start())
            if start < end_line.start():
                found.append(Finding("private-key", start, end_line.end()))
    at = runs.find(_PEM_LINE_RUN)
    while at >= 0:
        run_end = runs.find(b" ", at)
        run_end = len(runs) if run_end < 0 else run_end
        start = at + 1 if _escaped_n(text, at) else at
        end = None
        if text.startswith(rules.OPENSSH_KEY, start):
            more = rules.PEM_MORE_LINES.match(text, run_end)  # matches, if only nothing
            end = run_end if more is None else more.end()
        elif (size := rules.der_private_key_size(text, start)) is not None:
            end = _base64_lines_end(text, run_end, size - (run_end - start))
        if end is not None:
            found.append(Finding("private-key", start, end))
            run_end = end
        at = runs.find(_PEM_LINE_RUN, run_end)
    return found


def _base64_lines_end(text: str, at: int, wanted: int) -> int:
    """Where the lines of base64 after ``at`` hold ``wanted`` more characters (or stop)."""
    while wanted > 0 and (line := rules.PEM_NEXT_LINE.match(text, at)) is not None:
        wanted -= len(line.group(1))
        at = line.end()
    return at


_PEM_LINE_RUN = b"a" * rules.PEM_LINE


def _body_before(text: str, runs: bytes, end: int) -> int:
    """Where the base64 lines just before ``end`` (an END line) start: the line next to it
    whatever its length, full lines before that; ``end`` when there is none. Read back a
    line at a time, each line once."""
    start = end
    while True:
        line_end = _line_break_before(text, start)
        if line_end is None:
            if start < end:
                return start
            line_end = end  # the END line glued to the body's last line
        while line_end > 0 and text[line_end - 1] in " \t":
            line_end -= 1
        line_start = runs.rfind(b" ", 0, line_end) + 1
        if line_start < line_end and _escaped_n(text, line_start):
            line_start += 1  # the "n" of an escaped line break before it
        length = line_end - line_start
        if length == 0 or (start < end and length < rules.PEM_LINE):
            return start
        if _line_break_before(text, line_start) is None and line_start > 0:
            # Text before it on its line ("key: MII..."): a long run is body, and the last.
            return line_start if length >= rules.PEM_LINE else start
        start = line_start


def _line_break_before(text: str, at: int) -> int | None:
    """Where the line break that ends just before ``at`` (indentation aside) starts: a
    newline, or one escaped in a JSON string; None when there is none."""
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    for brk in ("\r\n", "\n", "\\r\\n", "\\n"):
        if text.endswith(brk, 0, at):
            return at - len(brk)
    return None


def _escaped_n(text: str, at: int) -> bool:
    """The "n" at ``at`` is the end of an escaped line break (``\\n``), not base64."""
    return text.startswith("n", at) and at > 0 and text[at - 1] == "\\"


def _unquoted(kind: str, value: str, start: int) -> Finding:
    """The value's span, inside its quotes if it has them: the text stays valid code."""
    if _quoted(value):
        return Finding(kind, start + 1, start + len(value) - 1)
    return Finding(kind, start, start + len(value))


def _quoted(value: str) -> bool:
    return len(value) > 1 and value[0] in "\"'" and value[-1] == value[0]


@lru_cache(maxsize=1024)  # the same few keys recur through a transcript
def _credential_key(key: str) -> str | None:
    """What credential a key names: "token", "pwd" (alone, it may be a folder), "pass"
    (first_pass: done is no password), "weak" (auth, key alone: only a random-looking
    value counts), "about-secret" (a credential word, then others: secret_key_base) or
    "secret" (the strongest claim); None when it names none."""
    words = [w for w in rules.KEY_WORD_SPLIT.split(rules.CAMEL.sub(r"\1_\2", key).lower()) if w]
    if not words or words[-1] in rules.ABOUT_WORDS:
        return None
    named = {w for w in words if w in rules.CREDENTIAL_WORDS}
    named |= {"secret" for w in words if w.endswith(rules.CREDENTIAL_SUFFIXES)}
    named |= {"token" for w in words if w.endswith("token")}  # csrftoken, authtoken
    named |= {
        "apikey"
        for before, word in pairwise(words)
        if word == "key" and before in rules.KEY_QUALIFIERS
    }
    if named == {"token"}:
        cursor = any(b in rules.CURSOR_WORDS for b, w in pairwise(words) if w.endswith("token"))
        return None if cursor else "token"
    if named == {"pwd"}:
        return "pwd"
    if named:
        # password_hash_rounds = 12: a number under a key that only starts with a credential
        last = words[-1]
        names_last = last in rules.CREDENTIAL_WORDS or last.endswith(
            (*rules.CREDENTIAL_SUFFIXES, "token")
        )
        names_last |= last == "key" and len(words) > 1 and words[-2] in rules.KEY_QUALIFIERS
        return "secret" if names_last else "about-secret"
    if words[-1] == "pass":  # DB_PASS, smtp_pass; not GetPassWarning
        return "pass"
    if words == ["key"] or any(w in rules.WEAK_WORDS for w in words):
        return "weak"
    return None


def _is_code_or_placeholder(value: str) -> bool:
    """``None``, ``${VAR}``, ``changeme``, ``getpass()``, ``self.password``, ``db_password``:
    what a value is called or where it comes from, not the value."""
    if rules.NOT_SECRET_VALUE.match(value):
        return True
    inner = value[1:-1] if _quoted(value) else value
    if rules.DOTTED_NAME.fullmatch(inner):
        parts = inner.split(".")
        return parts[0].lower() in rules.RECEIVERS or any(_credential_key(p) for p in parts)
    if rules.UPPER_WORD.fullmatch(inner):  # token=EOF, password=DEFAULT_PASSWORD: a constant
        return True
    named = rules.IDENTIFIER.fullmatch(inner) and (
        "_" in inner.strip("_") or rules.CAMEL.search(inner)
    )
    return bool(named) and _credential_key(inner) is not None


def _is_secret_value(value: str, claim: str, sep: str, text: str, end: int) -> bool:
    if MASK in value or _is_code_or_placeholder(value):
        return False
    if len(value) <= 3 and rules.PUNCTUATION_ONLY.fullmatch(value):  # "if password == x"
        return False
    quoted = _quoted(value)
    inner = value[1:-1] if quoted else value
    if rules.PATH.fullmatch(inner):  # ~/.aws/credentials: where a secret is kept
        return False
    if claim == "weak":
        return rules.looks_random(inner) or (len(inner) >= 8 and rules.basic_credentials(inner))
    if claim == "pass":  # quoted, or with a digit, a symbol or a capital inside; one word
        if rules.NUMBER.fullmatch(inner) or any(c.isspace() for c in inner):
            return False
        return quoted or rules.random_looking(inner[1:])
    if quoted:
        return True
    if ":" in sep and rules.PLAIN_WORD.fullmatch(value) and rules.MORE_PROSE.match(text, end):
        return False
    if claim in ("token", "about-secret") and rules.INTEGER.fullmatch(value):  # max_token=4096
        return False
    return not (claim == "pwd" and rules.PATH_START.match(value))  # pwd: /home/me/src is a folder


def _is_flag_secret(value: str, claim: str) -> bool:
    """A flag's argument is a secret when it looks like one: ``--password hunter2``, not
    ``--token flag`` in prose, ``--secret id=x,src=f`` (a spec) or ``--key my.pem``."""
    if MASK in value or _is_code_or_placeholder(value):
        return False
    inner = value[1:-1] if _quoted(value) else value
    if claim == "weak":
        return rules.looks_random(inner)
    if _quoted(value):
        return True
    if "=" in inner.rstrip("=") or rules.PATH.fullmatch(inner) or rules.FILE_NAME.fullmatch(inner):
        return False
    if rules.NUMBER.fullmatch(inner):
        return False
    return any(c.isdigit() for c in inner) or inner.lower() != inner != inner.upper()
