"""How two notes differ: the values each states for the same thing, and what one says
to do that the other says not to (:mod:`.stance_differences`).

Values are paired kind by kind, the best-matched pairs first: a value with a slot (a
setting's key, a flag, a version's tool) pairs only with a value of the same slot; a
number pairs with one in the same unit said among two of the same words; a port, path,
URL, command or name pairs with one said among enough of the same words (:data:`_THRESHOLD`;
a name beside the same words). A pair that states the same value agrees (so do a value
inside the other's range, a minimum and a maximum, a path under the other, a command
inside the other, 3.11 and 3.11.4: :mod:`.agreement`); the rest differ, unless the older
note states the newer value as well (a name: anywhere in it), or the two values both hold
(:mod:`.both_hold`: a floor and a ceiling, two things, two scopes). An older command the
newer note says fails or is of the past ("plain `torchrun` runs out of memory") is one
task with the newer note's command, whatever their words; a value the newer note names
only to say it is gone ("nothing listens on 1883 anymore") is given up, and what the
newer note states instead is its new value (:mod:`.gone`). Values no rule of their kind
aligns may still be of one thing by the words around both (:mod:`.alignment_by_context`).
"""

from __future__ import annotations

import logging
import re

from anamnesis.store.review.agreement import (
    agree,
    floor_and_ceiling_of,
    one_quantity,
    states,
)
from anamnesis.store.review.alignment_by_context import (
    COMMON_FOLDERS,
    FEW_OF_A_TYPE,
    GENERIC_KEY_WORDS,
    context_alignment,
    file_type,
    folders,
    key_of,
    name_shape,
    of_few,
    one_setting,
    one_value,
    paths_alike,
    same_key,
)
from anamnesis.store.review.both_hold import (
    floor_and_ceiling,
    one_value_in_two_files,
    other_scopes,
    other_things,
    period_and_span,
    port_restated,
    restated,
    said_today,
    same_slot,
    titled_for_two_places,
    two_windows,
)
from anamnesis.store.review.gone import (
    LEFT_KINDS,
    left_behind,
    names_a_former,
    retired_commands,
    retiring_mention,
    said_as_former,
    values_given_up,
)
from anamnesis.store.review.names_renamed import (
    named_in,
    named_settings,
    one_kind_named,
    renamed,
    said_as_word,
    sole_of_shape,
    titled_apart,
    titled_identifiers,
)
from anamnesis.store.review.periods import one_period_each
from anamnesis.store.review.reading.commands import command_tool, program_of, task_words, tool_of
from anamnesis.store.review.reading.prose_names import BRANCH
from anamnesis.store.review.reading.quantities import is_unit, key_words
from anamnesis.store.review.reading.stances import NEGATION, REPLACEMENT
from anamnesis.store.review.reading.text import (
    CODE_SPAN,
    KIND_WORDS,
    SCOPE_WORDS,
    content_stems,
    stem,
    words,
)
from anamnesis.store.review.reading.tool_names import ROLE_ONLY_NAMES
from anamnesis.store.review.reading.value import KINDS
from anamnesis.store.review.reading.values import changes
from anamnesis.store.review.records import DIFFERENCE_KINDS, Difference
from anamnesis.store.review.settings_in_words import setting_in_words
from anamnesis.store.review.stance_differences import stance_differences
from anamnesis.store.review.tools_of_one_role import (
    of_one_role,
    one_role_of,
    programs_of_one_role,
)

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.text import Clause
    from anamnesis.store.review.reading.value import Value


# How many words two clauses must share for their values to be about the same thing,
# by kind (a name or a command needs more: they are everywhere).
_THRESHOLD: Final = {
    "number": 1.5, "version": 2.0, "port": 1.0, "path": 1.0, "url": 1.0, "flag": 1.0,
    "command": 1.5, "name": 2.0,
}  # fmt: skip
# How many words, beside the project's and tools' names, two values of
# :data:`_TITLED_KINDS` must share when the titles share nothing else.
_THRESHOLD_BEYOND_TOOLS: Final = 1.5
# The one URL, port or path of each of two notes whose titles share a word is the one
# address, port or file of one thing, however differently the sentences around them read
# (a note rarely holds an address it is not about): see :func:`_sole_of_one_thing`. A
# number, a name or a command may be anything.
_SOLE_KINDS: Final = frozenset({"url", "port", "path"})
# Kinds a note holds many of, for many things (a note on running the workers and one on
# translating subjects both show commands and flags): two such values, without a setting's
# key, are about the same thing only in notes whose titles share a word. Measured on the
# devmemory corpus: 75 candidate pairs among its 300 notes without this rule, most of them
# two tasks' commands.
_TITLED_KINDS: Final = frozenset({"command", "flag", "name", "path"})


