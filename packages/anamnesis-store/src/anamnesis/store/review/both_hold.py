"""Two differing values that both hold: a floor and a ceiling, a period and a delay, a
value the newer note states again for something else, values visibly of two things (the
``orders`` table and the ``customers`` table, the API's port and the database's, two
branches) or said for two scopes (production and staging, macOS and Linux, notes titled
"... on a laptop" and "... on the build farm"), an exception or a layer over the older
value ("the rest use the project setting", "on top of the pool"), two files that each
hold the value both notes agree on (the manifest's range and the version file's pin)."""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.review.agreement import agree
from anamnesis.store.review.alignment_by_context import key_stems, urls_alike
from anamnesis.store.review.clause_subjects import subjects_apart
from anamnesis.store.review.gone import left_behind
from anamnesis.store.review.reading.addresses import address_port
from anamnesis.store.review.reading.quantities import is_unit, rate_window
from anamnesis.store.review.reading.settings import switch_state
from anamnesis.store.review.reading.stances import VERBS
from anamnesis.store.review.reading.text import (
    CODE_SPAN,
    GENERIC,
    MAX_CHARS,
    STRONG_SCOPES,
    content_stems,
    scopes,
    words,
)

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value


def floor_and_ceiling(older: NoteFacts, a: Value, newer: NoteFacts, b: Value) -> bool:
    """Whether one number is said as a floor and the other as a ceiling, by the words
    of its clause and its note's title (``minReplicas`` and ``maxReplicas``, "the
    timelock's minimum delay" and "the longest delay allowed"), or one as a limit on
    idling and the other as a ceiling however busy ("30 minutes idle" and "at most 10
    hours", ``ssoSessionMaxLifespan``): both hold."""
    mine = f"{older.title} {older.clause(a.clause).text}"
    theirs = f"{newer.title} {newer.clause(b.clause).text}"
    floor_mine, ceiling_mine = bool(_FLOOR.search(mine)), bool(_CEILING.search(mine))
    floor_theirs, ceiling_theirs = bool(_FLOOR.search(theirs)), bool(_CEILING.search(theirs))
    idle_mine, idle_theirs = bool(_IDLE.search(mine)), bool(_IDLE.search(theirs))
    return (
        (floor_mine and ceiling_theirs and not ceiling_mine and not floor_theirs)
        or (ceiling_mine and floor_theirs and not floor_mine and not ceiling_theirs)
        or (idle_mine and ceiling_theirs and not idle_theirs and not ceiling_mine)
        or (idle_theirs and ceiling_mine and not idle_mine and not ceiling_theirs)
    )


_FLOOR: Final = re.compile(
    r"\b(?:min(?:imum)?|floor|lowest|at\s+least|never\s+(?:goes\s+)?below)\b|\bmin[A-Z_]",
)
_CEILING: Final = re.compile(
    r"\b(?:max(?:imum)?|ceiling|cap(?:ped)?|highest|longest|at\s+most|upper\s+bound"
    r"|lifespan|absolute)\b|\bmax[A-Z_]|\bMAX_|[a-z]Max[A-Z]",
)
# What limits only a wait with nothing happening, not a whole span.
_IDLE: Final = re.compile(r"\b(?:[Ii]dle|[Ii]dling|[Ii]nactiv(?:e|ity))\b|[a-z_]Idle[A-Z]|_IDLE_")


def two_windows(older: NoteFacts, a: Value, newer: NoteFacts, b: Value) -> bool:
    """Whether two rates are counted over two windows ("60 per minute" and "5000 a
    day"): a burst limit and a quota, both held (the same rate in two windows agrees
    already: 60 a minute is 3600 an hour). Two windows are as far apart as a day and a
    week at least (:data:`_APART`): "100 per 6 hours" and "10 per hour" are one limit
    said twice, and "a minute" and "any 60 s window" one window."""
    if a.slot != "/s" or b.slot != "/s":
        return False
    mine = _window(older.clause(a.clause).text, a.shown)
    theirs = _window(newer.clause(b.clause).text, b.shown)
    return bool(mine and theirs and max(mine, theirs) >= _APART * min(mine, theirs))


