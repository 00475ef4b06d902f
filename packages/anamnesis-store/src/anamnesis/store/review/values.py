"""The values a note states, each with its kind and what it belongs to.

A value is something two notes can disagree on: a number with its unit, a version, a
port, a path, a flag or setting, a command, a name, a URL. Each carries a ``slot``: what
must be the same for two values to be about the same thing (a setting's or flag's key, a
version's tool, a number's unit); a value without one (a port, a path, a URL, a command, a
name) is matched to the other note's values by the words of its clause
(:mod:`.compare`). Values are found clause by clause (:mod:`.text`), the most specific
patterns first; a span a pattern took is not read again by a later one.
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.record import Record
from anamnesis.store.review.text import (
    GENERIC,
    Clause,
    content_stems,
    number_word,
    stem,
    words,
)

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

KINDS: Final = ("number", "version", "port", "path", "flag", "command", "name", "url")


class Value(Record):
    """One value a note states.

    ``norm``: what is compared (case and spacing folded; a duration in seconds, a size in
    bytes); ``shown``: as written. ``slot``: what it is a value of (a key, a tool, a
    unit), "" when only its clause says. ``low``/``high``: a version range's bounds
    (``>= 3.11``), or None. ``clause``: the index of its clause; ``stems``: that clause's
    words, the value's own left out; ``near``: the words just before it.
    """

    __slots__ = (
        "kind", "norm", "shown", "slot", "keyed", "low", "high", "clause", "stems", "near",
    )  # fmt: skip

    def __init__(
        self,
        kind: str,
        norm: str,
        shown: str,
        slot: str = "",
        keyed: bool = False,
        low: tuple[int, ...] | None = None,
        high: tuple[int, ...] | None = None,
        clause: int = 0,
        stems: frozenset[str] = frozenset(),
        near: tuple[str, ...] = (),
    ) -> None:
        self.kind = kind
        self.norm = norm
        self.shown = shown
        self.slot = slot
        self.keyed = keyed
        self.low = low
        self.high = high
        self.clause = clause
        self.stems = stems
        self.near = near


# -- patterns ----------------------------------------------------------------------------

_CODE = re.compile(r"`([^`\n]{1,300})`")
_URL = re.compile(r"\bhttps?://[^\s`'\"<>()\[\]{}]+")
_HOST_PORT = re.compile(
    r"(?<![\w./:-])((?:localhost|[A-Za-z][\w-]*(?:\.[\w-]+)*)):(\d{2,5})(?![\d.:])"
)
_BARE_PORT = re.compile(r"(?<![\w:])(?::(\d{2,5})|(\d{2,5}):(\d{2,5}))(?![\w:.])")
# name:tag (a container image, a pinned package): the tag starts with a digit.
_IMAGE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*([A-Za-z][\w.-]*)):(v?\d[\w.-]*|latest)\b")
_SETTING = re.compile(
    r"(?<![\w.-])([A-Za-z_][\w.-]*[A-Za-z0-9_])\s*(?:=|:=)\s*"
    r"(\"[^\"\n]{0,80}\"|'[^'\n]{0,80}'|[^\s,;`)\]}]+)"
)
_SET_TO = re.compile(r"\bset\s+([A-Za-z_][\w.-]*)\s+to\s+([^\s,;`)]+)", re.IGNORECASE)
_FLAG = re.compile(r"(?<![\w-])(--?[A-Za-z][\w-]*)(?:=([^\s,;`)]+))?")
_PATH = re.compile(
    r"(?<![\w/.:~@-])((?:~|\.{1,2})?/?[\w.@<>*-]+(?:/[\w.@<>*-]*)+|\.[\w.-]*[A-Za-z][\w.-]*"
    r"|[\w-]+(?:\.[\w-]+)*\.(?:json|ya?ml|toml|txt|env|md|py|js|ts|tsx|jsx|css|sql|lock"
    r"|mod|sum|cfg|ini|conf|sh|xml|gradle|properties|dockerfile|lockb))(?![\w/])"
)
_RANGE_OP = r"(?:\^|~>?|>=|<=|==|!=|<|>)"
_VERSION = re.compile(
    rf"(?<![\w.$-])({_RANGE_OP}\s?)?(v?\d+(?:\.\d+){{1,3}}(?:-[A-Za-z][\w.]*)?|v\d+)(\+)?(?![\w.])"
)
_CARET = re.compile(rf"(?<![\w.])({_RANGE_OP})\s?(\d+)(?![\w.])")
_NUMBER = re.compile(r"(?<![\w.$/-])(\$)?(\d+(?:[.,]\d+)?)(%|[A-Za-z]{1,3}\b)?(?![\w./-]|:\S|\.\d)")
_ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")
_CAPITALISED = re.compile(r"\b[A-Z][\w-]*[A-Za-z0-9](?:\s+[A-Z][\w-]*[A-Za-z0-9])*\b")
_CAMEL = re.compile(r"\b[a-z]+[A-Z][A-Za-z0-9]*\b")
_RANGE_AFTER = re.compile(
    r"^\s*(?:\+|(?:or|and)\s+(?:newer|later|above|higher|up|greater)\b)", re.IGNORECASE
)
_AT_LEAST = re.compile(r"(?:at\s+least|minimum(?:\s+of)?|>=)\s*$", re.IGNORECASE)
_BELOW = re.compile(r"(?:below|under|before|<)\s*$", re.IGNORECASE)
_FOLLOWING_WORDS = re.compile(r"^[\s-]*([A-Za-z][\w-]*)(?:\s+([A-Za-z][\w-]*))?")
_PER = re.compile(r"^\s*(?:[A-Za-z]+\s*)?(?:per\b|/|an?\b|each\b)\s*([A-Za-z]+)", re.IGNORECASE)

# Units a number is measured in, folded to one spelling and a scale: durations to
# seconds, sizes to bytes. Two numbers compare only in the same unit.
_DURATIONS: Final = {
    "ms": ("s", 0.001), "millisecond": ("s", 0.001),
    "s": ("s", 1), "sec": ("s", 1), "second": ("s", 1),
    "m": ("s", 60), "min": ("s", 60), "minute": ("s", 60),
    "h": ("s", 3600), "hr": ("s", 3600), "hour": ("s", 3600),
    "d": ("s", 86400), "day": ("s", 86400),
    "week": ("s", 604800), "wk": ("s", 604800),
}  # fmt: skip
_SIZES: Final = {
    "b": ("byte", 1), "byte": ("byte", 1), "kb": ("byte", 1e3), "kib": ("byte", 1024),
    "mb": ("byte", 1e6), "mib": ("byte", 1024**2), "gb": ("byte", 1e9),
    "gib": ("byte", 1024**3), "tb": ("byte", 1e12), "tib": ("byte", 1024**4),
}  # fmt: skip
# Words that count the same thing: "retried up to 5 times" and "3 attempts" agree in unit.
_SAME_UNIT: Final = {
    "time": "attempt", "attempt": "attempt", "try": "attempt", "retry": "attempt",
    "tries": "attempt", "retri": "attempt", "message": "message", "email": "message",
    "mail": "message", "request": "request", "req": "request", "call": "request",
    "percent": "%",
}  # fmt: skip
# Months and other words after a number that make it a date, not a quantity.
_NOT_UNITS: Final = frozenset(
    """
    jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june
    july august september october november december am pm utc gmt st nd rd th x
    """.split()  # noqa: SIM905 - a word list reads best as words
)
_PORT_WORDS: Final = frozenset(
    {"port", "listen", "publish", "expos", "expose", "bind", "localhost", "sshd", "serv", "serve"}
)
# Words that start a command in backticks when the span holds more than one word.
_COMMAND_HEAD = re.compile(r"^[a-z][a-z0-9._+-]*$")
_SQL_WORDS: Final = frozenset({"select", "update", "insert", "delete", "create", "alter"})


class _Spans:
    """The parts of a clause already read as a value, so no later pattern reads them."""

    __slots__ = ("taken",)

    def __init__(self) -> None:
        self.taken: list[tuple[int, int]] = []

    def free(self, start: int, end: int) -> bool:
        return all(end <= a or start >= b for a, b in self.taken)

    def take(self, start: int, end: int) -> None:
        self.taken.append((start, end))


def about_ports(clauses: list[Clause]) -> bool:
    """Whether a note is about a port ("Bastion SSH port"): then it states its ports as
    bare numbers too ("sshd listens on 2222")."""
    return any(clause.stems & _PORT_WORDS for clause in clauses)


def extract(clauses: list[Clause]) -> list[Value]:
    """Every value the clauses state, in order of appearance."""
    ports = about_ports(clauses)
    return [value for clause in clauses for value in clause_values(clause, ports)]


def clause_values(clause: Clause, ports: bool) -> list[Value]:
    """The values one clause states (``ports``: :func:`about_ports` of its note)."""
    return [value.replace(clause=clause.index) for value in _values_of(clause.text, ports)]


@lru_cache(maxsize=8192)
def _values_of(text: str, ports: bool) -> tuple[Value, ...]:
    """The values a clause's text states (clause index 0), each with its clause's words
    and the words just before it. Kept per text: notes repeat their sentences."""
    spans = _Spans()
    found: list[tuple[int, Value]] = []
    if "`" in text:
        for code in _CODE.finditer(text):
            spans.take(code.start(), code.end())
            inner = code.group(1).strip()
            found.extend(_code_values(inner, text, code.start(), 0))
    found.extend(_plain_values(text, spans, 0, ports))
    if not found:
        return ()
    found.sort(key=lambda item: item[0])
    stems = frozenset(content_stems(text))
    positions = [(match.start(), _stems_of(match.group(0))) for match in _WORD_AT.finditer(text)]
    out = []
    for position, value in found:
        own = frozenset(content_stems(value.shown))
        before = [s for at, word in positions if at < position for s in word if s not in own]
        out.append(value.replace(stems=stems - own, near=tuple(before[-3:])))
    return tuple(out)


_WORD_AT = re.compile(r"[A-Za-z][A-Za-z0-9_'’-]*[A-Za-z0-9]|[A-Za-z]")


def _stems_of(word: str) -> list[str]:
    return content_stems(word)


# -- code in backticks -------------------------------------------------------------------


def _code_values(inner: str, text: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    """The values a span in backticks holds: a URL, a path, a setting, an image's tag, a
    version, a flag, a command (with its flags, ports and versions), or a name."""
    parts = inner.split()
    if _URL.fullmatch(inner):
        yield start, _url_value(inner, clause)
        yield from _url_port(inner, start, clause)
        return
    setting = _SETTING.fullmatch(inner)
    if setting:
        yield start, _setting_value(setting.group(1), setting.group(2), clause)
        return
    if len(parts) == 1:
        yield from _one_token_code(inner, text, start, clause)
        return
    if len(parts) == 2 and _VERSION.fullmatch(parts[1]) and _COMMAND_HEAD.match(parts[0]):
        # `go 1.21`: a directive naming a tool's version, not a command to run
        version = _version_value(parts[1], clause, slot=parts[0].lower())
        if version is not None:
            yield start, version
            return
    head = parts[0]
    if _COMMAND_HEAD.match(head) and head.lower() not in _SQL_WORDS:
        yield start, Value("command", " ".join(parts).lower(), inner, slot="", clause=clause)
        tool = head.lower()
        if len(parts) > 1 and re.fullmatch(r"[a-z][a-z0-9-]*", parts[1]):
            tool = f"{tool} {parts[1].lower()}"
        yield from _command_parts(parts, tool, start, clause)
        return
    # Code that is neither one token nor a command (`SameSite=Lax; Secure`, SQL): the
    # settings in it, else nothing (its words still count as its clause's subject).
    for match in _SETTING.finditer(inner):
        yield start + match.start(), _setting_value(match.group(1), match.group(2), clause)


def _one_token_code(inner: str, text: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    if _HOST_PORT.fullmatch(inner) and not _IMAGE.fullmatch(inner):
        match = _HOST_PORT.fullmatch(inner)
        assert match is not None
        yield start, Value("port", match.group(2), f":{match.group(2)}", clause=clause)
        return
    image = _IMAGE.fullmatch(inner)
    if image:
        version = _version_value(image.group(3), clause, slot=image.group(2).lower())
        if version is not None:
            yield start, version.replace(shown=inner)
            return
    if inner.startswith(":") and inner[1:].isalnum():
        if inner[1:].isdigit():
            yield start, Value("port", inner[1:], inner, clause=clause)
        else:
            yield start, Value("version", inner[1:].lower(), inner, slot="tag", clause=clause)
        return
    if _FLAG.fullmatch(inner) and inner.startswith("-"):
        flag = _FLAG.fullmatch(inner)
        assert flag is not None
        yield start, _flag_value(flag.group(1), flag.group(2), _tool_run(text[:start]), clause)
        return
    version = _version_value(inner, clause, slot=_tool_before(text[:start]))
    if version is not None and _VERSION.fullmatch(inner):
        yield start, version
        return
    if _PATH.fullmatch(inner) and ("/" in inner or "." in inner):
        yield start, Value("path", _path_norm(inner), inner, clause=clause)
        return
    if re.fullmatch(r"[\w.@/-]+", inner) and not inner.isdigit():
        yield start, Value("name", inner.lower(), inner, clause=clause)


def _command_parts(
    parts: list[str], tool: str, start: int, clause: int
) -> Iterator[tuple[int, Value]]:
    """A command's flags (keyed by the command), ports and pinned versions."""
    i = 1
    while i < len(parts):
        part = parts[i]
        flag = _FLAG.fullmatch(part)
        if flag and part.startswith("-") and not part.startswith("-" * 3):
            value = flag.group(2)
            if value is None and len(part) == 2 and i + 1 < len(parts):
                following = parts[i + 1]
                if not following.startswith("-") and re.fullmatch(r"[\w.:-]+", following):
                    value = following  # `-n auto`, `-p 2222`
                    i += 1
            yield start, _flag_value(flag.group(1), value, tool, clause)
        elif re.fullmatch(r"\d{2,5}:\d{2,5}", part):
            yield start, Value("port", part.split(":")[1], part, clause=clause)
        elif _HOST_PORT.match(part) and not _IMAGE.match(part):
            port = _HOST_PORT.match(part)
            assert port is not None
            yield start, Value("port", port.group(2), port.group(0), clause=clause)
        elif "@" in part and _VERSION.search(part.rsplit("@", 1)[1]):
            name, pinned = part.rsplit("@", 1)
            version = _version_value(pinned, clause, slot=name.rsplit("/", 1)[-1].lower())
            if version is not None:
                yield start, version
        i += 1


