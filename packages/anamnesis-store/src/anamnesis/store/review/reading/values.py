"""The values a note states, each with its kind and what it belongs to.

A value is something two notes can disagree on: a number with its unit, a version, a
port, a path, a flag or setting, a command, a name, a URL (:mod:`.readers` reads them,
:mod:`.quantities` the numbers and versions). Each carries a ``slot``: what must be the
same for two values to be about the same thing (a setting's or flag's key, a version's
tool, a number's unit); a value without one (a port, a path, a URL, a command, a name) is
matched to the other note's values by the words around it (:mod:`.compare`), which are
read here, clause by clause (:mod:`.text`).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import lru_cache

from anamnesis.store.review.reading.addresses import address_port
from anamnesis.store.review.reading.readers import (
    AT_ROOT,
    LITERALS,
    code_values,
    plain_values,
    root_path,
)
from anamnesis.store.review.reading.text import CODE_SPAN, Clause, content_stems, word_stems
from anamnesis.store.review.reading.value import Spans, Value


def clause_values(clause: Clause, ports: bool) -> list[Value]:
    """The values one clause states (``ports``: its note is about a port, so a bare
    number there is one: ``NoteFacts.about_ports``)."""
    return [value.at_clause(clause.index) for value in _values_of(clause.text, ports)]


# A clause made of a setting's key alone, as a parenthesis after a number names it
# ("every 30s (health_interval)", "(config `WAVE_MAX_ORDERS`)", "(limits.max_depth)"):
# an identifier no prose word looks like, snake_case or camelCase, under its namespace
# or not.
_KEY_WORD = r"(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+)"
KEY_ALONE = re.compile(
    r"(?:(?:the|config|setting|option|key)\s+)?`?"
    rf"((?:[a-z][a-z0-9]*\.)*{_KEY_WORD})`?"
)
# What may stand between a number and the parenthesis naming its key: a few words.
_TO_THE_KEY = re.compile(r"[*\s]*(?:[A-Za-z][\w-]*[*\s]*){0,3}")


def keyed_by(found: list[Value], text: str, key: str) -> list[Value]:
    """The clause's last number, said a few words at most before its end, keyed by the
    setting's key the next clause names (:data:`KEY_ALONE`), as a setting in code is;
    the number as said stays too, for a note that says it without the key."""
    for value in reversed(found):
        if value.kind != "number" or value.keyed:
            continue
        at = text.rfind(value.shown)
        if at == -1 or not _TO_THE_KEY.fullmatch(text[at + len(value.shown) :]):
            return []
        return [value.replace(slot=key.lower(), keyed=True, shown=f"{key} {value.shown}")]
    return []


def _ports_of_set_addresses(found: list[tuple[int, Value]]) -> list[tuple[int, Value]]:
    """The ports of addresses given as settings' values (``DATABASE_URL=postgres://
    notes:<password>@localhost:5432/notes``: 5432), where the clause states no port
    of its own: a port said in prose ("runs on 5433") is compared with it."""
    if any(value.kind == "port" for _at, value in found):
        return []
    out = []
    for at, value in found:
        if value.kind in ("url", "flag") and value.keyed:
            port = address_port(value)
            if port:
                out.append((at, Value("port", port, f":{port}")))
    return out


@lru_cache(maxsize=8192)
def _values_of(text: str, ports: bool) -> tuple[Value, ...]:
    """The values a clause's text states (clause index 0), each with the words around it
    and the words just before it. Kept per text: notes repeat their sentences."""
    spans = Spans()
    found: list[tuple[int, Value]] = []
    if "`" in text:
        for code in CODE_SPAN.finditer(text):
            spans.take(code.start(), code.end())
            inner = code.group(1).strip()
            found.extend(code_values(inner, text, code.start(), 0))
    found.extend(plain_values(text, spans, 0, ports))
    if not found:
        return ()
    found.extend(_ports_of_set_addresses(found))
    found.sort(key=lambda item: item[0])
    # Spans of one token (a path, a name) are values, not context; a command in
    # backquotes (`pnpm dev`) is context for the values beside it, as plain words are.
    codes = (
        [code.span() for code in CODE_SPAN.finditer(text) if " " not in code.group(1).strip()]
        if "`" in text
        else []
    )
    whole = {code.start(): code.end() for code in CODE_SPAN.finditer(text)} if "`" in text else {}
    plain: list[tuple[int, tuple[str, ...]]] = []  # words outside code: (start, stems)
    proper: dict[int, str] = {}  # the names among them (capitalised, not a sentence's first)
    coded: dict[int, list[tuple[str, ...]]] = {}  # each code span's words, by its start
    for match in _WORD_AT.finditer(text):
        word = word_stems(match.group(0))
        if not word:
            continue  # the window counts the words that say something
        inside = next((a for a, b in codes if a <= match.start() < b), None)
        if inside is None:
            plain.append((match.start(), word))
            said = match.group(0)
            if (
                said[0].isupper()
                and (text[: match.start()].strip() or _IDENTIFIER.match(said))
                and said.lower() not in LITERALS
            ):
                proper[match.start()] = said.lower()
        else:
            coded.setdefault(inside, []).append(word)
    starts = [start for start, _word in plain]
    out = []
    for position, value in found:
        # The words around a value say what it is a value of: the plain words before and
        # after it (never another value's code: ``schema.yml`` beside `analytics/dbt/`
        # is not about dbt), and for a value inside a command, the command's other words.
        end = whole.get(position, position + len(value.shown))
        first, last = bisect_left(starts, position), bisect_left(starts, end)
        window = plain[max(0, first - _BEFORE) : first] + plain[last : last + _AFTER]
        around = {stem for _start, word in window for stem in word}
        own = frozenset(content_stems(value.shown))
        if position in whole and value.kind != "command":
            # a value inside code: the code's other words too (`curl localhost:9200/x`)
            its_words = coded.get(position) or [word for _start, word in plain[first:last]]
            around.update(stem for word in its_words for stem in word if stem not in own)
        near = [stem for _start, word in plain[max(0, first - 3) : first] for stem in word]
        named = frozenset(proper[start] for start, _word in window if start in proper)
        lead = text[max(0, position - 60) : end]
        tail = _TAIL.match(text[end:])
        changed = bool(_CHANGE.search(lead) or (tail and _CHANGE_AFTER.search(tail.group(0))))
        # The value was made just now by a reader and is not shared yet: filled in place.
        # "`memory.x` sits at the repo root": a file there, whatever it was read as
        if (
            value.kind in ("path", "name")
            and _BARE_FILE.fullmatch(value.shown)
            and AT_ROOT.match(text, end)
        ):
            value.kind, value.norm = "path", root_path(value.shown)
        value.stems, value.near, value.own = frozenset(around), tuple(near[-3:]), own
        # (a name a reader gave it stays: the thing a setting is said on, ``reports``)
        value.changed, value.named = changed, named | value.named
        out.append(value)
    return tuple(out)


def changes(text: str) -> bool:
    """Whether a text says something is a new state ("moved to", "now", "switched")."""
    return _CHANGE.search(text) is not None


# A few words after a value, up to where its sentence part ends: "60 minutes now".
_TAIL = re.compile(r"[^.,;:()`]{0,30}")
# Words that say a value is the new state of a thing: "moved to 5173", "60 minutes now".
_CHANGE = re.compile(
    r"\b(?:now|moved?|switch(?:ed)?|chang(?:ed|es)?|since|no\s+longer|instead|replac(?:ed|es)"
    r"|raised|lowered|bump(?:ed)?|upgraded?|downgraded?|migrat(?:ed|ion)|renamed|updated"
    r"|reduced|increased|anymore|used\s+to|from\s+now)\b",
    re.IGNORECASE,
)


# Of those, the ones that say so after the value: "60 minutes now", "`make up` instead";
# "to test just what changed" after a command says nothing of the command.
_CHANGE_AFTER = re.compile(
    r"\b(?:now|instead|anymore|since|from\s+now|these\s+days|going\s+forward)\b", re.IGNORECASE
)


# A file's name without its folder, or a folder's with its slash: ``memory.x``,
# ``config.py``, ``seeds/``.
_BARE_FILE = re.compile(r"[A-Za-z_][\w-]*\.[A-Za-z]\w{0,7}|[A-Za-z_][\w.-]*/")
_WORD_AT = re.compile(r"[A-Za-z][A-Za-z0-9_'\u2019-]*[A-Za-z0-9]|[A-Za-z]")
# The words around a value that say what it is a value of: this many content words
# before it, and after it.
# A capitalised word that is an identifier, a name even as a sentence's first word:
# ``TRANSFORM_WH``, ``BI_WH``.
_IDENTIFIER = re.compile(r"[A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9]$")
_BEFORE = 6
_AFTER = 4