def period_and_span(older: NoteFacts, a: Value, newer: NoteFacts, b: Value) -> bool:
    """Whether one duration is a period, said after "every" ("a reminder every 7 days"),
    and the other a delay, said after "after" ("envelopes expire after 90 days"): how
    often something repeats is no rival of how long until something happens once, both
    hold. (A period against an interval said otherwise, "every 100 ms" and "the interval
    to 500 ms", is one period.)"""
    if a.slot != "s" or b.slot != "s":
        return False
    mine = _said_before(older.clause(a.clause).text, a.shown)
    theirs = _said_before(newer.clause(b.clause).text, b.shown)
    return bool(
        (_PERIOD.search(mine) and _DELAY.search(theirs))
        or (_DELAY.search(mine) and _PERIOD.search(theirs))
    )


# What a period's number is said after ("every 7 days", "each 30 s"), and a delay's
# ("after 90 days").
_PERIOD: Final = re.compile(r"\b(?:every|each)\s+(?:other\s+)?$", re.IGNORECASE)
_DELAY: Final = re.compile(r"\bafter\s+$", re.IGNORECASE)


def _said_before(text: str, shown: str) -> str:
    """The text just before a value's first mention ("" when it is not found as shown)."""
    at = text.find(shown)
    return "" if at == -1 else text[:at]


# How many times longer one window must be than the other to be another window.
_APART: Final = 7


def _window(text: str, shown: str) -> float | None:
    """How long the window a rate is counted over lasts, in seconds, as said after its
    number ("a minute" and "in any 60 s window" are one window); None when the text does
    not say."""
    at = text.find(shown)
    return None if at == -1 else rate_window(text[at + len(shown) :])


def restated(a: Value, news: list[Value], newer: NoteFacts) -> bool:
    """Whether the newer note states the older value too, as a fact of today rather than
    what it changed from: a number, version or port said again for something else ("800
    is only for the nightly jobs"), not in the past ("six primaries was oversharded",
    "9200 collided with the old container"), nor as what was given up to another thing
    ("the docs server also wants 4173": :func:`.gone.left_behind`)."""
    return a.kind in ("number", "version", "port") and any(
        other.norm == a.norm
        and same_slot(other, a)  # ``async_insert=1`` restates no ``wait_for_async_insert=1``
        and not _counts_another(other, a)  # ``major_version = 15``: not "the 15 clients"
        and said_today(other, newer)
        and not _what_it_did(other, newer)  # "with 40 the carts overflowed"
        and not newer.avoids(other)  # "nothing listens on 1883 anymore"
        and not left_behind(other, newer)  # "the docs server also wants 4173, so ..."
        for other in news
    )


def port_restated(a: Value, b: Value, news: list[Value], older: NoteFacts) -> bool:
    """Whether the older address's port is one the newer note states as a port of its own
    beside another address, said after a word the older note names its thing by and the
    newer address is not said after ("Schema registry at `http://localhost:8081`", then
    "kafka-ui runs on `http://localhost:8080`, schema registry stays on 8081"): the older
    address still holds, the newer is another thing's. ("4200 is the Angular dev server"
    names another thing on the older port.)"""
    port = address_port(a)
    if not port or address_port(b) == port:
        return False
    thing = (older.title_stems | older.clause(a.clause).stems) - set(b.near) - _ADDRESS_WORDS
    return any(
        other.kind == "port" and other.norm == port and not thing.isdisjoint(other.near)
        for other in news
    )


# Words said of any address, which name no thing of their own: "the dev server on 4200".
_ADDRESS_WORDS: Final = frozenset(
    {"server", "servic", "port", "http", "https", "url", "host", "local", "localhost", "api",
     "open", "start", "run", "dev"}
)  # fmt: skip


