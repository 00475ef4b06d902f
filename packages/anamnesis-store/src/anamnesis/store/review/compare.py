"""How two notes differ: the values each states for the same thing, the things one says
not to do or says are gone while the other states them.

Values are paired kind by kind, the best-matched pairs first: a value with a slot (a
setting's key, a flag, a version's tool) pairs only with a value of the same slot; a
number pairs with one in the same unit said among two of the same words; a port, path,
URL, command or name pairs with one said among enough of the same words (:data:`_THRESHOLD`;
a name beside the same words). A pair that states the same value agrees (so do a value
inside the other's range, a minimum and a maximum, a path under the other, a command
inside the other, 3.11 and 3.11.4); the rest differ, unless the older note states the
newer value as well (a name: anywhere in it), or the two values are visibly of different
things (the ``orders`` table against the ``customers`` table) in a newer note that says
nothing changed. An older command the newer note says fails or is of the past ("plain
`torchrun` runs out of memory") is one task with the newer note's command, whatever their
words (:func:`.commands.retired_in`). Values no rule of their kind aligns may still be
of one thing by the words around both (:mod:`.alignment_by_context`); a value the newer
note names only to say it is gone ("nothing listens on 1883 anymore") is given up, and
what the newer note states instead is its new value (:func:`_given_up`). Whether two
values can both hold is :mod:`.agreement`'s.

A negation or a retirement (:mod:`.stances`) differs from the other note when that note
states what it turns against, in a clause of its body that is not itself negated, and
does not take the same stance.
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.review.agreement import agree, one_quantity
from anamnesis.store.review.alignment_by_context import (
    context_alignment,
    name_shape,
    one_value,
    same_key,
)
from anamnesis.store.review.commands import program_of, retired_in, task_words, tool_of
from anamnesis.store.review.quantities import is_unit
from anamnesis.store.review.records import DIFFERENCE_KINDS, Difference
from anamnesis.store.review.stances import DIRECTIVE, NEGATION, head_stems
from anamnesis.store.review.text import (
    CODE_SPAN,
    KIND_WORDS,
    SCOPE_WORDS,
    STRONG_SCOPES,
    content_stems,
    scopes,
    stem,
    words,
)
from anamnesis.store.review.value import KINDS
from anamnesis.store.review.values import changes

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

    from anamnesis.store.review.facts import NoteFacts
    from anamnesis.store.review.stances import Stance
    from anamnesis.store.review.text import Clause
    from anamnesis.store.review.value import Value


# How many words two clauses must share for their values to be about the same thing,
# by kind (a name or a command needs more: they are everywhere).
_THRESHOLD: Final = {
    "number": 1.5, "version": 2.0, "port": 1.0, "path": 1.0, "url": 1.0, "flag": 1.0,
    "command": 1.5, "name": 2.0,
}  # fmt: skip
_SHOWN_CHARS: Final = 80
# How many words, beside the project's and tools' names, two values of
# :data:`_TITLED_KINDS` must share when the titles share nothing else.
_THRESHOLD_BEYOND_TOOLS: Final = 1.5
# The one URL of each of two notes whose titles share a word is the one address of one
# thing, however differently the sentences around them read (a note rarely holds an
# address it is not about); a path or a command may be anything.
_SOLE_KINDS: Final = frozenset({"url"})
# Kinds a note holds many of, for many things (a note on running the workers and one on
# translating subjects both show commands and flags): two such values, without a setting's
# key, are about the same thing only in notes whose titles share a word. Measured on the
# devmemory corpus: 75 candidate pairs among its 300 notes without this rule, most of them
# two tasks' commands.
_TITLED_KINDS: Final = frozenset({"command", "flag", "name", "path"})


def differences(older: NoteFacts, newer: NoteFacts) -> tuple[Difference, ...]:
    """How ``newer`` disagrees with ``older`` (empty: no sign that it does), each kind
    in :data:`.records.DIFFERENCE_KINDS` order, each difference once."""
    mine, theirs = older.relevant(newer), newer.relevant(older)
    found = [
        *_stance_differences(older, newer, mine, theirs),
        *_value_differences(older, newer, older.values(mine), newer.values(theirs)),
        *(
            _flag_set_differences(older.values(mine), newer.values(theirs))
            if (older.subject_stems & newer.subject_stems)
            - older.tool_stems
            - newer.tool_stems  # see _TITLED_KINDS
            else ()
        ),
    ]
    # One line for one change: a value or a clause the older note says is given once,
    # with the first (the best-matched) of what the newer says instead.
    unique: dict[tuple[str, str], Difference] = {}
    for difference in found:
        unique.setdefault((difference.kind, difference.old), difference)
    order = {kind: i for i, kind in enumerate(DIFFERENCE_KINDS)}
    return tuple(sorted(unique.values(), key=lambda d: order.get(d.kind, len(order))))


# -- values ------------------------------------------------------------------------------


def _value_differences(
    older: NoteFacts, newer: NoteFacts, old_values: list[Value], new_values: list[Value]
) -> list[Difference]:
    subject = older.subject_stems & newer.subject_stems
    titles = min(len(subject), 2) * 0.5
    # titles that share only the project's or a tool's name may be about two tasks
    tools = older.tool_stems | newer.tool_stems
    topics = len(subject - tools)
    topical = topics > 0
    title_changed = changes(newer.title)
    out: list[Difference] = []
    for kind in KINDS:
        olds = _keyed_over_said([value for value in old_values if value.kind == kind])
        news = _keyed_over_said([value for value in new_values if value.kind == kind])
        if not olds or not news:
            continue
        # an older command the newer note says fails or is of the past (commands.retired_in)
        if kind == "command":
            retired = _retired(olds, news, older, newer)
            if retired:
                news = [b for b in news if not _retiring_mention(b, olds, retired, newer)]
        else:
            retired, news = _given_up(olds, news, older, newer)
        ranked: list[tuple[float, bool, int, int]] = []
        sole = titles > 0 and len({v.norm for v in olds}) == 1 == len({v.norm for v in news})
        one_each = one_value(olds) and one_value(news)  # for the general alignment
        for i, a in enumerate(olds):
            for j, b in enumerate(news):
                changed = title_changed or b.changed or i in retired
                if kind == "name":
                    score = _name_alignment(a, b, olds, news, topics, changed=changed)
                else:
                    score = _alignment(
                        a, b, titles, sole=sole and kind in _SOLE_KINDS, topical=topical,
                        tools=tools,
                    )  # fmt: skip
                if score is None:
                    score = context_alignment(a, b, sole=one_each)
                if score is None and i in retired:
                    score = 0.5  # what the newer note runs instead, when nothing else says
                if score is None:
                    continue
                if kind == "name" and a.norm in SCOPE_WORDS and b.norm in SCOPE_WORDS:
                    continue  # "on the Mac", "on Linux servers": two scopes, not one's values
                same = agree(a, b)
                if same and kind in _LEFT_KINDS and not b.changed and _left(b, newer):
                    continue  # "8080 clashed with Trino": the older value, as what was left
                if (
                    not same
                    and kind == "command"
                    and not (
                        i in retired
                        or _one_task(a, b, tools)
                        or _titled_task(a, b, subject - tools)
                        or _task_of_title(b, older.title_stems - tools)
                    )
                ):
                    continue
                if not same and (
                    (kind == "number" and _floor_and_ceiling(older, a, newer, b))
                    or _other_scopes(older, a, newer, b, changed)
                    or (not changed and _other_things(a, b, older, newer))
                ):
                    continue
                if not same and not changed and _restated(a, news, newer):
                    continue  # "64 here; 800 is only for the nightly jobs": both hold
                ranked.append((-(score + (0.5 if same else 0.0)), not same, i, j))
        ranked.sort()
        used_old: set[int] = set()
        used_new: set[int] = set()
        for _score, differ, i, j in ranked:
            if i in used_old or j in used_new:
                continue
            used_old.add(i)
            used_new.add(j)
            a, b = olds[i], news[j]
            if not differ or any(
                agree(other, b)
                for other in olds
                if _same_slot(other, b) and not older.negated(older.clause(other.clause))
            ):
                continue  # the older note states the newer value too (not as one to avoid)
            if kind in ("name", "command") and any(agree(a, other) for other in news):
                continue  # the newer note still names the older one
            if kind == "name" and _named_in(b, older):
                continue  # the older note names the newer one too, where it is no value
            if kind == "command" and tool_of(a.norm) == tool_of(b.norm):
                continue  # the same command: its flags and values say what differs
            out.append(Difference(kind, _subject(a, b, older, newer), a.shown, b.shown))
    return out


# Kinds whose value a newer note names as what it left, by the words after it.
_LEFT_KINDS: Final = frozenset({"number", "port", "version"})
# What a value was left for, said right after it: "8080 clashed with", "3000 is taken by".
_LEFT_FOR = re.compile(
    r"^[`'\"]?\s*(?:\w+\s+){0,2}?(?:clash(?:ed|es)?|collid(?:ed|es)|conflict(?:ed|s)?"
    r"|(?:was|is|were|are)\s+(?:already\s+)?(?:taken|in\s+use|busy|occupied))\b",
    re.IGNORECASE,
)


def _left(value: Value, facts: NoteFacts) -> bool:
    """Whether the note says of ``value``, right after it, that it was given up: it
    clashed or collided with something, it is taken (:data:`_LEFT_FOR`)."""
    text = facts.clause(value.clause).text
    at = text.find(value.shown)
    return at != -1 and _LEFT_FOR.match(text[at + len(value.shown) :]) is not None


def _retired(olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts) -> set[int]:
    """The older note's commands (by index) that the newer note, giving commands of its
    own, says fail or are of the past (:func:`.commands.retired_in`): the newer gives
    the task's new way. A command the older note itself says not to run is retired by
    neither."""
    said = [clause.text for clause in newer.clauses]
    # a program names none of its commands alone where the newer note runs it too, or
    # the older note runs two tasks of it (`terraform init`, `terraform apply`)
    programs = [program_of(a.norm) for a in olds]
    shared = {
        p for p in programs if len({tool_of(a.norm) for a in olds if program_of(a.norm) == p}) > 1
    }
    running = frozenset(program_of(b.norm) for b in news) | shared
    return {
        i
        for i, a in enumerate(olds)
        if not older.negated(older.clause(a.clause))
        and retired_in(a.shown, said, running)
        and any(not agree(a, b) for b in news)
    }


def _given_up(
    olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> tuple[set[int], list[Value]]:
    """The older note's values (by index) that the newer note names only to say they are
    gone ("nothing listens on 1883 anymore", "we no longer pin 3.9"), and the newer
    note's values left once those mentions are set aside: what it states instead is the
    new value of the same thing, whatever words it is said among. A value the older note
    itself says not to use is given up by neither."""
    gone = [b for b in news if _said_gone(b, newer)]
    if not gone:
        return set(), news
    given_up = {
        i
        for i, a in enumerate(olds)
        if not older.negated(older.clause(a.clause)) and any(agree(a, b) for b in gone)
    }
    if not given_up:
        return set(), news
    left = [b for b in news if not (b in gone and any(agree(olds[i], b) for i in given_up))]
    return (given_up if left else set()), left


# What says a value is gone, said just before it ("nothing listens on", "no longer pins")
# or just after it ("1883 anymore", "8080 is gone"), within its part of the sentence.
_GONE_BEFORE = re.compile(
    r"\b(?:no\s+longer|nothing|nobody|never|stopped|dropped|removed|moved\s+(?:off|away\s+from)"
    r"|switched\s+(?:off|away\s+from)|migrated\s+(?:off|from)|instead\s+of|rather\s+than|took"
    r"|taken\s+by)\b[^.;,:]{0,30}$",
    re.IGNORECASE,
)
_GONE_AFTER = re.compile(
    r"^[`'\"]?[^.;,:]{0,25}?\b(?:anymore|any\s+more|no\s+longer|is\s+gone|was\s+removed"
    r"|was\s+dropped|(?:is|was|got|has\s+been)\s+deprecated|reached\s+(?:its\s+)?end[\s-]of[\s-]life"
    r"|is\s+(?:past\s+)?(?:eol|end[\s-]of[\s-]life))\b",
    re.IGNORECASE,
)


def _said_gone(value: Value, facts: NoteFacts) -> bool:
    """Whether the note names ``value`` to say it is gone (:data:`_GONE_BEFORE`,
    :data:`_GONE_AFTER`), not as a value it states."""
    text = facts.clause(value.clause).text
    at = text.find(value.shown)
    if at == -1:
        return False
    return bool(_GONE_BEFORE.search(text[:at]) or _GONE_AFTER.match(text[at + len(value.shown) :]))


def _retiring_mention(b: Value, olds: list[Value], retired: set[int], newer: NoteFacts) -> bool:
    """Whether a newer command only names a retired older one where it says it fails ("a
    bare `npx prisma generate` fails"): a mention, not a command the newer note runs."""
    said = [newer.clause(b.clause).text]
    return any(
        i in retired and agree(a, b) and retired_in(a.shown, said) for i, a in enumerate(olds)
    )


def _keyed_over_said(values: list[Value]) -> list[Value]:
    """A note's values of a kind, less a number said again in prose that the note also
    gives as a setting's (``errors.retry.delay.max.ms=30000`` "caps the wait at 30 s"):
    the setting's key says what it is of, so it is compared as that setting."""
    keyed = [value for value in values if value.kind == "number" and value.keyed]
    if not keyed:
        return values
    return [
        value
        for value in values
        if value.keyed or not any(one_quantity(setting, value) for setting in keyed)
    ]


def _floor_and_ceiling(older: NoteFacts, a: Value, newer: NoteFacts, b: Value) -> bool:
    """Whether one number is said as a floor and the other as a ceiling, by the words
    of its clause and its note's title (``minReplicas`` and ``maxReplicas``, "the
    timelock's minimum delay" and "the longest delay allowed"): both hold."""
    mine = f"{older.title} {older.clause(a.clause).text}"
    theirs = f"{newer.title} {newer.clause(b.clause).text}"
    floor_mine, ceiling_mine = bool(_FLOOR.search(mine)), bool(_CEILING.search(mine))
    floor_theirs, ceiling_theirs = bool(_FLOOR.search(theirs)), bool(_CEILING.search(theirs))
    return (floor_mine and ceiling_theirs and not ceiling_mine and not floor_theirs) or (
        ceiling_mine and floor_theirs and not floor_mine and not ceiling_theirs
    )


_FLOOR: Final = re.compile(
    r"\b(?:min(?:imum)?|floor|lowest|at\s+least|never\s+(?:goes\s+)?below)\b|\bmin[A-Z_]",
)
_CEILING: Final = re.compile(
    r"\b(?:max(?:imum)?|ceiling|cap(?:ped)?|highest|longest|at\s+most|upper\s+bound)\b"
    r"|\bmax[A-Z_]|\bMAX_",
)


def _restated(a: Value, news: list[Value], newer: NoteFacts) -> bool:
    """Whether the newer note states the older value too, as a fact of today rather than
    what it changed from: a number, version or port said again for something else ("800
    is only for the nightly jobs"), not in the past ("six primaries was oversharded",
    "9200 collided with the old container")."""
    return a.kind in ("number", "version", "port") and any(
        other.norm == a.norm
        and _same_slot(other, a)  # ``async_insert=1`` restates no ``wait_for_async_insert=1``
        and not other.changed
        and not _PAST.search(newer.clause(other.clause).text)
        and not newer.negated(newer.clause(other.clause))  # "nothing listens on 1883 anymore"
        for other in news
    )


# Words that put a clause in the past: what it says was true, not what is.
_PAST: Final = re.compile(
    r"\b(?:was|were|had|used\s+to|previously|before|earlier|originally|old|former|anymore"
    r"|no\s+longer)\b",
    re.IGNORECASE,
)


def _one_task(a: Value, b: Value, tools: frozenset[str]) -> bool:
    """Whether two commands can be one task's, the older and the newer way to do it: the
    newer one said as a change ("run `make up` instead", "now `uv sync`"); two programs
    whose commands share a word (`asdf install` and `mise install`, `npm run migrate` and
    `npx prisma migrate deploy`: :func:`.commands.task_words`) or are said after the same
    words ("start the local stack with"); one program's commands ending in the same
    subcommand (`docker build`, `docker buildx build`). Two subcommands of one program,
    or two programs with nothing in common, said without a change, are two tasks (`dbt
    test` and `dbt build`, `astro dev start` and `airflow dags trigger`). ``tools``: the
    words that name the project or a tool (:attr:`.facts.NoteFacts.tool_stems`), which
    say nothing of a task."""
    if b.changed:
        return True
    program = program_of(a.norm)
    if program == program_of(b.norm):
        # `docker build` and `docker buildx build`: the same last subcommand
        mine, theirs = tool_of(a.norm).split(), tool_of(b.norm).split()
        return len(mine) > 1 and len(theirs) > 1 and mine[-1] == theirs[-1]
    # or said after the same words: "start the local stack with `docker-compose up`"
    shared = not task_words(a.norm).isdisjoint(task_words(b.norm))
    return shared or len((set(a.near) & set(b.near)) - tools) >= 2


def _titled_task(a: Value, b: Value, topics: frozenset[str]) -> bool:
    """Whether two commands do the task both notes' titles name: one of them says a word
    the titles share ("Flashing a buoy", "Flash procedure": `west flash`), whatever
    program each runs. ``topics``: the titles' shared words, no tool's name among them."""
    return not topics.isdisjoint(task_words(a.norm) | task_words(b.norm))


def _task_of_title(b: Value, title: frozenset[str]) -> bool:
    """Whether the newer command does what the older note's title names ("Deploying the
    worker", then `wrangler deploy`): a word of the title among the command's task
    words."""
    return not title.isdisjoint(task_words(b.norm))


def _alignment(
    a: Value,
    b: Value,
    titles: float,
    *,
    sole: bool = False,
    topical: bool = True,
    tools: frozenset[str] = frozenset(),
) -> float | None:
    """How surely two values of a kind are about the same thing; None: they are not.
    ``sole``: each is its note's only value of the kind; ``topical``: the titles share
    a word that is not the project's or a tool's name (``tools``); else a value of
    :data:`_TITLED_KINDS` needs its newer side said as a change, or more of the same
    words around both than the tools' names. A number's unit is what it counts, not
    what it is of: "days" beside two durations says nothing of them."""
    if a.keyed and b.keyed and a.kind != "url":
        if not same_key(a, b):
            return None
        return 2.0 + len(a.stems & b.stems) + titles
    if titles == 0 and a.kind in _TITLED_KINDS:
        return None  # see _TITLED_KINDS
    if a.kind == "number":
        # a unit, or the word a number is said after: "10,000 records" and
        # "flush_records is 5000" count one thing
        if a.keyed != b.keyed or not a.slot or a.slot.lstrip("~") != b.slot.lstrip("~"):
            return None
    elif a.kind in ("version", "flag") and (a.keyed or b.keyed):
        return None
    if a.kind == "command":
        # a command is told by its own words too: `dbt run` and `dbt build` are one task's
        mine = a.stems | a.own
        theirs = b.stems | b.own
        shared: float = len(mine & theirs) + 0.5 * len(set(a.near) & set(b.near))
    else:
        around = a.stems & b.stems
        if a.kind == "number":
            around = frozenset(word for word in around if not is_unit(word))
        shared = len(around) - _kind_words(a, b) + 0.5 * len(set(a.near) & set(b.near))
    if shared < _THRESHOLD[a.kind] and not sole:
        return None
    if a.kind in _TITLED_KINDS and a.kind != "command" and not topical and not b.changed:
        # titles share only a tool's name: the words around both must say more than it
        # (two commands are held to one task by _one_task instead)
        beyond = len((a.stems & b.stems) - tools) + 0.5 * len((set(a.near) & set(b.near)) - tools)
        if beyond < _THRESHOLD_BEYOND_TOOLS:
            return None
    return shared + titles


def _kind_words(a: Value, b: Value) -> int:
    """The words two paths share that only say they are paths (``file``, ``folder``)."""
    return len(a.stems & b.stems & KIND_WORDS) if a.kind == "path" else 0


def _name_alignment(
    a: Value, b: Value, olds: list[Value], news: list[Value], subject: int, *, changed: bool
) -> float | None:
    """How surely two names are of the same thing (None: they are not). A name is told by
    what surrounds it, not by the words it shares with the other (``ingest.events.raw``
    and ``ingest.events.dlq`` are two topics), and only against a name of its shape
    (:func:`.alignment_by_context.name_shape`: ``Snowflake`` is no rival of ``default_args``):

    * said after the same words (``near``), in notes whose titles name one subject
      (``subject``: the shared subject words), or in any two notes when it is said after
      at least two of the same words and as a change ("scheduled by Airflow" against
      "now scheduled in Dagster");
    * each note's only name of its shape, in notes whose titles share a subject word,
      the newer said as a change (`master`, then "renamed: `main`");
    * each note's only product name or identifier, in notes whose titles share two
      subject words, said among a shared word (LaunchDarkly, then Unleash, for the BFF's
      feature flags; the topic `orders.created.v2`, then `orders-created`).
    """
    shape = name_shape(a)
    if name_shape(b) != shape:
        return None
    own = a.own | b.own
    near = set(a.near) & set(b.near)
    around = len((a.stems & b.stems) - own)
    titles = min(subject, 2) * 0.5
    if near and (subject or (len(near) >= 2 and changed)):
        shared = around + len(near)
        if shared >= _THRESHOLD["name"]:
            return shared + titles
    sole = subject > 0 and _sole(a, olds) and _sole(b, news)
    if sole and (changed or (shape != "env" and subject >= 2 and around)):
        return 1.0 + around + titles
    return None


def _named_in(value: Value, facts: NoteFacts) -> bool:
    """Whether a note names ``value`` anywhere, as a word ("Atlantis applies after
    approval": a sentence's first word is read as no name, yet names it)."""
    return re.search(rf"(?<![\w.-]){re.escape(value.norm)}(?![\w-])", facts.lower) is not None


def _sole(value: Value, values: list[Value]) -> bool:
    """Whether ``value`` is the only name of its shape among ``values``."""
    shape = name_shape(value)
    return all(other.norm == value.norm for other in values if name_shape(other) == shape)


def _same_slot(a: Value, b: Value) -> bool:
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


def _other_things(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether the two values are visibly of different things: each is said beside a word
    of its note's title that the other note never mentions (``orders`` table against
    ``customers`` table), or each beside a name the other never mentions (the API's HTTP
    port against the Postgres port), or the titles name one kind of thing with two words
    before it ("timeout for unit tests", "timeout for end-to-end tests")."""
    # the project's and its tools' names are no thing of their own (every note of the
    # project may say them)
    tools = older.tool_stems | newer.tool_stems | {a.slot, b.slot}
    titled = _only(
        (older.clause(a.clause).stems & older.title_stems) - tools,
        (newer.clause(b.clause).stems & newer.title_stems) - tools,
        older,
        newer,
    )
    return (
        titled
        or _only(a.named, b.named, older, newer)
        or _qualified_apart(older.title, newer.title, older, newer, titles=True)
    )


def _other_scopes(older: NoteFacts, a: Value, newer: NoteFacts, b: Value, changed: bool) -> bool:
    """Whether two values are said for different scopes (:func:`_scoped_apart`)."""
    return _scoped_apart(
        older.clause(a.clause).text,
        newer.clause(b.clause).text,
        older,
        newer,
        leaving=f"{a.shown} {b.shown}",
        changed=changed,
    )


def _scoped_apart(
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
    """Whether each side has a word the other note never mentions."""
    return any(word not in newer.lower for word in mine) and any(
        word not in older.lower for word in theirs
    )


def _subject(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> str:
    """What the two values are of, in the older note's words: a key, a flag or a tool;
    else the words the two titles share, then those around both values, and a number's
    unit ("dev server port", "webhook attempts")."""
    if a.keyed and a.slot == b.slot and a.slot:
        return a.slot
    picked: list[str] = []

    def pick(text: str, shared: frozenset[str]) -> None:
        for word in words(CODE_SPAN.sub(" ", text)):
            stems = content_stems(word)
            if stems and stems[0] in shared and word.lower() not in picked:
                picked.append(word.lower())

    if a.kind == "number":
        # The words just before both numbers name what they count ("access tokens are
        # valid for 60 minutes" against "access tokens live 15 minutes"), in their order; a
        # unit word there belongs to the number before, not to this one.
        spelled: dict[str, str] = {}
        for word in words(CODE_SPAN.sub(" ", older.clause(a.clause).text)):
            stems = content_stems(word)
            if stems:
                spelled.setdefault(stems[0], word.lower())
        for near in a.near:
            word = spelled.get(near, "")
            if word and near in b.near and not is_unit(near) and word not in picked:
                picked.append(word)
    if not picked:
        pick(older.title, older.title_stems & newer.title_stems)
        pick(older.clause(a.clause).text, a.stems & b.stems)
    picked = picked[:4]
    unit = a.slot.lstrip("/~") if a.kind == "number" else ""
    if unit and is_unit(unit):
        pass  # the values say it ("60 minutes")
    elif unit and not any(word.startswith(unit[:4]) for word in picked):
        picked.append(unit)
    elif a.kind in ("port", "url", "path") and a.kind not in picked:
        picked.append(a.kind)
    return " ".join(picked) or a.kind


# -- flags of one command ----------------------------------------------------------------


def _flag_set_differences(old_values: list[Value], new_values: list[Value]) -> list[Difference]:
    """A command whose flags the newer note gives without one the older gave
    (``go test -race`` against ``go test``; ``jest --runInBand`` against ``jest
    --maxWorkers=2``)."""
    old_flags = _flags_by_tool(old_values)
    new_flags = _flags_by_tool(new_values)
    new_tools = _tools(new_values) | set(new_flags)
    out: list[Difference] = []
    for tool, flags in sorted(old_flags.items()):
        if tool not in new_tools:
            continue
        given = new_flags.get(tool, {})
        dropped = [shown for name, shown in sorted(flags.items()) if name not in given]
        if not dropped:
            continue
        added = [shown for name, shown in sorted(given.items()) if name not in flags]
        out.append(Difference("flag", tool, " ".join(dropped), " ".join(added)))
    return out


def _flags_by_tool(values: list[Value]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for value in values:
        if value.kind == "flag" and " -" in value.slot:
            tool, _, name = value.slot.rpartition(" -")
            out.setdefault(tool, {}).setdefault(name, value.shown)
    return out


def _tools(values: list[Value]) -> set[str]:
    return {tool_of(value.norm) for value in values if value.kind == "command"}


# -- negations and replacements ----------------------------------------------------------


def _stance_differences(
    older: NoteFacts, newer: NoteFacts, mine: list[Clause], theirs: list[Clause]
) -> list[Difference]:
    """The newer note says not to do, or retires, what the older one states; or the older
    note said not to do what the newer one now says to do."""
    out: list[Difference] = []
    # the body's stances first: what they say is shown rather than the title's shorthand
    said_newer = sorted(newer.stances(theirs), key=lambda stance: stance.clause == 0)
    for stance in said_newer:
        if _shared(stance, older.stances(mine)):
            continue  # both notes say it: they agree
        clause = _states(older, mine, stance, directive=False)
        said = newer.clause(stance.clause).text
        if clause is not None and not _apart(clause.text, said, older, newer):
            target = _target(stance)
            out.append(
                Difference(stance.kind, target, _short(clause.text, stance), _short(said, stance))
            )
    for stance in older.stances(mine):
        if stance.kind != NEGATION or _shared(stance, newer.stances(theirs)):
            continue
        clause = _states(newer, theirs, stance, directive=True)
        said = older.clause(stance.clause).text
        if clause is not None and not _apart(said, clause.text, older, newer):
            out.append(
                Difference(
                    NEGATION, _target(stance), _short(said, stance), _short(clause.text, stance)
                )
            )
    return out


def _apart(mine: str, theirs: str, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether a clause of each note speaks of something else: for two scopes
    (:func:`_scoped_apart`), or of one kind of thing told apart by the word before it
    (:func:`_qualified_apart`)."""
    return _scoped_apart(mine, theirs, older, newer, leaving="", changed=True) or _qualified_apart(
        mine, theirs, older, newer
    )


def _qualified_apart(
    mine: str, theirs: str, older: NoteFacts, newer: NoteFacts, *, titles: bool = False
) -> bool:
    """Whether the two clauses (``titles``: the two titles) name one kind of thing with a
    different word before it, each word one the other note never uses: ``feature``
    branches and ``release`` branches, the ``orders`` table and the ``customers`` table."""
    if titles and older.title_stems.isdisjoint(newer.title_stems):
        return False  # no kind of thing in common
    before_mine, before_theirs = _qualifiers(mine), _qualifiers(theirs)
    for head, word in before_mine.items():
        other = before_theirs.get(head)
        if (
            word
            and other
            and other != word
            and not re.search(rf"\b{re.escape(word)}", newer.lower)
            and not re.search(rf"\b{re.escape(other)}", older.lower)
        ):
            return True
    return False


@lru_cache(maxsize=4096)
def _qualifiers(text: str) -> dict[str, str]:
    """Each content word's stem, with the content word just before its first use (lower
    case; "" when none is: "the export job" is not qualified by a later "30M-row
    export"). A number qualifies nothing."""
    out: dict[str, str] = {}
    previous = ""
    for word in words(CODE_SPAN.sub(" ", text)):
        stems = content_stems(word)
        if not stems:
            previous = ""
            continue
        out.setdefault(stems[0], previous)
        previous = "" if word[0].isdigit() else word.lower()
    return out


def _shared(stance: Stance, others: list[Stance]) -> bool:
    """Whether the other note says the same: a stance of the kind about the same thing."""
    key = set(stance.stems[:4])
    need = 1 if len(key) <= 1 else 2
    return any(
        other.kind == stance.kind
        and (set(stance.code) & set(other.code) or len(key & set(other.stems)) >= need)
        for other in others
    )


def _states(
    facts: NoteFacts, chosen: list[Clause], stance: Stance, *, directive: bool
) -> Clause | None:
    """The clause among ``chosen`` that states what ``stance`` turns against, not negated
    itself (and, with ``directive``, saying to do it); None when no clause does.

    A clause states it when it names the stance's code (or the stance names the clause's
    code: "the make proto target" names `make proto`), or holds its first word and another
    of its first four (the first alone, for a target of one word); or, over the clauses
    together, when they hold two of its words and a clause holds the first."""
    key = set(stance.stems[:4])
    need = 1 if len(key) <= 1 else 2
    target = stance.target.lower()
    heads = head_stems(stance)
    # A title names a subject, it states nothing (unless it is all there is).
    stated = [clause for clause in chosen if not clause.is_title] or chosen
    usable = [
        clause
        for clause in stated
        if not facts.negated(clause) and (not directive or clause.stems & DIRECTIVE)
    ]
    for clause in usable:
        lower = clause.text.lower()
        if any(code and code in lower for code in stance.code):
            return clause
        if any(_names(code, target, heads) for code in facts.code(clause)):
            return clause
        if key and len(key & clause.stems) >= need and not heads.isdisjoint(clause.stems):
            return clause  # the thing it is about first ("never paste tokens" is not "jwt")
    if len(key) >= 2 and stance.stems:
        together = frozenset().union(*(clause.stems for clause in usable)) if usable else set()
        if len(key & together) >= 2:
            for clause in usable:
                if not heads.isdisjoint(clause.stems):
                    return clause
    return None


def _names(code: str, target: str, heads: frozenset[str]) -> bool:
    """Whether a stance's target names a clause's code: a command or an identifier in it
    ("the make proto target" names `make proto`); a plain word in code only as what the
    stance is about first (the `email` attribute is not "render emails")."""
    if len(code) <= 2 or code not in target:
        return False
    return not code.isalpha() or stem(code) in heads


def _target(stance: Stance) -> str:
    return stance.target.replace("`", "").strip()


def _short(text: str, stance: Stance) -> str:
    """A clause as a pair shows it: whole words, at most :data:`_SHOWN_CHARS` characters,
    around what the stance is about when the clause is longer."""
    text = " ".join(text.split())
    if len(text) <= _SHOWN_CHARS:
        return text
    lower = text.lower()
    at = min(
        (lower.find(probe) for probe in (*stance.code, *stance.stems) if probe and probe in lower),
        default=0,
    )
    start = max(0, min(at - _SHOWN_CHARS // 3, len(text) - _SHOWN_CHARS + 2))
    if start:
        start = text.find(" ", start) + 1 or start
    shown = text[start:]
    if len(shown) > _SHOWN_CHARS - (1 if start else 0):
        shown = shown[: _SHOWN_CHARS - 2].rsplit(" ", 1)[0] + "\u2026"
    return ("\u2026" if start else "") + shown