def differences(older: NoteFacts, newer: NoteFacts) -> tuple[Difference, ...]:
    """How ``newer`` disagrees with ``older`` (empty: no sign that it does), each kind
    in :data:`.records.DIFFERENCE_KINDS` order, each difference once.

    The rules read any text a person or an agent wrote; a rule that fails on one pair
    costs that pair, not a review nor a write's reply: the failure is logged with both
    notes' ids, and the pair read as no sign."""
    try:
        return _differences(older, newer)
    except Exception:  # see above: any rule's failure, whatever it is
        _LOG.exception(
            "the contradiction rules failed on %s and %s", older.memory.id, newer.memory.id
        )
        return ()


_LOG = logging.getLogger("anamnesis.store")


def _differences(older: NoteFacts, newer: NoteFacts) -> tuple[Difference, ...]:
    mine, theirs = older.relevant(newer), newer.relevant(older)
    old_values, new_values = older.values(mine), newer.values(theirs)
    found = [
        *stance_differences(older, newer, mine, theirs),
        *_value_differences(
            older,
            newer,
            _held(older, mine, old_values, avoided=True),
            _held(newer, theirs, new_values, avoided=False),
            theirs,
        ),
        *named_settings(older, newer, old_values, new_values),
        *(
            _flag_set_differences(old_values, new_values)
            if (older.subject_stems & newer.subject_stems)
            - older.tool_stems
            - newer.tool_stems  # see _TITLED_KINDS
            and not titled_for_two_places(older, newer)  # each its place's flags
            else ()
        ),
    ]
    # One line for one change: a value or a clause the older note says is given once,
    # with the first (the best-matched) of what the newer says instead; a storage
    # address read as a URL and as a path (:func:`.addresses.url_parts`) once, as a URL;
    # a tool's name changed inside a command that changed with it, once, as the command.
    addresses = {(d.old, d.new) for d in found if d.kind == "url"}
    commands = [(d.old.lower(), d.new.lower()) for d in found if d.kind == "command"]
    unique: dict[tuple[str, str], Difference] = {}
    for difference in found:
        if difference.kind == "path" and (difference.old, difference.new) in addresses:
            continue
        if difference.kind == "name" and _inside_a_command(difference, commands):
            continue  # "asdf -> mise" beside `asdf install` -> `mise install`: one change
        unique.setdefault((difference.kind, difference.old), difference)
    order = {kind: i for i, kind in enumerate(DIFFERENCE_KINDS)}
    return tuple(sorted(unique.values(), key=lambda d: order.get(d.kind, len(order))))


def _inside_a_command(name: Difference, commands: list[tuple[str, str]]) -> bool:
    """Whether a name's change is a command's: the old name a word of the older command,
    the new name one of the newer command."""
    old, new = name.old.lower(), name.new.lower()
    return any(
        old in command_old.split() and new in command_new.split()
        for command_old, command_new in commands
    )


def _held(
    facts: NoteFacts, chosen: list[Clause], values: list[Value], *, avoided: bool
) -> list[Value]:
    """The values a note holds: less the names it says it replaced ("Replaced nvm with
    fnm": fnm is what it holds, nvm no state of its own to compare with another note's;
    that the older note's nvm is gone is the replacement's difference), and with
    ``avoided`` (the older note) less those it says not to use ("never plain `git push
    --force`"): those are its negations' (:mod:`.stance_differences`), not values it
    holds. A value either names as the old one ("the old `orbitfleet/route-planner` on
    Docker Hub is stale") is none it holds. Its stances are read once for both."""
    stances = facts.stances(chosen)
    shunned = (
        {code for stance in stances if stance.kind == NEGATION for code in stance.code}
        if avoided
        else set()
    )
    replaced = {
        stance.stems[0] for stance in stances if stance.kind == REPLACEMENT and stance.stems
    }
    former = names_a_former(facts.lower)
    if not shunned and not replaced and not former:
        return values
    return [
        value
        for value in values
        if value.shown.lower() not in shunned
        and not (value.kind == "name" and stem(value.norm) in replaced)
        and not (former and said_as_former(value, facts))
    ]