def _what_it_did(value: Value, facts: NoteFacts) -> bool:
    """Whether the note says what ``value`` did, a verb in the past a few words after it
    ("15s hammered the upstream", "with 40 the pickers' carts overflowed"), or that it
    fails ("activation on 7.4 fails"): what it was or what breaks, not what holds (a
    participle after "is" or "gets" is no past: "8 is reserved")."""
    text = facts.clause(value.clause).text
    at = text.find(value.shown)
    if at == -1:
        return False
    end = at + len(value.shown)
    return _DID.match(text, end) is not None or _FAILS.match(text, end) is not None


# A verb in the past within a few words: not one said after "is", "are", "gets" (a
# state), nor one of the words that only say how a value is set or named.
_DID: Final = re.compile(
    r"[^.;:,()]{0,40}?(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bgets )(?<!\bget )"
    r"\b(?!(?:us|need|bas|call|nam|set|limit|capp|reserv|expect|configur|allow|requir|fix"
    r"|schedul|pinn|default|mount|expos|publish|map|forward)ed\b)[a-z]{2,}[^e\W]ed\b"
)

# That something fails, a few words on: "7.4 fails with a notice", "on 16 it breaks".
_FAILS: Final = re.compile(
    r"[^.;:,()]{0,24}?\b(?:fails?|breaks|crash(?:es)?|errors?\s+out"
    r"|(?:does|do)(?:\s+not|n[\u2019']t)\s+work|won[\u2019']t\s+(?:start|boot|build|run|load))\b"
)


def _counts_another(other: Value, a: Value) -> bool:
    """Whether a number said in prose counts a thing its setting's key does not name:
    "the 15 clients" restates no ``major_version = 15``."""
    if not a.keyed or other.keyed or not other.slot or other.slot.startswith("~"):
        return False
    return other.slot not in a.slot and not is_unit(other.slot.lstrip("/"))


def said_today(value: Value, facts: NoteFacts) -> bool:
    """Whether a note states ``value`` as a fact of today: not as a change, nor in a
    clause in the past (:data:`_PAST`)."""
    return not value.changed and not _PAST.search(facts.clause(value.clause).text)


# Words that put a clause in the past: what it says was true, not what is.
_PAST: Final = re.compile(
    r"\b(?:was|were|had|used\s+to|previously|before|earlier|originally|old|former|anymore"
    r"|no\s+longer)\b",
    re.IGNORECASE,
)


def one_value_in_two_files(
    a: Value, b: Value, old_values: list[Value], new_values: list[Value]
) -> bool:
    """Whether two paths are two files that each hold the value the notes agree on: the
    clause naming each file (or the one beside it: a parenthesis is a clause of its own)
    states a value the other's agrees with (``package.json`` allows Node ">=20",
    ``.nvmrc`` pins 22.11.0; ``config/sidekiq.yml`` and ``database.yml`` both size the
    pool 12). The files say where one fact is written, and both hold; a file that
    replaced the other is said as a change, and the caller asks this only without one."""
    mine = [x for x in old_values if x.kind in _HELD_KINDS and abs(x.clause - a.clause) <= 1]
    theirs = [y for y in new_values if y.kind in _HELD_KINDS and abs(y.clause - b.clause) <= 1]
    return any(same_slot(x, y) and agree(x, y) for x in mine for y in theirs)


# The kinds of value a file holds for a thing (a path, a command or a name is no value
# held in it).
_HELD_KINDS: Final = frozenset({"number", "version", "port", "url"})


def same_slot(a: Value, b: Value) -> bool:
    """Whether two values may be of one thing by what they are values of: not two keys,
    nor two numbers in two units (2 seconds of backoff is no count of attempts)."""
    if a.kind != b.kind:
        return False
    if a.kind == "number" and _unit(a) and _unit(b) and _unit(a) != _unit(b):
        return False
    return a.slot == b.slot or not (a.keyed and b.keyed)


def _unit(value: Value) -> str:
    """A number's unit, "" when it is keyed or only said after a word."""
    return "" if value.keyed or value.slot.startswith("~") else value.slot


# Stems that say where or how a value is set, not what it is of: "version in compose",
# "cluster nodes image tag" pin one image's version, not two things.
_WHERE_SET: Final = frozenset(
    {"version", "tag", "imag", "pin", "config", "configurat", "setting", "compos", "valu"}
)