# -- plain text --------------------------------------------------------------------------


def _plain_values(
    text: str, spans: _Spans, clause: int, about_ports: bool
) -> Iterator[tuple[int, Value]]:
    """The values outside code, most specific patterns first; a pattern runs only on a
    text holding the character it needs."""
    digits = _DIGIT.search(text) is not None
    if "://" in text:
        yield from _urls(text, spans, clause)
    if ":" in text:
        yield from _colon_values(text, spans, clause)
    if "=" in text or "set " in text.lower():
        yield from _settings(text, spans, clause)
    if "-" in text:
        yield from _flags(text, spans, clause)
    if "/" in text or "." in text:
        yield from _paths(text, spans, clause)
    if digits:
        yield from _versions(text, spans, clause)
        yield from _numbers(text, spans, clause, about_ports)
    yield from _number_words(text, spans, clause)
    if _UPPER.search(text, 1):
        yield from _names(text, spans, clause)


_DIGIT = re.compile(r"\d")
_UPPER = re.compile(r"[A-Z]")


def _urls(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _URL.finditer(text):
        if spans.free(*match.span()):
            url = match.group(0).rstrip(".,:;!?")
            spans.take(match.start(), match.start() + len(url))
            yield match.start(), _url_value(url, clause)
            yield from _url_port(url, match.start(), clause)


def _colon_values(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _IMAGE.finditer(text):
        if spans.free(*match.span()) and not match.group(3).isdigit():
            version = _version_value(match.group(3), clause, slot=match.group(2).lower())
            if version is not None:
                spans.take(*match.span())
                yield match.start(), version.replace(shown=match.group(0))
    for match in _HOST_PORT.finditer(text):
        if spans.free(*match.span()):
            spans.take(*match.span())
            yield match.start(), Value("port", match.group(2), match.group(0), clause=clause)
    for match in _BARE_PORT.finditer(text):
        if spans.free(*match.span()):
            if match.group(2) and max(len(match.group(2)), len(match.group(3))) <= 2:
                continue  # 02:00, a clock time
            spans.take(*match.span())
            port = match.group(1) or match.group(3)
            yield match.start(), Value("port", port, match.group(0), clause=clause)


def _flags(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _FLAG.finditer(text):
        if match.group(0).startswith("-") and spans.free(*match.span()):
            if len(match.group(1)) < 3 or match.group(1).count("-") > 3:
                continue  # a lone "-x" outside code is too often a dash or a hyphen
            spans.take(*match.span())
            tool = _tool_run(text[: match.start()])
            yield match.start(), _flag_value(match.group(1), match.group(2), tool, clause)


def _paths(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _PATH.finditer(text):
        shown = match.group(1).rstrip(".")
        if spans.free(*match.span()) and _looks_like_path(shown):
            spans.take(match.start(), match.start() + len(shown))
            yield match.start(), Value("path", _path_norm(shown), shown, clause=clause)


def _settings(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for pattern in (_SETTING, _SET_TO):
        for match in pattern.finditer(text):
            if not spans.free(*match.span()):
                continue
            key, raw = match.group(1), match.group(2)
            if key.lower() in GENERIC or not any(c.isalpha() for c in key):
                continue
            spans.take(*match.span())
            yield match.start(), _setting_value(key, raw, clause)


def _versions(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _VERSION.finditer(text):
        if not spans.free(*match.span()):
            continue
        after = text[match.end() :]
        unit = _FOLLOWING_WORDS.match(after)
        if unit and _unit_of(unit.group(1)) is not None and not match.group(1):
            continue  # "2.5 seconds": a quantity, read as a number below
        operator = (match.group(1) or "").strip()
        if match.group(3) or _RANGE_AFTER.match(after) or _AT_LEAST.search(text[: match.start()]):
            operator = operator or ">="
        value = _version_value(
            operator + match.group(2), clause, slot=_tool_before(text[: match.start()])
        )
        if value is not None:
            spans.take(*match.span())
            yield match.start(), value.replace(shown=match.group(0).strip())
    for match in _CARET.finditer(text):
        if spans.free(*match.span()):
            value = _version_value(
                match.group(1) + match.group(2),
                clause,
                slot=_tool_before(text[: match.start()]),
            )
            if value is not None:
                spans.take(*match.span())
                yield match.start(), value.replace(shown=match.group(0))
    # A whole number right after a tool's name: "Node 18", "Postgres 14 or newer".
    for match in re.finditer(r"\b([A-Z][A-Za-z]+|[a-z]+[A-Z]\w*)\s+(\d{1,3})(?![\w.:%/])", text):
        start, end = match.start(2), match.end(2)
        if not spans.free(start, end) or match.group(1).lower() in GENERIC:
            continue
        after = text[end:]
        following = _FOLLOWING_WORDS.match(after)
        if following and (_unit_of(following.group(1)) or _is_plural(following.group(1))):
            continue  # "Sift 80 points": a count
        operator = ">=" if _RANGE_AFTER.match(after) else ""
        if not operator and _AT_LEAST.search(text[:start]):
            operator = ">="
        value = _version_value(operator + match.group(2), clause, slot=match.group(1).lower())
        if value is not None:
            spans.take(start, end)
            yield start, value.replace(shown=f"{match.group(1)} {match.group(2)}")


def _numbers(
    text: str, spans: _Spans, clause: int, port_clause: bool
) -> Iterator[tuple[int, Value]]:
    for match in _NUMBER.finditer(text):
        if not spans.free(*match.span()):
            continue
        if _is_date_or_time(text, match.start(), match.end()):
            continue
        number = float(match.group(2).replace(",", ""))
        attached = match.group(3) or ""
        if match.group(1):
            unit = "$"
        elif attached:
            unit = attached
        else:
            unit = ""
        spans.take(*match.span())
        after = text[match.end() :]
        if port_clause and not unit and match.group(2).isdigit() and 20 <= number <= 65535:
            following = _FOLLOWING_WORDS.match(after)
            counted = following is not None and _counts(following.group(1))
            if not counted:
                yield match.start(), Value("port", match.group(2), match.group(0), clause=clause)
                continue
        yield (
            match.start(),
            _number_value(number, unit, after, text[: match.start()], match, clause),
        )


_NUMBER_WORD = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|hundred)\s+([A-Za-z][\w-]*)",
    re.IGNORECASE,
)


def _number_words(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _NUMBER_WORD.finditer(text):
        count = number_word(match.group(1))
        if count is None or not spans.free(*match.span()):
            continue
        if not (_unit_of(match.group(2)) or _is_plural(match.group(2))):
            continue
        spans.take(match.start(), match.end(1))
        yield (
            match.start(),
            _number_value(
                float(count), "", " " + match.group(2), text[: match.start()], match, clause
            ),
        )


def _names(text: str, spans: _Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for pattern in (_ENV_VAR, _CAMEL):
        for match in pattern.finditer(text):
            if spans.free(*match.span()):
                spans.take(*match.span())
                yield (
                    match.start(),
                    Value("name", match.group(0).lower(), match.group(0), clause=clause),
                )
    for match in _CAPITALISED.finditer(text):
        start, shown = match.start(), match.group(0)
        if not spans.free(start, match.end()):
            continue
        if not text[:start].strip():  # the first word of a sentence: capitalised anyway
            first, _, rest = shown.partition(" ")
            if not rest:
                continue
            start, shown = start + len(first) + 1, rest.lstrip()
        tokens = shown.split()
        while tokens and _is_acronym(tokens[0]):
            tokens.pop(0)
        while tokens and _is_acronym(tokens[-1]):
            tokens.pop()
        if not tokens or all(token.lower() in GENERIC for token in tokens):
            continue
        shown = " ".join(tokens)
        spans.take(match.start(), match.end())
        yield start, Value("name", shown.lower(), shown, clause=clause)


# -- values ------------------------------------------------------------------------------


def _url_port(url: str, start: int, clause: int) -> Iterator[tuple[int, Value]]:
    """A URL's explicit port (``http://localhost:3000``) is also a port value."""
    match = re.match(r"https?://[^/:]+:(\d{2,5})\b", url)
    if match:
        yield start, Value("port", match.group(1), f":{match.group(1)}", clause=clause)


def _url_value(url: str, clause: int) -> Value:
    norm = url.lower().rstrip("/")
    norm = re.sub(r"^https?://", "", norm)
    return Value("url", norm, url, clause=clause)


def _path_norm(path: str) -> str:
    return path.rstrip("/").lower() or "/"


def _looks_like_path(token: str) -> bool:
    """Whether a token read as a path is one, not "and/or" or "messages/second"."""
    if "/" not in token:
        return "." in token.strip(".") or token.startswith(".")
    if token.startswith(("/", "~", "./", "../")) or token.endswith("/"):
        return True
    segments = [segment for segment in token.split("/") if segment]
    if len(segments) >= 3:
        return True
    return any(re.search(r"[._<>*@-]|\d", segment) for segment in segments)


def _setting_value(key: str, raw: str, clause: int) -> Value:
    """``key=value``: a number, a URL or a version when the value is one (the key its
    slot), else a flag-like setting."""
    value = raw.strip("\"'")
    slot = key.lower().lstrip("-")
    if _URL.fullmatch(value):
        return _url_value(value, clause).replace(slot=slot, shown=f"{key}={value}")
    number = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z%]{0,3})", value)
    if number and not re.fullmatch(r"\d+\.\d+\.\d+", value):
        norm, _unit = _scaled(float(number.group(1)), number.group(2))
        return Value("number", norm, f"{key}={value}", slot=slot, keyed=True, clause=clause)
    version = _version_value(value, clause, slot=slot) if _range_text(value) else None
    if version is not None:
        return version.replace(shown=f"{key}={value}")
    return Value("flag", value.lower(), f"{key}={value}", slot=slot, keyed=True, clause=clause)


def _flag_value(flag: str, value: str | None, tool: str, clause: int) -> Value:
    name = flag.lstrip("-").lower()
    slot = f"{tool} -{name}" if tool else f"-{name}"
    shown = f"{flag}={value}" if value is not None and "=" not in flag else flag
    if value is not None and not flag.startswith("--"):
        shown = f"{flag} {value}"
    return Value("flag", (value or "on").lower(), shown, slot=slot, keyed=True, clause=clause)


def _range_text(value: str) -> bool:
    return bool(re.fullmatch(rf"(\s*{_RANGE_OP}?\s*v?\d+(\.\d+)*\s*,?)+", value))


def parse_version(text: str) -> tuple[int, ...] | None:
    match = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:[-+][\w.]*)?", text.strip())
    if not match:
        return None
    return tuple(int(part) for part in match.group(1).split("."))


def _version_value(text: str, clause: int, slot: str = "") -> Value | None:
    """A version, or a range of them (``>=3.11,<3.12``, ``^18``, ``~> 1.7.5``), with the
    tool it is of (``slot``); None when the text is no version."""
    text = text.strip()
    if text.lower() == "latest":
        return Value("version", "latest", text, slot=slot, keyed=bool(slot), clause=clause)
    low: tuple[int, ...] | None = None
    high: tuple[int, ...] | None = None
    exact: tuple[int, ...] | None = None
    pieces = [piece for piece in re.split(r"[,\s]+", text) if piece]
    for piece in pieces:
        match = re.fullmatch(rf"({_RANGE_OP})?\s*(.+)", piece)
        if not match:
            return None
        operator, rest = match.group(1) or "", match.group(2)
        parsed = parse_version(rest)
        if parsed is None:
            return None
        if operator in (">=", ">"):
            low = parsed
        elif operator in ("<", "<="):
            high = parsed
        elif operator == "^":
            low, high = parsed, (parsed[0] + 1,)
        elif operator.startswith("~"):
            low = parsed
            high = (*parsed[:-2], parsed[-2] + 1) if len(parsed) > 1 else (parsed[0] + 1,)
        else:
            exact = parsed
    if exact is not None and low is None and high is None:
        suffix = re.search(r"-[A-Za-z][\w.]*$", text)
        norm = ".".join(map(str, exact)) + (suffix.group(0).lower() if suffix else "")
        return Value("version", norm, text, slot=slot, keyed=bool(slot), clause=clause)
    if low is None and high is None:
        return None
    norm = ">=" + ".".join(map(str, low)) if low else ""
    if high:
        norm += ("," if norm else "") + "<" + ".".join(map(str, high))
    return Value(
        "version", norm, text, slot=slot, keyed=bool(slot), low=low, high=high, clause=clause
    )


def _tool_before(text: str) -> str:
    """The tool a version that follows ``text`` is of: the nearest name-like word among
    the last few, skipping "version", "is", "to" and the like."""
    tokens = words(_CODE.sub(lambda code: code.group(1), text))[-4:]
    for token in reversed(tokens):
        lower = token.lower()
        if lower in GENERIC or lower in ("version", "versions", "release", "pin", "image"):
            continue
        if token[0].isupper() or lower in ("go", "node", "python", "java", "ruby", "rust"):
            return lower
        if "-" in token or "_" in token:
            return lower
        return ""
    return ""


_RUN_TOOL = re.compile(
    r"\b(?:run|runs|use|uses|call|invoke|start|pass)\s+`?([a-z][\w.-]*)`?"
    r"(?:\s+([a-z][\w-]*))??\s+(?:with\s+)?$",
    re.IGNORECASE,
)


def _tool_run(text: str) -> str:
    """The command a flag outside one is given to: "Run jest with `--runInBand`"."""
    match = _RUN_TOOL.search(text)
    if match is None or match.group(1).lower() in GENERIC:
        return ""
    return match.group(1).lower()


def _unit_of(word: str) -> tuple[str, float] | None:
    lower = word.lower()
    if lower in _NOT_UNITS:
        return None
    for table in (_DURATIONS, _SIZES):
        if lower in table:
            return table[lower]
        stemmed = stem(lower)
        if stemmed in table:
            return table[stemmed]
    if lower in ("%", "percent"):
        return ("%", 1)
    return None


def _counts(word: str) -> bool:
    """Whether a number followed by ``word`` is a quantity (a unit, a plural noun)."""
    return _unit_of(word) is not None or _is_plural(word)


def _is_plural(word: str) -> bool:
    lower = word.lower()
    return (
        len(lower) > 3
        and lower.endswith("s")
        and not lower.endswith(("ss", "us", "is"))
        and lower not in GENERIC
    )


def _counted(word: str) -> str:
    """The unit a counted word stands for: its stem, with words that count the same thing
    folded together (times, attempts, tries; emails, messages)."""
    stemmed = stem(word)
    return _SAME_UNIT.get(stemmed, _SAME_UNIT.get(word.lower(), stemmed))


def _scaled(number: float, unit: str) -> tuple[str, str]:
    """A number in its unit's base (seconds, bytes), as text, and that unit."""
    known = _unit_of(unit) if unit else None
    if known is not None:
        base, scale = known
        return _plain(number * scale), base
    return _plain(number), unit.lower()


def _plain(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def _number_value(
    number: float, attached: str, after: str, before: str, match: re.Match[str], clause: int
) -> Value:
    """A number, its unit read from what is attached to it or the word after (``5
    times``, ``14 emails per second``, ``50 messages/second``)."""
    if attached:
        norm, unit = _scaled(number, attached)
    else:
        following = _FOLLOWING_WORDS.match(after)
        unit = ""
        norm = _plain(number)
        if following:
            first, second = following.group(1), following.group(2) or ""
            known = _unit_of(first)
            if known is not None:
                norm, unit = _scaled(number, first)
            elif _is_plural(first):
                unit = _counted(first)
            elif first.lower() not in GENERIC and (
                _is_plural(second) or (number == 1 and second and second.lower() not in GENERIC)
            ):
                unit = _counted(second)  # "6 primary shards", "1 primary shard"
            elif number == 1 and first.lower() not in GENERIC:
                unit = _counted(first)
        per = _PER.match(after)
        rate = _unit_of(per.group(1)) if per else None
        if rate is not None:  # a rate: "14 emails per second", "50 messages/second"
            unit = f"/{rate[0]}"
            norm = _plain(number / rate[1])
    slot = unit
    if not slot:
        near = [s for s in content_stems(before) if not s.isdigit()]
        slot = "~" + near[-1] if near else ""
    return Value("number", norm, match.group(0).strip(), slot=slot, clause=clause)


def _is_date_or_time(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` is part of a date or a clock time."""
    around = text[max(0, start - 11) : end + 11]
    if re.search(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}", around):
        inside = text[max(0, start - 3) : end + 3]
        return bool(re.search(r"[-:]\d|\d[-:]", inside))
    following = _FOLLOWING_WORDS.match(text[end:])
    return bool(following and following.group(1).lower() in _NOT_UNITS - {"x"})


def _is_acronym(token: str) -> bool:
    """An all-caps word of up to five letters (CI, API, AWS): a subject, not a value."""
    return token.isupper() and len(token) <= 5