# -- values ------------------------------------------------------------------------------


def _value_differences(
    older: NoteFacts,
    newer: NoteFacts,
    old_values: list[Value],
    new_values: list[Value],
    theirs: list[Clause],
) -> list[Difference]:
    """The values ``newer`` states differently from ``older``; ``theirs``: the newer
    note's clauses compared (:meth:`.reading.facts.NoteFacts.relevant`)."""
    subject = older.subject_stems & newer.subject_stems
    titles = min(len(subject), 2) * 0.5
    # titles that share only the project's or a tool's name may be about two tasks
    tools = older.tool_stems | newer.tool_stems
    topics = len(subject - tools)
    topical = topics > 0
    title_changed = changes(newer.title)
    out: list[Difference] = []
    old_kinds, new_kinds = _by_kind(old_values), _by_kind(new_values)
    for kind in KINDS:
        if kind not in old_kinds or kind not in new_kinds:
            continue  # a kind one note states no value of
        olds, news = _keyed_over_said(old_kinds[kind]), _keyed_over_said(new_kinds[kind])
        if kind == "name":
            olds, news = _not_keys(olds, old_values), _not_keys(news, new_values)
        if not olds or not news:
            continue
        # an older command the newer note says fails or is of the past (commands.retired_in)
        if kind == "command":
            retired = retired_commands(olds, news, older, newer, theirs)
            if retired:
                news = [b for b in news if not retiring_mention(b, olds, retired, newer)]
        else:
            retired, news = values_given_up(olds, news, older, newer)
        ranked: list[tuple[float, bool, int, int]] = []
        sole = _sole_of_one_thing(kind, olds, news, subject)
        one_each = one_value(olds) and one_value(news)  # for the general alignment
        few = kind == "command" and _few_commands_of_one_task(olds, news, subject - tools)
        for i, a in enumerate(olds):
            for j, b in enumerate(news):
                if kind == "path" and _route_and_file(a.norm, b.norm):
                    continue  # `/login` is an app's page, `src/jobs/task.py` a source file
                changed = title_changed or b.changed or i in retired
                score: float | None
                if kind == "name" and (a.shown in ROLE_ONLY_NAMES or b.shown in ROLE_ONLY_NAMES):
                    # a name read only because a role knows it is compared only as one
                    if not of_one_role(a, b, olds, news, older, newer):
                        continue
                    score = 0.5
                elif kind == "name":
                    score = _name_alignment(a, b, olds, news, topics, changed=changed)
                    if score is None and (
                        renamed(a, b, olds, news, older, newer)
                        or one_kind_named(a, b, older, newer)
                        or titled_identifiers(a, b, olds, news, older, newer)
                        or of_one_role(a, b, olds, news, older, newer)
                    ):
                        score = 0.5
                else:
                    score = _alignment(
                        a, b, titles, sole=sole, topical=topical,
                        tools=tools,
                    )  # fmt: skip
                if score is None:
                    score = context_alignment(a, b, sole=one_each)
                if score is None:
                    score = _key_named(a, b, olds, news, older, newer)
                if score is None and kind == "path":
                    score = _key_word_said(a, b, older, newer)
                if score is None and kind == "number":
                    score = setting_in_words(a, b, olds, news, older, newer)
                if (
                    score is None
                    and kind == "number"
                    and topical
                    and one_period_each(a, b, olds, news, older, newer)
                ):
                    score = 0.5  # "backups run nightly", "pg_dump runs every 6 hours"
                if score is None and kind == "command" and _reordered(a.norm, b.norm):
                    score = 0.5  # `op get item`, `op item get`: one task, its words reordered
                if score is None and kind == "command" and programs_of_one_role(a.norm, b.norm):
                    score = 0.5  # `npx cypress run`, `pnpm exec playwright test`
                if score is None and (i in retired or few):
                    score = 0.5  # what the newer note runs instead, when nothing else says
                if score is None:
                    continue
                if kind == "name" and a.norm in SCOPE_WORDS and b.norm in SCOPE_WORDS:
                    continue  # "on the Mac", "on Linux servers": two scopes, not one's values
                same = agree(a, b)
                if same and kind == "number" and floor_and_ceiling_of(a, b):
                    continue  # "min 1", "max 12": a floor and a ceiling, two things
                if same and kind in LEFT_KINDS and not b.changed and left_behind(b, newer):
                    continue  # "8080 clashed with Trino": the older value, as what was left
                if (
                    not same
                    and kind == "command"
                    and not (
                        i in retired
                        or _one_task(a, b, tools)
                        or programs_of_one_role(a.norm, b.norm)
                        or _titled_task(a, b, subject - tools)
                        or _task_of_title(a, b, older.title_stems - tools)
                        or few
                    )
                ):
                    continue
                if not same and (
                    (
                        kind == "number"
                        and (
                            floor_and_ceiling(older, a, newer, b)
                            or two_windows(older, a, newer, b)
                            or period_and_span(older, a, newer, b)
                        )
                    )
                    or other_scopes(older, a, newer, b, changed)
                    or (
                        kind == "path"
                        and not changed
                        and (
                            one_value_in_two_files(a, b, old_values, new_values)
                            or _two_things_files(a.norm, b.norm, older, newer)
                        )
                    )
                    or (
                        not changed
                        and not one_setting(a, b)
                        and not (kind == "path" and _one_file(a.norm, b.norm))
                        and not (kind == "name" and renamed(a, b, olds, news, older, newer))
                        and other_things(a, b, older, newer, sole=sole)
                    )
                ):
                    continue
                if kind == "name" and not (same or changed) and titled_apart(a, b, older, newer):
                    continue  # "Orders topic" `orders.created`, "Payments topic" `payments.*`
                if not same and not changed and restated(a, news, newer):
                    continue  # "64 here; 800 is only for the nightly jobs": both hold
                if (
                    not same
                    and not changed
                    and kind == "url"
                    and port_restated(a, b, new_values, older)
                ):
                    continue  # "kafka-ui runs on :8080, schema registry stays on 8081"
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
                states(other, b)
                for other in olds
                if same_slot(other, b)
                and not older.avoids(other)
                and not _said_short(other, olds)
                and not (kind in LEFT_KINDS and left_behind(other, older))
                and not _said_of_another(other, a, b)
            ):
                continue  # the older note states the newer value too (not as one to avoid,
                # nor as another thing's: "Homebrew's postgres already owns 5432")
            if kind in ("name", "command") and any(agree(a, other) for other in news):
                continue  # the newer note still names the older one
            if kind == "path" and _path_still_used(a, news, new_values, newer):
                continue
            if kind == "name" and named_in(b, older):
                continue  # the older note names the newer one too, where it is no value
            if kind == "name" and not (title_changed or b.changed) and named_in(a, newer):
                continue  # the newer note still names the older one ("LiveViews only ...")
            if (
                kind == "command"
                and tool_of(a.norm) == tool_of(b.norm)
                and not _other_target(a.norm, b.norm)
                and not _file_moved(a.norm, b.norm)
            ):
                continue  # the same command: its flags and values say what differs
            out.append(Difference(kind, _subject(a, b, older, newer), a.shown, b.shown))
    return out