def _not_where_set(stems: frozenset[str]) -> frozenset[str]:
    """Stems less those naming a config file, where a value is set ("tsconfig",
    "kubeconfig", "nginx.conf")."""
    return frozenset(word for word in stems if not word.endswith(("config", "conf")))


def other_things(
    a: Value, b: Value, older: NoteFacts, newer: NoteFacts, *, sole: bool = False
) -> bool:
    """Whether the two values are visibly of different things: each is said beside a word
    of its note's title that the other note never mentions (``orders`` table against
    ``customers`` table), or each beside a name the other never mentions (the API's HTTP
    port against the Postgres port), or the titles name one kind of thing with two words
    before it ("timeout for unit tests", "timeout for end-to-end tests"). ``sole``: each
    is its note's only address of a thing the titles share (:func:`.compare._sole_of_one_thing`),
    whose thing is named before it ("the PBS web interface is on port 8007"); a name after
    it is what it is reached with ("port 8883, TLS with the broker's CA"), no other thing."""
    # the project's and its tools' names are no thing of their own (every note of the
    # project may say them)
    tools = older.tool_stems | newer.tool_stems | {a.slot, b.slot} | _WHERE_SET
    if a.keyed and b.keyed:  # a key's own words ("strict mode" of ``strict``) name no other
        tools |= key_stems(a.slot) | key_stems(b.slot)
    titled = _only(
        _not_where_set((_said_with(older, a.clause) & older.title_stems) - tools),
        _not_where_set((_said_with(newer, b.clause) & newer.title_stems) - tools),
        older,
        newer,
    )
    return (
        titled
        or subjects_apart(a, b, older, newer)
        or (
            _only(_named_before(a, older), _named_before(b, newer), older, newer)
            if sole
            else _only(a.named, b.named, older, newer)
        )
        or (
            not _named_alike(a, b)
            and (
                qualified_apart(older.title, newer.title, older, newer, titles=True)
                or qualified_apart(
                    f"{older.title}. {older.clause(a.clause).text}",
                    f"{newer.title}. {newer.clause(b.clause).text}",
                    older,
                    newer,
                    heads=_SCOPE_HEADS,
                )
            )
        )
    )


def _named_before(value: Value, facts: NoteFacts) -> frozenset[str]:
    """The names around a value said before it in its clause (all of them when the clause
    does not show it as written)."""
    text = facts.clause(value.clause).text.lower()
    at = text.find(value.shown.lower())
    if at < 0:
        return value.named
    return frozenset(name for name in value.named if _said_as_word(name, text[:at]))


def _said_as_word(name: str, text: str) -> bool:
    """Whether ``name`` is a word of ``text`` (``ca`` is no word of "cache")."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None


# Things a project keeps several of side by side, each with its own settings: "the main
# branch" and "the stable branch", "the EU cluster" and "the US cluster".
_SCOPE_HEADS: Final = frozenset(
    {"branch", "environment", "cluster", "region", "plan", "tier", "channel", "tenant", "site"}
)


def _said_with(facts: NoteFacts, index: int) -> frozenset[str]:
    """The stems of a value's clause, and of its subject when a parenthesis cut the
    sentence before the verb ("The Room database (FieldnotesDb) | is at version 7"):
    the clause two before, the one a parenthesis came after."""
    stems = facts.clause(index).stems
    if index < 3 or not _NO_SUBJECT.match(facts.clause(index).text):
        return stems
    return stems | facts.clause(index - 2).stems


# A clause that opens with its verb: its subject was said before it.
_NO_SUBJECT: Final = re.compile(r"(?:is|are|was|were|has|have|stays|runs|listens|lives)\b")


def _named_alike(a: Value, b: Value) -> bool:
    """Whether two values name their thing alike themselves, whatever the titles call it
    ("motion limits", "speed limits"): set under one key of joined words
    (``max_velocity``), or two addresses of one service's name (:func:`.urls_alike`)."""
    if a.keyed and b.keyed and a.slot == b.slot and re.search(r"\w[_.]\w", a.slot):
        return True
    return a.kind == b.kind == "url" and urls_alike(a.norm, b.norm)


