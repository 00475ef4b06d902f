"""Quantities in a note's text: numbers with their units (durations in seconds, sizes in
bytes, counts of a thing), minimums and maximums, numbers a setting's key names in plain
text or a call sets (``WriteTimeout 10s``, ``maxSizePercent(0.25)``), and versions of a
tool (``Node 18``, ``Next.js 13.5``, ``python:3.12-slim``, ``>=3.11,<3.12``, ``~> 1.7.5``,
``^18``, ``2.x``).
"""

from __future__ import annotations

import re

from anamnesis.store.review.reading.text import (
    CODE_SPAN,
    GENERIC,
    content_stems,
    number_word,
    stem,
    words,
)
from anamnesis.store.review.reading.tool_roles import TOOL_ROLES
from anamnesis.store.review.reading.value import Spans, Value

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final

_RANGE_OP = r"(?:\^|~>?|>=|<=|==|!=|<|>)"
VERSION = re.compile(
    rf"(?<![\w.$-])({_RANGE_OP}\s?)?(v?\d+(?:\.\d+){{1,3}}(?:-[A-Za-z][\w.]*)?|v\d+)(\+)?(?![\w.%])"
)
_HYPHENATED_VERSION = re.compile(
    r"(?<![\w.$/-])([A-Za-z][A-Za-z0-9]*)-(v?\d+\.\d+(?:\.\d+){0,2})(?![\w.])"
)
_WILDCARD = re.compile(r"(?<![\w.$-])v?(\d+(?:\.\d+)*)\.[xX*](?![\w.*])")
# A whole number right after a tool's name (Node.js written so too): "Node 18".
_NAMED_WHOLE = re.compile(
    r"\b([A-Z][A-Za-z]+|[a-z]+[A-Z]\w*)(?:\.js)?\s+(\d{1,3})(?![\w.%/]|:\w)"  # "Java 11:"
)
_CARET = re.compile(rf"(?<![\w.])({_RANGE_OP})\s?(\d+)(?![\w.])")
# A number, with its unit attached or hyphenated to the word it counts ("512-token chunks",
# "a 30-second timeout": the word is read as its unit, as after a space).
_NUMBER = re.compile(
    r"(?<![\w.$/#-])(\$)?(\d+(?:[.,]\d+)?)(%|[A-Za-z]{1,3}\b)?"
    r"(?![\w./]|-(?![A-Za-z])|:\S|\.\d)"
)
_RANGE_AFTER = re.compile(
    r"^\s*(?:\+|(?:or|and)\s+(?:newer|later|above|higher|up|greater)\b)", re.IGNORECASE
)
_AT_LEAST = re.compile(r"(?:at\s+least|minimum(?:\s+of)?|>=)\s*$", re.IGNORECASE)
# What a thing requires of a tool is its floor: "requires Helm 3.14", "needs Go 1.22"
# (a newer one serves too), the tool's name between the verb and the version.
_REQUIRES = re.compile(
    r"\b(?:requires?|required|needs?)\s+(?:[A-Za-z][\w.+-]*\s+){0,1}(?:v(?=\d))?$",
    re.IGNORECASE,
)
_FOLLOWING_WORDS = re.compile(r"^[\s-]*([A-Za-z][\w-]*)(?:\s+([A-Za-z][\w-]*))?")
# "per 6 hours", "in any 60 s window": the window a count is a rate over.
_PER_WINDOW = re.compile(
    r"^\s*(?:[A-Za-z]+\s*)?(?:per\s+(\d+(?:\.\d+)?)\s*([A-Za-z]+)"
    r"|(?:in|within|over)\s+(?:any|each|every|a|one)\s+(\d+(?:\.\d+)?)\s*([A-Za-z]+)"
    r"\s+(?:sliding\s+|rolling\s+)?window\b)",
    re.I,
)
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
    "kilobyte": ("byte", 1e3), "megabyte": ("byte", 1e6), "gigabyte": ("byte", 1e9),
    "terabyte": ("byte", 1e12), "kibibyte": ("byte", 1024), "mebibyte": ("byte", 1024**2),
    "gibibyte": ("byte", 1024**3), "tebibyte": ("byte", 1024**4),
    # as Kubernetes writes a quantity of memory: ``512Mi``, ``1Gi``
    "ki": ("byte", 1024), "mi": ("byte", 1024**2), "gi": ("byte", 1024**3),
    "ti": ("byte", 1024**4),
}  # fmt: skip
# A rate per second, folded to hertz: 20 Hz is one every 50 ms (:func:`.agreement.agree`).
_FREQUENCIES: Final = {"hz": ("hz", 1), "khz": ("hz", 1e3), "mhz": ("hz", 1e6), "ghz": ("hz", 1e9)}
# Words that count the same thing: "retried up to 5 times" and "3 attempts" agree in unit.
_SAME_UNIT: Final = {
    "time": "attempt", "attempt": "attempt", "try": "attempt", "retry": "attempt",
    "tries": "attempt", "retri": "attempt", "message": "message", "email": "message",
    "mail": "message", "request": "request", "req": "request", "call": "request",
    "char": "character", "chr": "character",
    "percent": "%",
}  # fmt: skip
# What a letter attached to a number multiplies it by (``2M`` is two million, ``10k``
# ten thousand: ``2m`` is two minutes, ``2MB`` a size).
_MAGNITUDES: Final = {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9}
# Months and other words after a number that make it a date, not a quantity.
_NOT_UNITS: Final = frozenset(
    """
    jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june
    july august september october november december am pm utc gmt st nd rd th x
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Nouns a number after them counts or orders ("Step 2", "Sprint 14", "Note 3"): not a
# tool and its version.
_COUNTED_NOUNS: Final = frozenset(
    """
    step phase stage sprint chapter figure table note item page section part round week
    day month year level tier option case issue ticket pr line row column room floor team
    group batch wave slide point question task story epic milestone attempt try
    """.split()  # noqa: SIM905 - a word list reads best as words
)


def versions(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _WILDCARD.finditer(text):
        # "13.5.x", "2.x", "3.*": any version under that prefix
        if not spans.free(*match.span()):
            continue
        prefix = [int(part) for part in match.group(1).split(".")]
        ceiling = ".".join(map(str, [*prefix[:-1], prefix[-1] + 1]))
        value = version_value(
            f">={match.group(1)},<{ceiling}", clause, slot=tool_before(text[: match.start()])
        )
        if value is not None:
            spans.take(*match.span())
            yield match.start(), value.replace(shown=match.group(0))
    for match in _HYPHENATED_VERSION.finditer(text):
        # "perl-5.26.3", "ubuntu-22.04": a tool and its version in one word
        if spans.free(*match.span()):
            value = version_value(match.group(2), clause, slot=match.group(1).lower())
            if value is not None:
                spans.take(*match.span())
                yield match.start(), value.replace(shown=match.group(0))
    for match in VERSION.finditer(text):
        if not spans.free(*match.span()):
            continue
        after = text[match.end() :]
        unit = _FOLLOWING_WORDS.match(after)
        if unit and _unit_of(unit.group(1)) is not None and not match.group(1):
            continue  # "2.5 seconds": a quantity, read as a number below
        operator = (match.group(1) or "").strip()
        if (
            match.group(3)
            or _RANGE_AFTER.match(after)
            or _AT_LEAST.search(text[max(0, match.start() - 24) : match.start()])
            or _REQUIRES.search(text[max(0, match.start() - 40) : match.start()])
        ):
            operator = operator or ">="
        value = version_value(
            operator + match.group(2), clause, slot=tool_before(text[: match.start()])
        )
        if value is not None:
            spans.take(*match.span())
            yield match.start(), value.replace(shown=match.group(0).strip())
    for match in _CARET.finditer(text):
        if spans.free(*match.span()):
            value = version_value(
                match.group(1) + match.group(2),
                clause,
                slot=tool_before(text[: match.start()]),
            )
            if value is not None:
                spans.take(*match.span())
                yield match.start(), value.replace(shown=match.group(0))
    # A whole number right after a tool's name: "Node 18", "Postgres 14 or newer".
    for match in _NAMED_WHOLE.finditer(text):
        start, end = match.start(2), match.end(2)
        name = match.group(1).lower()
        if not spans.free(start, end) or name in GENERIC or name in _COUNTED_NOUNS:
            continue
        after = text[end:]
        following = _FOLLOWING_WORDS.match(after)
        if following and (_unit_of(following.group(1)) or is_plural(following.group(1))):
            continue  # "Sift 80 points": a count
        operator = ">=" if _RANGE_AFTER.match(after) else ""
        if not operator and (
            _AT_LEAST.search(text[max(0, start - 24) : start])
            or _REQUIRES.search(text[max(0, start - 40) : start])
        ):
            operator = ">="
        value = version_value(operator + match.group(2), clause, slot=match.group(1).lower())
        if value is not None:
            spans.take(start, end)
            yield start, value.replace(shown=f"{match.group(1)} {match.group(2)}")


def rate_window(after: str) -> float | None:
    """How many seconds the window a rate is counted over lasts, read from what follows
    its number ("per minute": 60, "per 6 hours", "in any 60 s window"); None when
    nothing after it says."""
    window = _PER_WINDOW.match(after)
    if window is not None:
        many, of = window.group(1) or window.group(3), window.group(2) or window.group(4)
        known = _unit_of(of)
        return known[1] * float(many) if known is not None and known[0] == "s" else None
    per = _PER.match(after)
    known = _unit_of(per.group(1)) if per else None
    return known[1] if known is not None and known[0] == "s" else None


def joined_versions(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A whole number joined to a tool's whole version ("Node 20 and 22", "keep Node 20
    installed next to 22"): another version of that tool, not a count."""
    for match in _JOINED_WHOLE.finditer(text):
        start, end = match.span(3)
        name = match.group(1).lower()
        if not spans.free(start, end) or name in GENERIC or name in _COUNTED_NOUNS:
            continue
        following = _FOLLOWING_WORDS.match(text[end:])
        if following and (_unit_of(following.group(1)) or is_plural(following.group(1))):
            continue  # "Node 20 and 4 workers": a count
        value = version_value(match.group(3), clause, slot=name)
        if value is not None:
            spans.take(start, end)
            yield start, value.replace(shown=match.group(3))


# A tool's whole version, then another joined to it (one word may come between).
_JOINED_WHOLE = re.compile(
    r"\b([A-Z][\w+-]*|node|python|go|java|ruby|rust)\s+v?(\d+)(?:\s+[a-z]+)?\s*"
    r"(?:,|/|\band\b|\bor\b|\bnext\s+to\b|\balongside\b)\s*v?(\d+)\b(?![.\d])"
)


def glued_versions(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """A language's version written onto its name, as its binary is named ("installs
    python3.10", "php8.1-fpm"): that language's version."""
    for match in _GLUED.finditer(text):
        if not spans.free(*match.span()):
            continue
        value = version_value(match.group(2), clause, slot=match.group(1).lower())
        if value is not None:
            spans.take(*match.span())
            yield match.start(), value.replace(shown=match.group(0))


# A language's binary named with its version: ``python3.10``, ``php8.1``, ``pypy3.9``.
_GLUED = re.compile(r"(?<![\w./-])(python|pypy|php|ruby|perl|lua)(\d+\.\d+(?:\.\d+)?)(?![\w.])")


def numbers(text: str, spans: Spans, clause: int, port_clause: bool) -> Iterator[tuple[int, Value]]:
    if "/" in text:
        for rate in _RATE_SLASH.finditer(text):  # "30/min": a rate, per second
            norm = per_time(rate.group(0))
            if norm is not None and spans.free(*rate.span()):
                spans.take(*rate.span())
                yield rate.start(), Value("number", norm, rate.group(0), slot="/s", clause=clause)
    for match in _NUMBER.finditer(text):
        if not spans.free(*match.span()):
            continue
        if _is_date_or_time(text, match.start(), match.end()):
            continue
        number = float(match.group(2).replace(",", ""))
        attached = match.group(3) or ""
        if attached in _MAGNITUDES:  # "2M" events, "40K" rows: a count, not minutes
            number *= _MAGNITUDES[attached]
            attached = ""
        if match.group(1):
            unit = "$"
        elif attached:
            unit = attached
        else:
            unit = ""
        spans.take(*match.span())
        after = text[match.end() :]
        if not unit and _http_status(match.group(2), text[: match.start()], after):
            continue  # "a 413 from nginx": a response, not a quantity
        served = 1024 <= number <= 65535 and (
            _SERVED_ON.search(text[: match.start()]) or _SERVER_ON.search(text[: match.start()])
        )
        if (
            (port_clause or served)
            and not unit
            and match.group(2).isdigit()
            and 20 <= number <= 65535
        ):
            following = _FOLLOWING_WORDS.match(after)
            counted = following is not None and _counts(following.group(1))
            if not counted:
                yield match.start(), Value("port", match.group(2), match.group(0), clause=clause)
                continue
        yield (
            match.start(),
            _number_value(number, unit, after, text[: match.start()], match, clause),
        )


def _http_status(digits: str, before: str, after: str) -> bool:
    """Whether a number is an HTTP response's status: three digits from 100 to 599 said
    as one ("a 413", "returns 404", "HTTP 502", "status 500"), with no word after it
    that it counts ("a 500 ms timeout", "a 200 rows page")."""
    if not (len(digits) == 3 and digits.isdigit() and 100 <= int(digits) <= 599):
        return False
    if not _STATUS_BEFORE.search(before):
        return False
    following = _FOLLOWING_WORDS.match(after)
    return following is None or not (_counts(following.group(1)) or is_unit(following.group(1)))


# What a status is said after: "a", "an", "returns", "HTTP", "status", "answers with".
_STATUS_BEFORE = re.compile(
    r"\b(?:an?|returns?|returned|returning|http|status(?:\s+code)?|answers?(?:\s+with)?"
    r"|respond(?:s|ed)?\s+with|gets?|got)\s+$",
    re.IGNORECASE,
)


# A label before a number that says what it counts: "members per room: 2000", "max
# rooms per user = 100".
_LABEL_PER = re.compile(r"\b([A-Za-z]+)\s+per\s+[A-Za-z]+\s*[:=]\s*$")
# A word between a number and what it counts that only qualifies it: "400 changed lines",
# "3 more retries", "2 extra replicas".
_QUALIFIER = re.compile(r"[a-z]+ed|more|new|extra|additional|fewer|less|other|total", re.IGNORECASE)


# What a server is said to run on, right before a number: "Metro runs on 8081", "serves
# the docs at 4000", "listening on 5173" (a port, in a note that never says "port").
_SERVED_ON = re.compile(
    r"\b(?:runs?|running|serves?|serving|served|listens?|listening|starts?|started|lives"
    r"|is\s+up|available|reachable|stays|stayed|remains)\s+(?:[\w-]+\s+){0,3}?(?:on|at)\s+"
    r"(?:port\s+)?$",
    re.IGNORECASE,
)


# The roles of :mod:`.tool_roles` whose tools are servers, each listening on a port.
_SERVER_ROLES: Final = frozenset(
    {"relational database", "cache", "message broker", "search engine", "vector database",
     "reverse proxy", "python asgi server", "ruby web server"}
)  # fmt: skip
# A server named right before the number it is on: "Local Redis on 6379", "Postgres at
# 5433".
_SERVER_ON = re.compile(
    r"\b(?:"
    + "|".join(
        re.escape(spelling) for spelling, (role, _) in TOOL_ROLES.items() if role in _SERVER_ROLES
    )
    + r")\s+(?:on|at)\s+(?:port\s+)?$",
    re.IGNORECASE,
)


# A setting's key written in plain text, then its value: "WriteTimeout 10s", "maxRetries 5",
# "retention_in_days is 90", "pool_size in config/db.yml is 20". The key is an identifier
# no prose word looks like: snake_case, or camelCase / PascalCase (a product's name is
# PascalCase too, "TypeScript 5": such a key's value needs a unit to be one).
_KEYED_NUMBER = re.compile(
    r"(?<![\w.`/-])(?:(?P<snake>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)"
    r"|(?P<camel>[a-z][a-z0-9]+(?:[A-Z][a-z0-9]+)+)|(?P<pascal>[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+))"
    r"(?:\s+(?:in|for|of|on)\s+[^\s,;]{1,60})?"
    r"(?:\s*(?:=|:)\s*|\s+(?:is|to|at|of)\s+(?:now\s+|set\s+to\s+)?|\s+)"
    r"(?P<number>\d+(?:\.\d+)?)(?P<unit>[A-Za-z%]{0,3})(?![\w.]|\.\d|:\d)"  # not a clock's 03:00
)


def keyed_numbers(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """Numbers said as the value of a setting's key named in plain text (:data:`_KEYED_NUMBER`),
    keyed by it as a setting in code is."""
    for match in _KEYED_NUMBER.finditer(text):
        key = match.group("snake") or match.group("camel") or match.group("pascal")
        number, unit = match.group("number"), match.group("unit")
        if unit and _unit_of(unit) is None:
            continue  # "Sprint_2 3x", a word glued on: no unit
        if not unit:
            following = _FOLLOWING_WORDS.match(text[match.end() :])
            if following and _unit_of(following.group(1)) is not None:
                unit = following.group(1)  # "WriteTimeout 10 seconds"
        if match.group("pascal") and not unit:
            continue  # "TypeScript 5": a product's version, read as one
        start = match.start()
        if not spans.free(start, start + len(key)) or not spans.free(*match.span("number")):
            continue
        unit = unit or key_unit(key)
        norm, _base = scaled(float(number), unit) if unit else (_plain(float(number)), "")
        # Nothing is taken: the key is still read as a name and the number as one with
        # its unit, as before, for a note that says it without the key.
        said = f"{number}{unit}" if unit == match.group("unit") else f"{number} {unit}"
        yield (
            start,
            Value("number", norm, f"{key} {said}", slot=key.lower(), keyed=True, clause=clause),
        )


# A call with one number for its argument sets what the call names:
# ``maxSizePercent(0.25)``, ``.setMaxPoolSize(20)``, ``retries(3)``.
_CALL_NUMBER = re.compile(
    r"(?<![\w$])(?:[A-Za-z_$][\w$]*\.)*(?P<key>[A-Za-z_][\w]*[A-Za-z0-9_])"
    r"\(\s*(?P<number>\d+(?:\.\d+)?)(?P<unit>[A-Za-z%]{0,3})\s*\)"
)


def call_numbers(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """Numbers given as a call's one argument, keyed by what the call is named
    (:data:`_CALL_NUMBER`), as a setting's value is by its key."""
    for match in _CALL_NUMBER.finditer(text):
        unit = match.group("unit")
        if (unit and _unit_of(unit) is None) or not spans.free(*match.span()):
            continue
        key, number = match.group("key"), float(match.group("number"))
        unit = unit or key_unit(key)
        norm, _base = scaled(number, unit) if unit else (_plain(number), "")
        spans.take(*match.span())
        shown = f"{key}({match.group('number')}{unit})"
        yield (
            match.start(),
            Value("number", norm, shown, slot=key.lower(), keyed=True, clause=clause),
        )


# A duration or a size quoted inside code: ``fixedWindow(30, "10 s")``, ``ttl: '5m'``.
_QUOTED_QUANTITY = re.compile(r"([\"'])(?P<number>\d+(?:\.\d+)?)\s?(?P<unit>[A-Za-z]{1,7})\1")
# A duration said in SQL: ``INTERVAL 90 DAY``, ``INTERVAL '7 days'``, ``interval 30 minute``.
_SQL_INTERVAL = re.compile(
    r"\binterval\s+'?(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>[a-z]{1,7})\b'?", re.IGNORECASE
)


def interval_quantities(code: str, clause: int) -> Iterator[Value]:
    """The durations a span of SQL gives as intervals (a table's TTL, a retention)."""
    return _quantities(_SQL_INTERVAL, code, clause)


def quoted_quantities(code: str, clause: int) -> Iterator[Value]:
    """The durations and sizes a span of code gives as quoted strings (only those: a
    quoted word with a number in it may be anything)."""
    return _quantities(_QUOTED_QUANTITY, code, clause)


def _quantities(pattern: re.Pattern[str], code: str, clause: int) -> Iterator[Value]:
    """Each ``number`` and ``unit`` ``pattern`` finds in ``code`` whose unit is one (a
    duration, a size), scaled to its base unit."""
    for match in pattern.finditer(code):
        unit = match.group("unit")
        if _unit_of(unit) is None:
            continue
        norm, base = scaled(float(match.group("number")), unit)
        yield Value("number", norm, match.group(0), slot=base, clause=clause)


_NUMBER_WORD = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty"
    r"|fifty|hundred|(?<=\ba )single)\s+([A-Za-z][\w-]*)",
    re.IGNORECASE,
)


def number_words(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    for match in _NUMBER_WORD.finditer(text):
        # "a single approving review" is one review
        count = 1 if match.group(1).lower() == "single" else number_word(match.group(1))
        if count is None or not spans.free(*match.span()):
            continue
        counted = match.group(2)
        one_of = count == 1 and counted.isalpha() and counted.lower() not in GENERIC
        if not (_unit_of(counted) or is_plural(counted) or one_of):
            continue  # "one approval" counts; "one of", "one more" do not
        spans.take(match.start(), match.end(1))
        yield (
            match.start(),
            _number_value(
                float(count), "", text[match.end(1) :], text[: match.start()], match, clause
            ),
        )


# How often something runs, in a word: "backups run nightly", "every hour" (a period,
# compared in seconds with "every 6 hours").
PERIOD_ADVERBS: Final = ("hourly", "daily", "nightly", "weekly", "monthly")
_PERIOD_WORD = re.compile(
    rf"\b(?:({'|'.join(PERIOD_ADVERBS)})|every\s+(minute|hour|day|night|week|month))\b"
    # said of how a thing runs, not of a thing ("the daily log index", "hourly jobs")
    r"(?=\s*(?:[.,;:)(]|$|(?:at|on|in|from|and|or|but|since|until|now|instead|before|after"
    r"|via|with|by|so|because|when|while|for|to|around|between|except|unless)\b))",
    re.IGNORECASE,
)
_PERIODS: Final = {
    "minute": 60, "hour": 3600, "hourly": 3600, "day": 86400, "daily": 86400,
    "night": 86400, "nightly": 86400, "week": 604800, "weekly": 604800,
    "month": 2592000, "monthly": 2592000,
}  # fmt: skip


def period_words(text: str, spans: Spans, clause: int) -> Iterator[tuple[int, Value]]:
    """How often a thing runs, said in a word (:data:`_PERIOD_WORD`), as a number of
    seconds."""
    for match in _PERIOD_WORD.finditer(text):
        if not spans.free(*match.span()):
            continue
        spans.take(*match.span())
        word = (match.group(1) or match.group(2)).lower()
        yield (
            match.start(),
            Value("number", str(_PERIODS[word]), match.group(0), slot="s", clause=clause),
        )


def range_text(value: str) -> bool:
    return bool(re.fullmatch(rf"(\s*{_RANGE_OP}?\s*v?\d+(\.\d+)*\s*,?)+", value))


def parse_version(text: str) -> tuple[int, ...] | None:
    match = re.fullmatch(r"v?(\d+(?:\.\d+)*)(?:[-+][\w.-]*)?", text.strip())
    if not match:
        return None
    return tuple(int(part) for part in match.group(1).split("."))


def version_value(text: str, clause: int, slot: str = "") -> Value | None:
    """A version, or a range of them (``>=3.11,<3.12``, ``^18``, ``~> 1.7.5``), with the
    tool it is of (``slot``); None when the text is no version."""
    text = text.strip()
    if text.lower() == "latest":
        return Value("version", "latest", text, slot=slot, keyed=bool(slot), clause=clause)
    low: tuple[int, ...] | None = None
    high: tuple[int, ...] | None = None
    exact: tuple[int, ...] | None = None
    text = re.sub(rf"({_RANGE_OP})\s+", r"\1", text)  # "~> 1.7.5" is "~>1.7.5"
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


_DOT_JS = re.compile(r"\b([A-Za-z][\w-]*)\.js\b")
# Verbs the name of what they set the version of follows, whatever its case.
_PINNING: Final = frozenset(
    """
    pin pins pinned pinning bump bumps bumped upgrade upgrades upgraded
    """.split()  # noqa: SIM905 - a word list reads best as words
)


_NOT_TOOLS: Final = frozenset(
    """
    past beyond above below from until
    """.split()  # noqa: SIM905 - a word list reads best as words
)


# A list item (or a line) that is one word before its version: "- gleam 1.6.3".
_LISTED_TOOL = re.compile(r"\s*(?:[-*+\u2022]\s+)?([A-Za-z][\w+-]*)\s*")


def tool_before(text: str) -> str:
    """The tool a version that follows ``text`` is of: the nearest name-like word among
    the last few, skipping "version", "is", "to" and the like."""
    package = _PACKAGE_BEFORE.search(text)
    if package:
        # "`rxjs` 7.8", "`@angular/core` 17.3.x": a package named in code just before; a
        # framework's core package is the framework's version
        scope, name = package.group(1), package.group(2).lower()
        return scope.lower() if scope and name == "core" else name
    # a tool named after its language is the tool: Next.js, Node.js, Vue.js
    plain = _DOT_JS.sub(r"\1", CODE_SPAN.sub(lambda code: code.group(1), text))
    listed = _LISTED_TOOL.fullmatch(plain)
    if listed and listed.group(1).lower() not in GENERIC:
        return listed.group(1).lower()  # "- gleam 1.6.3": a list of tools and versions
    tokens = words(plain)[-4:]
    if (
        len(tokens) >= 2
        and tokens[-2].lower() in _PINNING
        and tokens[-1].lower() not in GENERIC
        and tokens[-1].lower() not in _NOT_TOOLS
    ):
        return tokens[-1].lower()  # "pins next 14.2.3", "bumped httpx 0.27": any name
    if (
        len(tokens) >= 3
        and tokens[-1].lower() == "to"
        and tokens[-3].lower() in _PINNING
        and tokens[-2].lower() not in GENERIC
        and tokens[-2].lower() not in _NOT_TOOLS
    ):
        return tokens[-2].lower()  # "bumped gin to v1.10.0"
    for token in reversed(tokens):
        lower = token.lower()
        if lower in GENERIC or lower in ("version", "versions", "release", "pin", "image"):
            continue
        if token[0].isupper() and is_plural(token) and token[1:].islower():
            return ""  # "Clients older than 5.0": a plural noun capitalised, not a tool
        if token[0].isupper() or lower in ("go", "node", "python", "java", "ruby", "rust"):
            return lower
        if "-" in token or "_" in token:
            # a key that says a tool's version is required, of the tool: the version in
            # ``cmake_minimum_required(VERSION 3.20)`` is CMake's, as in "CMake 3.20"
            return _REQUIRED_OF.sub("", lower) or lower
        return ""
    return ""


# A package's name in code, ending the text: `` `rxjs` ``, `` `@angular/core` ``.
_PACKAGE_BEFORE = re.compile(r"`(?:@([a-z][\w.-]*)/)?([a-z][\w.-]*[a-z0-9])`\s*(?:v|@)?$")
_REQUIRED_OF = re.compile(r"[-_](?:min(?:imum)?[-_])?(?:required|requires|version)$")


def _unit_of(word: str) -> tuple[str, float] | None:
    """The unit a word names (its base and scale: minutes are 60 seconds), or None."""
    lower = word.lower()
    if lower in _NOT_UNITS:
        return None
    singular = lower[:-1] if lower.endswith("s") and len(lower) > 2 else lower
    for table in (_DURATIONS, _SIZES, _FREQUENCIES):
        for form in (lower, singular, stem(lower)):
            if form in table:
                return table[form]
    if lower in ("%", "percent"):
        return ("%", 1)
    return None


def is_unit(word: str) -> bool:
    """Whether a word (or a stem) names a unit: ``day``, ``minut``, ``mb``."""
    return _unit_of(word) is not None or _unit_of(word + "e") is not None


def _counts(word: str) -> bool:
    """Whether a number followed by ``word`` is a quantity (a unit, a plural noun)."""
    return _unit_of(word) is not None or is_plural(word)


def is_plural(word: str) -> bool:
    lower = word.lower()
    return (
        len(lower) > 3
        and lower.endswith("s")
        and not lower.endswith(("ss", "us", "is"))
        and lower not in GENERIC
    )


def unit_base(unit: str) -> str:
    """What a unit measures (``ms``: ``s``; ``mib``: ``byte``), or "" for no unit."""
    found = _unit_of(unit)
    return found[0] if found else ""


def counted(word: str) -> str:
    """The unit a counted word stands for: its stem, with words that count the same thing
    folded together (times, attempts, tries; emails, messages)."""
    lower = word.lower()
    stemmed = stem(lower)
    for form in (stemmed, lower, lower[:-1] if lower.endswith("s") else lower):
        if form in _SAME_UNIT:
            return _SAME_UNIT[form]
    return stemmed


# A key's last word that is no unit there: ``pool_min`` is a minimum, not minutes.
_NOT_KEY_UNITS: Final = frozenset({"min", "m", "s", "h", "d", "b"})
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def key_words(key: str) -> list[str]:
    """A key's words as written: ``maxActiveRuns``, ``max_active_runs``, ``MAX-ACTIVE``,
    ``retention.ms``, ``http2``'s ``2``."""
    return _KEY_WORDS.findall(key)


def key_unit(key: str) -> str:
    """The unit a setting's key ends in (``HTTP_TIMEOUT_MS``, ``retention.ms``,
    ``cacheTtlSeconds``: the number is in it), or "" when its last word is none."""
    parts = key_words(key)
    last = parts[-1].lower() if len(parts) > 1 else ""
    if last in _NOT_KEY_UNITS or _unit_of(last) is None:
        return ""
    return last


def in_some_unit(number: float, quantity: float, base: str) -> bool:
    """Whether a number said without its unit is ``quantity`` (in ``base``: seconds,
    bytes) in one of the base's units: ``retention_days: 28`` and "4 weeks"."""
    tables = (_DURATIONS, _SIZES, _FREQUENCIES)
    scales = {scale for table in tables for b, scale in table.values() if b == base}
    return any(abs(number * scale - quantity) < 1e-9 * max(1.0, quantity) for scale in scales)


def per_time(text: str) -> str | None:
    """A rate written as a number over a unit of time (``30/min``, ``5/s``), as a number
    per second (``0.5``), or None."""
    match = _PER_TIME.fullmatch(text)
    known = _unit_of(match.group(2)) if match else None
    if match is None or known is None or known[0] != "s":
        return None
    return _plain(float(match.group(1)) / known[1])


_PER_TIME = re.compile(r"(\d+(?:\.\d+)?)\s*/\s*([A-Za-z]+)")
_RATE_SLASH = re.compile(r"(?<![\w./])\d+(?:\.\d+)?/[A-Za-z]+\b(?!/)")


def scaled(number: float, unit: str) -> tuple[str, str]:
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
    shown = match.group(0).strip()
    if attached == "D" and number <= 4:
        norm, unit = _plain(number), "dimensions"  # "2D physics", "a 3D model": no days
    elif attached:
        norm, unit = scaled(number, attached)
    else:
        following = _FOLLOWING_WORDS.match(after)
        unit = ""
        norm = _plain(number)
        if following:
            first, second = following.group(1), following.group(2) or ""
            known = _unit_of(first)
            if known is not None:
                norm, unit = scaled(number, first)
                if not shown.endswith(first):  # "six seconds" is read with its unit
                    shown = f"{shown} {first}"  # "60 minutes" against "15 minutes", not 60 / 15
            elif is_plural(first):
                unit = counted(first)
            elif (first.lower() not in GENERIC or _QUALIFIER.fullmatch(first)) and (
                is_plural(second) or (number == 1 and second and second.lower() not in GENERIC)
            ):
                unit = counted(second)  # "6 primary shards", "1 primary shard"
            elif (number == 1 or after.startswith("-")) and first.lower() not in GENERIC:
                unit = counted(first)  # "1 replica"; "an 8-character slug" counts characters
        per = _PER.match(after)
        rate = _unit_of(per.group(1)) if per else None
        window = _PER_WINDOW.match(after) if rate is None else None
        if window is not None:
            # "100 pulls per 6 hours": a rate over a window of many units, per one unit
            many, of = window.group(1) or window.group(3), window.group(2) or window.group(4)
            known = _unit_of(of)
            if known is not None and float(many) > 0:
                rate = (known[0], known[1] * float(many))
        if rate is not None:  # a rate: "14 emails per second", "50 messages/second"
            unit = f"/{rate[0]}"
            # of a size, in its scaled norm: "8 MB/s" is the 8 MB a ``rate_mb: 8`` holds
            norm = _plain(float(norm) / rate[1])
    if not unit:
        label = _LABEL_PER.search(before)
        if label and is_plural(label.group(1)):
            unit = counted(label.group(1))  # "members per room: 2000"
    slot = unit
    if not slot:
        near = [s for s in content_stems(before) if not s.isdigit()]
        slot = "~" + near[-1] if near else ""
    bound = ""
    said = before
    before = before[-24:]  # what a bound is said with comes just before the number
    if _MINIMUM_BEFORE.search(before) or _MINIMUM_AFTER.match(after):
        bound = ">="
    elif _MAXIMUM_BEFORE.search(before) or _MAXIMUM_AFTER.match(after):
        bound = "<="
    if bound and (_REFUSED_BOUND.search(said) or _REFUSED_AFTER.match(after)):
        # what is refused below a number is its floor: "never starts a batch with fewer
        # than 8 jobs" asks for 8 at least, "rejects uploads above 50 MB" allows 50 at most
        bound = "<=" if bound == ">=" else ">="
    return Value("number", norm, shown, slot=slot, bound=bound, clause=clause)


# A negation or a refusal a few words before a bound said just before its number (not
# "no more than", "no fewer than": those say their bound themselves).
_REFUSED_BOUND = re.compile(
    r"\b(?:not|never|cannot|can't|won't|doesn't|don't|isn't|refuses?|rejects?|reverts?"
    r"|fails?|blocks?)\b(?:(?!\b(?:and|but|or|so|then)\b)[^.;:,\n]){0,40}?"
    r"\b(?:(?:more|fewer|less)\s+than|over|above|under|below)\s*$",
    re.IGNORECASE,
)


# What is refused beyond a number, said after it: "attachments over 10 MiB are rejected"
# allow 10 MiB at most.
_REFUSED_AFTER = re.compile(
    r"[^.;:]{0,40}?\b(?:is|are|get|gets|will\s+be)\s+(?:rejected|refused|blocked|dropped"
    r"|denied|not\s+allowed|not\s+accepted)\b",
    re.IGNORECASE,
)


# What makes a number a minimum or a maximum, said before it or after it ("up to 5
# times" is how a policy states its number: as it is).
_MINIMUM_BEFORE = re.compile(
    r"(?:at\s+least|minimum(?:\s+of)?|min\.?|no\s+(?:fewer|less)\s+than|more\s+than|over"
    r"|above|>=?)\s*$",
    re.IGNORECASE,
)
# After it, also with its unit between: "72 characters at most", "3 replicas minimum".
_MINIMUM_AFTER = re.compile(
    r"^\s*(?:\+|[\w-]+\s+or\s+(?:more|higher|above|greater|longer|newer)\b"
    r"|(?:[A-Za-z][\w-]*\s+)?(?:at\s+(?:the\s+)?least|minimum)\b)",
    re.I,
)
_MAXIMUM_BEFORE = re.compile(
    r"(?:at\s+most|maximum(?:\s+of)?|max\.?|capped\s+at|no\s+more\s+than|limited\s+to"
    r"|under|below|less\s+than|fewer\s+than|within|<=?)\s*$",
    re.IGNORECASE,
)
_MAXIMUM_AFTER = re.compile(
    r"^\s*(?:[\w-]+\s+or\s+(?:less|fewer|lower|below|shorter)\b"
    r"|(?:[A-Za-z][\w-]*\s+)?(?:at\s+(?:the\s+)?most|max(?:imum)?)\b)",
    re.I,
)


def _is_date_or_time(text: str, start: int, end: int) -> bool:
    """Whether the number at ``start:end`` is part of a date or a clock time."""
    around = text[max(0, start - 11) : end + 11]
    if re.search(r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}", around):
        inside = text[max(0, start - 3) : end + 3]
        return bool(re.search(r"[-:]\d|\d[-:]", inside))
    following = _FOLLOWING_WORDS.match(text[end:])
    return bool(following and following.group(1).lower() in _NOT_UNITS - {"x"})