def _said_of_another(other: Value, a: Value, b: Value) -> bool:
    """Whether the older note's ``other`` number, equal to the newer one, is another
    thing's: said after a word of its own ("body wrapped at 72") where the aligned numbers
    share a unit ("50 chars", "72 characters"), ``other`` none."""
    unit = a.slot if a.kind == "number" and not a.keyed and not a.slot.startswith("~") else ""
    return bool(unit) and b.slot == unit and other.slot.startswith("~")


def _sole_of_one_thing(
    kind: str, olds: list[Value], news: list[Value], subject: frozenset[str]
) -> bool:
    """Whether each note's only value of ``kind`` (:data:`_SOLE_KINDS`) is of one thing,
    in notes whose titles share ``subject``: a word beyond the kind's own ("Client
    websocket port", "Ports between nodes" name two ports); two paths of one type of file
    that a project holds one of for a thing (``docker-compose.yml``, ``compose.yaml``; two
    folders; :data:`FEW_OF_A_TYPE`), not a config file and a source file, nor two source
    files (a project holds many)."""
    if kind not in _SOLE_KINDS or len({v.norm for v in olds}) != 1:
        return False
    if len({v.norm for v in news}) != 1 or not subject - {kind}:
        return False
    if kind != "path":
        return True
    of_type = file_type(olds[0].norm)
    return of_type in FEW_OF_A_TYPE and of_type == file_type(news[0].norm)


def _by_kind(values: list[Value]) -> dict[str, list[Value]]:
    """A note's values by their kind, each kind's in the note's order."""
    out: dict[str, list[Value]] = {}
    for value in values:
        out.setdefault(value.kind, []).append(value)
    return out


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