def _switched_for_two(older: NoteFacts, a: Value, newer: NoteFacts, b: Value) -> bool:
    """Whether two switches' states are said of two things: "Autoscaling is on for the
    API" and "off for the workers"; "`new_checkout` is on for internal users" and "off for
    everyone else". A state said for something (:data:`_QUALIFIER`, just after it), or
    while something happens (:data:`_WHILE`), that the other note never mentions is that
    thing's, beside the other's."""
    if a.kind != "flag" or switch_state(a.norm) is None or switch_state(b.norm) is None:
        return False
    return _qualified_alone(older, a, newer) or _qualified_alone(newer, b, older)


def _qualified_alone(facts: NoteFacts, value: Value, other: NoteFacts) -> bool:
    """Whether the value's state is said for something, or while something happens,
    that the other note never mentions ("for every role", "for the whole app": for
    everything, no one thing)."""
    text = facts.clause(value.clause).text
    state = value.shown.replace("=", " ").split()[-1]
    said = [_WHILE.match(text)]
    said += [
        _QUALIFIER.match(text, at.end())
        for at in re.finditer(rf"{_SAID_TO_BE}{re.escape(state)}\b", text, re.IGNORECASE)
    ]
    for qualifier in said:
        if qualifier is None or not _EVERY.isdisjoint(qualifier.group(0).lower().split()):
            continue
        words = [word for word in content_stems(qualifier.group("what")) if word not in GENERIC]
        if words and not any(other.mentions(word) for word in words):
            return True
    return False


# A state said in prose, as a thing's ("Autoscaling is on"), not a setting's (a purpose
# after ``PermitRootLogin yes for the rescue console``).
_SAID_TO_BE: Final = r"\b(?:is|are|stays?|remains?)\s+(?:now\s+|still\s+)?"
# While a state holds, opening its clause: "During the migration MAINTENANCE_MODE is on".
_WHILE = re.compile(
    r"(?i:during|while|until)\s+(?:the\s+)?(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)"
)
# What a state is said for, just after it: "for the API", "for internal users".
_QUALIFIER = re.compile(
    r"\s+(?:for|except)\s+(?:(?:the|all|every|each|any|our)\s+)?(?P<what>[\w-]+(?:\s+[\w-]+)?)",
    re.IGNORECASE,
)
# Words that make a qualifier say "for everything": "for every role", "the whole app".
_EVERY: Final = frozenset(
    {"all", "every", "each", "any", "everyone", "everybody", "everything", "anyone", "whole",
     "entire"}
)  # fmt: skip


def other_scopes(older: NoteFacts, a: Value, newer: NoteFacts, b: Value, changed: bool) -> bool:
    """Whether two values are said for different scopes (:func:`scoped_apart`), or in
    notes titled for two scopes, each one the other note never mentions, whatever the
    values' own words ("master key in production" with ``MEILI_ENV=production``, "master
    key locally" with ``MEILI_ENV=development``); or, the newer not said as a change, for
    two places or cases, as an exception, a layer over the older, or one more beside it
    ("Sessions also end 24 hours after login")."""
    if _switched_for_two(older, a, newer, b):
        return True
    titled_mine, titled_theirs = scopes(older.title), scopes(newer.title)
    if (
        titled_mine
        and titled_theirs
        and titled_mine - newer.scopes
        and titled_theirs - older.scopes
    ):
        return True
    if not changed and (
        titled_for_two_places(older, newer)
        or an_exception(older, b, newer)
        or layered_over(older, newer)
        or _said_besides(newer.clause(b.clause).text, b.shown)
    ):
        return True
    return scoped_apart(
        older.clause(a.clause).text,
        newer.clause(b.clause).text,
        older,
        newer,
        leaving=f"{a.shown} {b.shown}",
        # an address said for production, then one said for no scope: the address now (a
        # limit for admins beside the limit both hold; an address is seldom given for all
        # scopes beside production's)
        changed=changed or a.kind == "url",
    )


def titled_for_two_places(older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether the titles say one thing for two places or cases: the same words, the same
    word of place, then two others ("What CI runs on pull requests", "What CI runs on
    main"; "Running on the cluster", "Running on a laptop"), each of which the other
    note's prose never says (its code may: ``--base=origin/main`` is no case of its own).
    Each note holds its case's values, and both hold."""
    mine, theirs = _title_place(older.title), _title_place(newer.title)
    if mine is None or theirs is None or mine[:2] != theirs[:2] or not mine[0]:
        return False
    place_mine, place_theirs = mine[2], theirs[2]
    return (
        bool(place_mine and place_theirs)
        and place_mine.isdisjoint(place_theirs)
        and place_mine.isdisjoint(newer.prose_stems)
        and place_theirs.isdisjoint(older.prose_stems)
    )


@lru_cache(maxsize=4096)
def _title_place(
    title: str,
) -> tuple[frozenset[str], str, frozenset[str]] | None:
    """A title's words, its word of place and the words after it, as stems (None when it
    has no word of place). Cached: a note is compared with several, each value by value,
    and the pattern is slow on a long title."""
    found = _TITLE_PLACE.match(title)
    if found is None:
        return None
    return (
        frozenset(content_stems(found.group(1))),
        found.group(2).lower(),
        frozenset(content_stems(found.group(3))),
    )


# A title's words, a word that says where or for which case, and the rest: "What CI runs
# | on | pull requests".
_TITLE_PLACE: Final = re.compile(r"^(.*?\w.*?)\b(on|for|in|under|inside|via)\b(.*\w.*)$", re.I)


def an_exception(older: NoteFacts, b: Value, newer: NoteFacts) -> bool:
    """Whether the newer note gives its value as an exception to the older one's, which
    still holds: under a condition the older note never names ("With DEBUG = True a
    probe on the bench sleeps only 30 s"), or beside what the rest keep ("Only this
    spider; the rest use the project setting")."""
    if _the_rest_keep(newer.lower):
        return True
    condition = _CONDITION.match(newer.clause(b.clause).text)
    if condition is None or not _A_SETTING.search(condition.group(1)):
        return False  # "if `connect()` errors" is a case to diagnose, not a setting
    named = frozenset(content_stems(CODE_SPAN.sub(" ", condition.group(1))))
    return bool(named) and named.isdisjoint(older.prose_stems)


@lru_cache(maxsize=1024)
def _the_rest_keep(lower: str) -> bool:
    """Whether a note (in lower case) says the other cases keep their value (``_THE_REST``):
    read once a note, not once a pair of values."""
    return _THE_REST.search(lower) is not None


def layered_over(older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether the newer note says what it sets is a layer over what the older note's
    title names, which still holds beneath it: "per-project settings ... override the
    user config" (a note titled "User config file"), "`max_overflow=20` on top of the
    pool" (one titled "Loader connection pool"). A noun ("put local overrides in") or
    a layer over something else says nothing of the older note."""
    return any(not older.title_stems.isdisjoint(over) for over in _layered_over(newer.lower))


@lru_cache(maxsize=1024)
def _layered_over(lower: str) -> tuple[frozenset[str], ...]:
    """The stems of what a note (in lower case) says it is layered over (``_LAYERED``):
    read once a note, not once a pair of values."""
    return tuple(frozenset(content_stems(found.group(1))) for found in _LAYERED.finditer(lower))


# A value said to hold beside another, which still holds: "Sessions also end 24 hours
# after login" (beside "after 8 hours of inactivity").
_BESIDES: Final = re.compile(r"\b(?:also|in\s+addition|additionally)\b", re.IGNORECASE)
# Where a clause's parts meet: ", so", "; ", ", but", " because". A word of a part says
# nothing of a value in another part.
_PARTS: Final = re.compile(
    r"[;:]\s|,\s*(?:so|but|and|because|since|which|while|whereas)\b|\s(?:because|since)\s",
    re.IGNORECASE,
)


def _said_besides(text: str, shown: str) -> bool:
    """Whether the part of a clause holding a value says it holds beside another
    (:data:`_BESIDES`). The part only: in "Puma also wants 9292, so the preview starts on
    9393" the other is Puma's, and 9393 is the preview's only port."""
    at = text.lower().find(shown.lower())
    if at < 0:
        return _BESIDES.search(text) is not None
    cuts = [cut.span() for cut in _PARTS.finditer(text)]
    start = max((end for _start, end in cuts if end <= at), default=0)
    end = min((begin for begin, _end in cuts if begin >= at + len(shown)), default=len(text))
    part = text[start:end]
    return _BESIDES.search(part) is not None


# A layer over something, and the two words after it: what it is layered over.
_LAYERED: Final = re.compile(
    r"\b(?:overrides?|overriding|takes?\s+precedence\s+over|on\s+top\s+of|in\s+addition\s+to)"
    r"\s+(?:the|its|their|our|your)\s+([\w-]+(?:\s+[\w-]+)?)"
)
# What says the other cases keep their value: "the rest use", "every other job keeps".
_THE_REST: Final = re.compile(
    r"\b(?:the\s+rest|every(?:thing)?\s+else|all\s+(?:the\s+)?others?|every\s+other\s+\w+)"
    r"\s+(?:use|keep|stay|still|remain)"
)
# A clause opening with its condition, up to the comma or the value's words after it.
_CONDITION: Final = re.compile(
    r"\s*(?:with|when|if|while)\s+([^,;]{3,60}?)(?:,|\s+(?:a|an|the)\s)", re.I
)
# A condition that is a setting or a mode: "DEBUG = True", "bench mode", "tracing enabled".
_A_SETTING: Final = re.compile(r"\w\s*=\s*\w|\b(?:mode|enabled)\b", re.I)


def scoped_apart(
    mine: str, theirs: str, older: NoteFacts, newer: NoteFacts, *, leaving: str, changed: bool
) -> bool:
    """Whether two clauses (with their notes' titles) say their facts for two scopes, each
    one the other note never mentions: production and staging, macOS and Linux, the free
    plan and Pro; then both hold, whatever else changed. Or, when nothing says it changed,
    one is said for a scope its note's title names and the other for none (the upload
    limit for admins beside the upload limit). ``leaving``: the values' own words; the
    project's name is no scope either (``fieldnotes-android`` names no platform: every
    note of it may say it)."""
    leaving = f"{leaving} {older.memory.project.rsplit('/', 1)[-1]}"
    said_mine = scopes(f"{older.title} {mine}", leaving)
    said_theirs = scopes(f"{newer.title} {theirs}", leaving)
    # a scope is a whole word: "pro" is not in "project"
    # a note's own scopes (all its text) are read only for a clause that names one
    only_mine = said_mine - newer.scopes if said_mine else said_mine
    only_theirs = said_theirs - older.scopes if said_theirs else said_theirs
    if only_mine and only_theirs:
        return True
    if changed:
        return False
    return bool(
        (only_theirs & scopes(newer.title) & STRONG_SCOPES and not said_mine)
        or (only_mine & scopes(older.title) & STRONG_SCOPES and not said_theirs)
    )


def _only(mine: Iterable[str], theirs: Iterable[str], older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether each side has a word the other note never mentions (:meth:`.NoteFacts.
    mentions`)."""
    return any(not newer.mentions(word) for word in mine) and any(
        not older.mentions(word) for word in theirs
    )


def qualified_apart(
    mine: str,
    theirs: str,
    older: NoteFacts,
    newer: NoteFacts,
    *,
    titles: bool = False,
    heads: frozenset[str] | None = None,
) -> bool:
    """Whether the two clauses (``titles``: the two titles) name one kind of thing with a
    different word before it, each word one the other note never uses: ``feature``
    branches and ``release`` branches, the ``orders`` table and the ``customers`` table."""
    if titles and older.title_stems.isdisjoint(newer.title_stems):
        return False  # no kind of thing in common
    before_mine, before_theirs = _qualifiers(mine), _qualifiers(theirs)
    for head, word in before_mine.items():
        if heads is not None and head not in heads:
            continue  # only a kind of thing kept side by side
        other = before_theirs.get(head)
        if not word or not other or other == word:
            continue
        if _proper_name(word, head, older) or _proper_name(other, head, newer):
            continue  # "Active Job": a product's name, not a kind of job
        # two identifiers titling one kind of thing name two things, whatever else the
        # other note says of them ("warehouse_load schedule", "events_compact schedule",
        # the newer running "after warehouse_load has finished")
        said_mine = newer.title.lower() if titles and _named(word, other) else newer.lower
        said_theirs = older.title.lower() if titles and _named(word, other) else older.lower
        if not re.search(rf"\b{re.escape(word)}", said_mine) and not re.search(
            rf"\b{re.escape(other)}", said_theirs
        ):
            return True
    return False


def _proper_name(word: str, head: str, facts: NoteFacts) -> bool:
    """Whether a note writes ``word`` and the word of stem ``head`` after it as one
    capitalised name inside a sentence ("storefront's Active Job adapter"): a product's
    name, not a kind of thing with a word before it."""
    name = re.compile(rf"[^\s.!?]\s+{re.escape(word.capitalize())}\s+([A-Z]\w*)")
    for match in name.finditer(facts.memory.body[:MAX_CHARS]):
        if content_stems(match.group(1))[:1] == [head]:
            return True
    return False


def _named(*words: str) -> bool:
    """Whether each word is an identifier of parts (``warehouse_load``, ``orders.v2``),
    which names one thing, as an adjective does not."""
    return all(_IDENTIFIER.fullmatch(word) for word in words)


_IDENTIFIER: Final = re.compile(r"[a-z][a-z0-9]*(?:[_.-][a-z0-9]+)+")


# Words that negate what follows them, or say how much of it: no kind of the thing they
# stand before.
_NOT_A_KIND: Final = frozenset(
    """
    no not never don't dont doesn't doesnt isn't aren't won't can't cannot mustn't
    shouldn't without avoid stop stopped whole full entire complete
    """.split()  # noqa: SIM905 - a word list reads best as words
)


@lru_cache(maxsize=4096)
def _qualifiers(text: str) -> dict[str, str]:
    """Each content word's stem, with the content word just before its first use (lower
    case; "" when none is: "the export job" is not qualified by a later "30M-row
    export"). A number qualifies nothing, nor does a word that says not to ("geomkit
    never throws" names no kind of throwing beside "invalid input throws") or how much
    ("the full test suite" is "the entire test suite")."""
    out: dict[str, str] = {}
    previous = ""
    copula = False
    told = False  # the word before tells not to: this one is what not to do, a verb
    for at, word in enumerate(words(CODE_SPAN.sub(" ", text))):
        stems = content_stems(word)
        lower = word.lower().replace("\u2019", "'")
        if not stems or lower in _NOT_A_KIND or (at == 0 and _doing(lower, stems[0])):
            previous = ""
            copula = lower in _COPULAS
            told = lower in _TOLD_NOT
            continue
        out.setdefault(stems[0], previous)
        # "files are encrypted client-side": a participle after "are" says how, no kind;
        # "never point tests at ...": "point" is no kind of tests
        passive = copula and lower.endswith("ed")
        previous = "" if word[0].isdigit() or passive or told else lower
        copula = told = False
    return out


def _doing(word: str, stem_: str) -> bool:
    """Whether a text's first word says what is done, not a kind of thing: "Running
    migrations" is about migrations, as "DB migrations" is (not "running" containers
    against stopped ones, which a title does not open with)."""
    return word.endswith("ing") and stem_ in VERBS


_COPULAS: Final = frozenset({"is", "are", "was", "were", "be", "been", "being", "get", "gets"})
# Words that tell not to do what the next word says: "never point tests at ...". (Not
# "stopped", which tells what happened: "stopped opening PRs" is kept as written.)
_TOLD_NOT: Final = frozenset(
    """
    never not don't dont doesn't doesnt won't can't cannot mustn't shouldn't avoid
    """.split()  # noqa: SIM905 - a word list reads best as words
)