def _key_named(
    a: Value, b: Value, olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> float | None:
    """How surely a setting's value and the other note's only value of its kind are one
    thing because that note names the setting's key ("capped at 100 MB (the
    shiny.maxRequestSize option)", "50000 lines of zsh history (HISTSIZE and SAVEHIST)");
    None: it names no key of the setting."""
    set_a, set_b = "=" in a.shown, "=" in b.shown  # a setting as ``key=value``
    if set_a == set_b:
        return None
    keyed, other, others, facts = (a, b, news, newer) if set_a else (b, a, olds, older)
    if len({value.norm for value in others}) != 1:
        return None
    whole = keyed.shown.split("=", 1)[0].strip()
    key = whole.rsplit(".", 1)[-1]
    if not _IDENTIFIER_KEY.fullmatch(key):
        return None  # a plain word ("timeout") is said of many things
    # the key as the setting names it (``shiny.maxRequestSize``), or its last part
    said = any(said_as_word(name.lower(), facts, plural=False) for name in {whole, key})
    return 0.5 if said and other.kind == keyed.kind else None


def _key_word_said(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> float | None:
    """0.5 where a setting's path (``inventory = inventories/prod/hosts.yml``) and a path
    the other note says plainly are one thing's because that note names the key's word
    for it: just before it ("Default inventory is `inventory/hosts.ini`"), or in its
    title when the path holds the word too (a note titled "Inventory":
    ``inventory/hosts.ini``); no word before the path the setting's note never says
    ("the staging inventory"). A key of a word any setting may hold says nothing."""
    if a.keyed == b.keyed:
        return None
    keyed, plain, facts, keyed_in = (a, b, newer, older) if a.keyed else (b, a, older, newer)
    words = key_words(keyed.slot.rsplit(".", 1)[-1])
    word = stem(words[-1].lower()) if len(words) == 1 else ""
    if len(word) < 4 or word in GENERIC_KEY_WORDS or word in _PATH_KEY_WORDS:
        return None
    if any(other != word and not keyed_in.mentions(other) for other in plain.near):
        return None  # "the staging inventory is ...": one of several the setting is not
    if word in plain.near or (word in facts.title_stems and word in content_stems(plain.norm)):
        return 0.5
    return None


# Words of a key that say only that its value is a path: no thing's.
_PATH_KEY_WORDS: Final = frozenset(stem(word) for word in ("path", "file", "dir", "folder", "root"))


# A key no prose word looks like: snake_case, camelCase, or an upper-case name.
_IDENTIFIER_KEY = re.compile(r"\w*_\w+|[a-z]+[A-Z]\w*|[A-Z][A-Z0-9]{3,}")


def _not_keys(names: list[Value], values: list[Value]) -> list[Value]:
    """A note's names, less those that are the keys of settings it gives
    (``backupRetentionPeriod: 7``): a key says what a value is of, it is no value."""
    keys = {
        value.slot
        for value in values
        if value.keyed
        and (
            value.kind in ("number", "flag")
            # a version read after an identifier (``targetCPUUtilizationPercentage 70``)
            # is its setting's, not a product's (``Airflow 2``)
            or (value.kind == "version" and _IDENTIFIER_KEY.fullmatch(value.shown.split()[0]))
        )
    }
    return [name for name in names if name.norm not in keys] if keys else names


def _few_commands_of_one_task(olds: list[Value], news: list[Value], topics: frozenset[str]) -> bool:
    """Whether the notes' commands are the older and the newer way to do one task, however
    differently they read: each note gives one or two, and the titles share a word that
    names neither a tool nor a kind of value (``topics``: "Local Temporal server",
    "Bringing up Temporal for local work"). A note of many commands is a note of many
    tasks."""
    return len(olds) <= 2 and len(news) <= 2 and bool(topics - _KIND_NAMES)


# Title words that name a kind of value, not a task: "port" in "Dev server port".
_KIND_NAMES: Final = frozenset({"port", "path", "url", "version", "command", "flag", "name"})


def _one_task(a: Value, b: Value, tools: frozenset[str]) -> bool:
    """Whether two commands can be one task's, the older and the newer way to do it: the
    newer one said as a change ("run `make up` instead", "now `uv sync`"); two programs
    whose commands share a word (`asdf install` and `mise install`, `npm run migrate` and
    `npx prisma migrate deploy`: :func:`.reading.commands.task_words`) or are said after the same
    words ("start the local stack with"); one program's commands ending in the same
    subcommand (`docker build`, `docker buildx build`). Two subcommands of one program,
    or two programs with nothing in common, said without a change, are two tasks (`dbt
    test` and `dbt build`, `astro dev start` and `airflow dags trigger`). ``tools``: the
    words that name the project or a tool (:attr:`.reading.facts.NoteFacts.tool_stems`), which
    say nothing of a task."""
    if b.changed:
        return True
    program = program_of(a.norm)
    if program == program_of(b.norm):
        # `docker build` and `docker buildx build`: the same last subcommand
        mine, theirs = tool_of(a.norm).split(), tool_of(b.norm).split()
        # (one word more: `pnpm lint storefront` and `pnpm build storefront` are two
        # scripts run on one target, not one subcommand)
        last = len(mine) > 1 and len(theirs) > 1 and mine[-1] == theirs[-1]
        return (last and len(mine) != len(theirs)) or _reordered(a.norm, b.norm)
    # or said after the same words: "start the local stack with `docker-compose up`"
    shared = not task_words(a.norm).isdisjoint(task_words(b.norm))
    return shared or len((set(a.near) & set(b.near)) - tools) >= 2


def _shared_task(a: str, b: str) -> bool:
    """Whether two commands of two programs share a word of their task beyond the
    programs' names (`npm run dev` and `pnpm dev`: ``dev``)."""
    programs = {program_of(a), program_of(b)}
    shared = task_words(a) & task_words(b)
    return bool(shared - {stem(program) for program in programs} - programs)


def _other_target(a: str, b: str) -> bool:
    """Whether one command, run on the same thing (its first argument after the tool),
    is told to do it elsewhere by one other word (``python flow.py --with retry
    step-functions create``, then ``... argo-workflows create``): its arguments, flags
    left out, are as many and differ in one place, not the first."""
    mine, theirs = _arguments(a), _arguments(b)
    if len(mine) != len(theirs) or len(mine) < 2 or mine[0] != theirs[0]:
        return False
    return sum(x != y for x, y in zip(mine, theirs, strict=True)) == 1


def _file_moved(a: str, b: str) -> bool:
    """Whether one command is run on a file that moved: its arguments differ in one place,
    two paths of one file (``use <benchjig/fasteners.scad>``, then ``use
    <benchjig/hardware/fasteners.scad>``)."""
    mine, theirs = _arguments(a), _arguments(b)
    if len(mine) != len(theirs):
        return False
    differ = [(x, y) for x, y in zip(mine, theirs, strict=True) if x != y]
    return len(differ) == 1 and _one_file(*(part.strip("<>\"'") for part in differ[0]))


def _arguments(command: str) -> list[str]:
    """A command's words after its tool, less its flags."""
    parts = command.split()
    _tool, after = command_tool(parts)
    return [part for part in parts[after:] if not part.startswith("-")]


def _reordered(a: str, b: str) -> bool:
    """Whether two commands run one program's subcommand said in two orders (``op get
    item``, then ``op item get`` as the CLI's next version writes it): one task."""
    mine, theirs = tool_of(a).split(), tool_of(b).split()
    return (
        len(mine) == len(theirs) > 2  # (a runner alone, `pnpm dlx`, is no tool: empty)
        and mine != theirs
        and mine[0] == theirs[0]
        and sorted(mine[1:]) == sorted(theirs[1:])
    )


def _titled_task(a: Value, b: Value, topics: frozenset[str]) -> bool:
    """Whether two commands do the task both notes' titles name: one of them says a word
    the titles share ("Flashing a buoy", "Flash procedure": `west flash`), whatever
    program each runs. ``topics``: the titles' shared words, no tool's name among them."""
    return not topics.isdisjoint(task_words(a.norm) | task_words(b.norm))


def _task_of_title(a: Value, b: Value, title: frozenset[str]) -> bool:
    """Whether the newer command does what the older note's title names ("Deploying the
    worker", then `wrangler deploy`): a word of the title among the task words of its
    program and subcommands, not of its arguments (`pybabel compile -d locales` does not
    run what "Run workers locally" names), nor of the older command's too (`pnpm lint
    storefront`, then `pnpm build storefront`: "storefront" in "Checking the storefront"
    is what both run on, not the task)."""
    return not title.isdisjoint(task_words(tool_of(b.norm)) - task_words(tool_of(a.norm)))


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
    if a.kind == "path" and _one_file(a.norm, b.norm):
        return 1.5 + titles  # `include/pins.h`, `src/board/pins.h`: one file, moved
    if a.kind == "path" and paths_alike(a.norm, b.norm):
        return 1.0 + titles
    if titles == 0 and a.kind == "command" and b.changed and _shared_task(a.norm, b.norm):
        return 0.5  # "Local server is `pnpm dev` now", against `npm run dev`
    if titles == 0 and a.kind in _TITLED_KINDS:
        return None  # see _TITLED_KINDS
    if a.kind == "number":
        # a unit, or the word a number is said after: "10,000 records" and
        # "flush_records is 5000" count one thing
        if a.keyed != b.keyed or not (
            (a.slot and a.slot.lstrip("~") == b.slot.lstrip("~")) or _said_after_one_word(a, b)
        ):
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
        if a.kind == "path" and of_few(a.norm) and of_few(b.norm):
            # folders both paths pass through say where one thing lives
            shared += 0.5 * len(folders(a.norm) & folders(b.norm))
            # a folder's name says what it holds: `sql/migrations/` beside "migrate"
            shared += len((_named(a.norm) & b.stems) | (_named(b.norm) & a.stems))
    if shared < _THRESHOLD[a.kind] and not sole:
        return None
    if a.kind in _TITLED_KINDS and a.kind != "command" and not topical and not b.changed:
        # titles share only a tool's name: the words around both must say more than it
        # (two commands are held to one task by _one_task instead)
        beyond = len((a.stems & b.stems) - tools) + 0.5 * len((set(a.near) & set(b.near)) - tools)
        if beyond < _THRESHOLD_BEYOND_TOOLS:
            return None
    return shared + titles


def _said_after_one_word(a: Value, b: Value) -> bool:
    """Whether two numbers count by two different words yet follow one word ("prewarms 64
    bullets", "pool prewarm: 256"): the word one is said after (its ``~`` slot) is among
    the words just before the other, which counts no unit. A word of one or two letters
    is a variable's name (``nx = ny = 1024``), which the values after it share."""
    for one, other in ((a, b), (b, a)):
        word = one.slot[1:] if one.slot.startswith("~") else ""
        if len(word) > 2 and word in other.near and not is_unit(other.slot.lstrip("~")):
            return True
    return False


def _route_and_file(a: str, b: str) -> bool:
    """Whether one path is a route of one part (``/login``, ``/healthz``) and the other a
    file (``src/jobs/task.py``): two kinds of thing, never one's two values."""
    return (_is_route(a) and _has_extension(b)) or (_is_route(b) and _has_extension(a))


def _is_route(path: str) -> bool:
    return path.startswith("/") and "/" not in path[1:] and "." not in path


def _has_extension(path: str) -> bool:
    return "." in path.rstrip("/").rsplit("/", 1)[-1].strip(".")


def _one_file(a: str, b: str) -> bool:
    """Whether two paths, each in a folder, name one file by its name (``pins.h``), or
    one folder by a name no project gives many (``addons/retopo``,
    ``extensions/user_default/retopo``): the file or folder in two places."""
    mine, theirs = a.rstrip("/").rsplit("/", 1), b.rstrip("/").rsplit("/", 1)
    if len(mine) != 2 or len(theirs) != 2 or mine[1] != theirs[1]:
        return False
    name = mine[1]
    if "." in name.strip("."):
        return True
    # a folder's own name (``retopo``), not a common one nor a number (``binary_to_atom/2``)
    return (
        a.endswith("/") == b.endswith("/")
        and re.search(r"[a-z]{3}", name) is not None
        and name not in COMMON_FOLDERS
    )


def _two_things_files(a: str, b: str, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether two files of one name are two things' (:func:`_in_folders_titled_apart`),
    not one file moved."""
    return _has_extension(a) and _one_file(a, b) and _in_folders_titled_apart(a, b, older, newer)


def _in_folders_titled_apart(a: str, b: str, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether two files of one name are each in a folder its note's title names, a word
    the other note never says (``/var/log/api/error.log`` under "API errors",
    ``/var/log/nginx/error.log`` under "nginx errors"), or in folders of two scopes
    (``inventories/staging/hosts.yml``, ``inventories/prod/hosts.yml``): two things'
    files, not one moved."""
    around_a, around_b = _folders_of(a), _folders_of(b)
    if around_a - around_b <= SCOPE_WORDS and around_b - around_a <= SCOPE_WORDS:
        return bool(around_a - around_b) and bool(around_b - around_a)  # staging/, prod/
    mine = {word for folder in around_a - around_b for word in content_stems(folder)}
    theirs = {word for folder in around_b - around_a for word in content_stems(folder)}
    return any(word in older.title_stems and not newer.mentions(word) for word in mine) and any(
        word in newer.title_stems and not older.mentions(word) for word in theirs
    )


def _folders_of(path: str) -> frozenset[str]:
    """Every folder a file's path passes through (``api`` too, which :func:`folders`
    leaves out as common)."""
    return frozenset(path.rstrip("/").split("/")[:-1])


def _named(path: str) -> frozenset[str]:
    """What a path's last part is named for, as stems (``sql/migrations/``: ``migrat``),
    its extension left out."""
    name = path.rstrip("/").rsplit("/", 1)[-1].split(".", 1)[0]
    return frozenset(content_stems(name))


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
    if a.slot == b.slot == BRANCH:
        return _branch_alignment(a, b, olds, news, subject)
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
    sole = subject > 0 and sole_of_shape(a, olds) and sole_of_shape(b, news)
    if sole and (changed or (shape != "env" and subject >= 2 and around)):
        return 1.0 + around + titles
    return None


def _branch_alignment(
    a: Value, b: Value, olds: list[Value], news: list[Value], subject: int
) -> float | None:
    """Two branches said in prose (pushed to, merged into, "the master branch") are one
    where each is its note's only one and the notes' titles share a word, or the words
    around both do ("Pushing to master deploys the site to production", "merge into main
    and the workflow deploys production"); not a branch work is merged into beside one
    releases are cut from (git-flow's two)."""
    mine = {v.norm for v in olds if v.slot == BRANCH}
    theirs = {v.norm for v in news if v.slot == BRANCH}
    if len(mine) != 1 or len(theirs) != 1:
        return None
    around = len((a.stems & b.stems) - a.own - b.own)
    return 1.0 + around if subject or around else None


def _subject(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> str:
    """What the two values are of, in the older note's words: a key, a flag or a tool;
    else the words the two titles share, then those around both values, and a number's
    unit ("dev server port", "webhook attempts")."""
    if a.keyed and a.slot == b.slot and a.slot:
        return a.slot
    if a.slot == b.slot == BRANCH:
        return BRANCH  # two branches' names read in prose
    if a.kind == "number" and a.keyed != b.keyed:
        # a setting against the number said in prose: the setting's key says what of
        return key_of(a if a.keyed else b)
    role = one_role_of(a, b)
    if role:
        return role  # "kotlin dependency injection": what both tools are for
    if a.kind == "flag" and a.keyed and b.keyed and _one_flag(a.slot, b.slot):
        # `gdalwarp -r bilinear`, `-r cubic`: gdalwarp's flag, as the note writes it
        tool = max(a.slot, b.slot, key=len).rpartition(" -")[0]
        return f"{tool} {re.split(r'[= ]', a.shown, maxsplit=1)[0]}"
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


def _one_flag(mine: str, theirs: str) -> bool:
    """Whether two flags' slots are one flag, one given with its program and one alone
    (``gdalwarp -r``, ``-r``)."""
    shorter, longer = sorted((mine, theirs), key=len)
    return shorter.startswith("-") and longer.endswith(f" {shorter}")


def _said_short(value: Value, values: list[Value]) -> bool:
    """Whether a file's bare name is the note's own path to it said short ("config.txt"
    in a title, ``/boot/config.txt`` in the body): that file, not any file of its name,
    so it states no other note's path to a file of that name."""
    return (
        value.kind == "path"
        and "/" not in value.norm
        and any(other.norm.endswith(f"/{value.norm}") for other in values)
    )


def _path_still_used(a: Value, news: list[Value], said: list[Value], newer: NoteFacts) -> bool:
    """Whether the newer note still uses the older path, as a fact of today: a path
    under it (`secret/data/quotes` under `secret/`), or the path itself in a command it
    runs (`vault kv get secret/quotes`); not said in the past or as a change."""
    commands = [value for value in said if value.kind == "command"]
    return any(
        said_today(b, newer)
        for b in news
        if agree(a, b) and (b.norm.startswith(a.norm) or b.norm == a.norm)
    ) or any(
        f" {a.norm} " in f" {command.norm} " and said_today(command, newer) for command in commands
    )


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
