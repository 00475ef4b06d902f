"""Two notes' names of one thing, where their words say little: an identifier renamed
(``notify.email``, then ``notifications.email.v2``, in notes that both speak of a queue),
two identifiers each named by its own note's title (two things), and a name the older note
gives for a thing that the newer note gives as a setting's value (``role TRANSFORMER``,
then ``role: DBT_TRANSFORM_ROLE``; ``ARENA_REGION``, then ``MATCH_REGION=eu-west``), and
a setting's name that the other note says beside the setting's words ("the
`tekton-builder` ServiceAccount", then ``serviceAccountName: pipeline-runner``), and
environment variables renamed, each note naming its own (``BINANCE_API_KEY``, then
``GRIDBOT_EXCHANGE_KEY``).
:mod:`.compare` asks these beside its own alignment of two names."""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.review.alignment_by_context import GENERIC_KEY_WORDS, key_of, name_shape
from anamnesis.store.review.both_hold import other_scopes, other_things
from anamnesis.store.review.reading.quantities import key_words
from anamnesis.store.review.reading.text import CODE_SPAN, stem, words
from anamnesis.store.review.records import Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value


def titled_apart(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether two identifiers are each named by its own note's title, by a word the
    other title and the other identifier lack ("Orders topic" for ``orders.created``,
    "Payments topic" for ``payments.captured``): two things, one per title."""
    if name_shape(a) != "identifier" or name_shape(b) != "identifier":
        return False
    mine = set(_identifier_words(a.shown)) & older.title_stems
    theirs = set(_identifier_words(b.shown)) & newer.title_stems
    mine -= newer.title_stems | set(_identifier_words(b.shown))
    theirs -= older.title_stems | set(_identifier_words(a.shown))
    return bool(mine) and bool(theirs)


def renamed(
    a: Value, b: Value, olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> bool:
    """Whether two identifiers are one queue's (topic's, table's ...) old and new name:
    each its note's only identifier, the last word of one (what it holds, a version
    left out) among the other's words (``notify.email``, ``notifications.email.v2``;
    ``prod-network``, ``network-production``), in notes that speak of one kind of named
    thing (:data:`_NAMED_THINGS`: "queue" in both, whether in the title, beside the
    name or in another sentence: "the old table stays read-only"). Two identifiers of
    one service share its word and end in two (``ingest.events.raw``, ``ingest.events.dlq``: two
    topics), and ``orders_inbound`` (a queue) and ``orders_archive`` (a table) are two
    kinds of thing."""
    if name_shape(a) != "identifier" or name_shape(b) != "identifier":
        return False
    if not (sole_of_shape(a, olds) and sole_of_shape(b, news)):
        return False
    mine, theirs = _identifier_words(a.shown), _identifier_words(b.shown)
    if not mine or not theirs or (mine[-1] not in theirs and theirs[-1] not in mine):
        return False
    return not _things_named(older).isdisjoint(_things_named(newer))


def one_kind_named(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether two names of one shape are each said as one kind of thing, by the word
    right beside it ("reads from the vault `Engineering`", "access to the `Infra
    Secrets` vault"; :func:`kind_beside`), among another word both clauses
    say (the CI's vault) or in notes whose titles share a word: that thing's older and
    newer name."""
    if name_shape(a) != name_shape(b):
        return False
    kind = kind_beside(a, older) & kind_beside(b, newer)
    return bool(kind) and bool(
        (a.stems & b.stems) - a.own - b.own - kind or older.subject_stems & newer.subject_stems
    )


def titled_identifiers(
    a: Value, b: Value, olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> bool:
    """Whether two identifiers are each its note's only one, in notes whose titles share
    two words, one of which both identifiers hold ("Pick completion events"
    ``wms.picks.completed``, "Consumers of pick events" ``pick-events.v2``): the one
    thing both titles name, as its notes call it."""
    if name_shape(a) != "identifier" or name_shape(b) != "identifier":
        return False
    shared = older.subject_stems & newer.subject_stems
    if len(shared) < 2 or not (sole_of_shape(a, olds) and sole_of_shape(b, news)):
        return False
    return not shared.isdisjoint(set(_identifier_words(a.shown)) & set(_identifier_words(b.shown)))


def kind_beside(value: Value, facts: NoteFacts) -> frozenset[str]:
    """The kind of named thing a name is said as (:data:`_NAMED_THING_WORDS`), by the word
    right before or after it ("the SQS queue `signing-callbacks`", "the `Infra Secrets`
    vault", "the autoload named Session"), as a stem; a chat channel by its mark
    (``#escrow-alerts``); empty when neither word is one."""
    if value.shown.startswith("#"):
        return _CHANNEL
    return _kind_beside_in(facts.clause(value.clause).text, value.shown)


@lru_cache(maxsize=16384)
def _kind_beside_in(text: str, shown: str) -> frozenset[str]:
    """:func:`kind_beside` of a clause's text and a name as it is shown there: kept, since
    a note's names are read again for each note it is compared with."""
    at = text.find(shown)
    if at == -1:
        return frozenset()
    before = [word for word in words(text[:at].rstrip("` ")) if word.lower() not in _NAMING][-1:]
    after = words(text[at + len(shown) :].lstrip("` "))[:1]
    return frozenset(
        stem(word.lower()) for word in (*before, *after) if stem(word.lower()) in _NAMED_STEMS
    )


_CHANNEL: Final = frozenset({stem("channel")})
_NAMING: Final = frozenset({"named", "called"})


def _things_named(facts: NoteFacts) -> frozenset[str]:
    """The kinds of named thing a note speaks of anywhere (:data:`_NAMED_THINGS`)."""
    return frozenset(match.group(1) for match in _NAMED_THINGS.finditer(facts.lower))


def _identifier_words(shown: str) -> list[str]:
    """An identifier's words, stemmed, less those that say which version
    (``orders.cdc.v1``: ``order``, ``cdc``)."""
    parts = (stem(part) for part in _IDENTIFIER_PARTS.split(shown.lower()))
    return [part for part in parts if part and not _VERSION_PART.fullmatch(part)]


_IDENTIFIER_PARTS = re.compile(r"[^a-z0-9]+")
_VERSION_PART = re.compile(r"v?\d+")
# The kinds of thing a project names by an identifier it may rename.
_NAMED_THING_WORDS: Final = (
    "queue", "topic", "stream", "exchange", "channel", "table", "bucket", "index", "branch",
    "workspace", "namespace", "schema", "database", "collection", "secret", "role", "vault",
    "autoload", "model",
)  # fmt: skip
_NAMED_THINGS: Final = re.compile(rf"\b({'|'.join(_NAMED_THING_WORDS)})s?\b")
# Those kinds, as stems: what a key's last word names (``--task-queue``: ``queu``).
_NAMED_STEMS: Final = frozenset(stem(word) for word in _NAMED_THING_WORDS)


def sole_of_shape(value: Value, values: list[Value]) -> bool:
    """Whether ``value`` is the only name of its shape among ``values``."""
    shape = name_shape(value)
    return all(other.norm == value.norm for other in values if name_shape(other) == shape)


def named_in(value: Value, facts: NoteFacts) -> bool:
    """Whether a note names ``value`` anywhere, as a word ("Atlantis applies after
    approval": a sentence's first word is read as no name, yet names it). A name that is
    a plain lower-case word (the remote `fork`, the branch `trunk`) is named only in code:
    in prose the word is the language's ("the remote of my fork")."""
    if _PLAIN_WORD.fullmatch(value.shown):
        word = re.compile(rf"(?<![\w.-]){re.escape(value.norm)}(?![\w-])")
        fenced = _FENCED.findall(facts.lower)
        spans = [code.group(1) for code in CODE_SPAN.finditer(_FENCED.sub(" ", facts.lower))]
        return any(word.search(code) for code in (*fenced, *spans))
    return said_as_word(value.norm, facts, plural=True)


_PLAIN_WORD = re.compile(r"[a-z]+")
_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.DOTALL)


def said_as_word(word: str, facts: NoteFacts, *, plural: bool) -> bool:
    """Whether a note says ``word`` (lower case) anywhere as a word of its own, not inside
    another (``plural``: its plural too)."""
    ending = "s?" if plural else ""
    return re.search(rf"(?<![\w.-]){re.escape(word)}{ending}(?![\w-])", facts.lower) is not None


def named_settings(
    older: NoteFacts, newer: NoteFacts, old_values: list[Value], new_values: list[Value]
) -> list[Difference]:
    """A name the older note gives for the thing its title names, said beside that
    thing's word ("uses role TRANSFORMER", in a note titled "role for dbt"), and the
    newer note's setting whose key's last word is that thing (``role: DBT_TRANSFORM_ROLE``;
    ``init.defaultBranch main`` for "the default branch"): one thing's two values, though
    one is read as a name and the other as a setting. The name may be the older note's
    only identifier instead, when the thing is of a kind a project names by one
    (:data:`_NAMED_THING_WORDS`; "Billing worker task queue": "polls `billing-tq`").
    Each note gives one such; the older note never says the newer value, nor the newer
    note the older name; and the notes share a word beside the thing's, anywhere in
    either (the exporter's account, not the importer's; a key in a code block has no
    words around it). A key's last word is read as written (``init.defaultBranch``:
    ``branch``; its slot is folded to lower case).
    """
    out: list[Difference] = []
    for b in new_values:
        if b.kind != "flag" or not b.keyed or "=" not in b.shown:
            continue
        value = b.shown.split("=", 1)[1].strip("\"'")
        if not _NAMED_VALUE.fullmatch(value) or value.lower() in _NOT_NAMES:
            continue
        thing = _thing_of_key(key_of(b))
        if not thing or not thing <= older.title_stems:
            continue
        # the name said just after the thing's word: "role TRANSFORMER"
        names = [a for a in old_values if a.kind == "name" and a.near[-1:] == tuple(thing)]
        if not names and thing <= _NAMED_STEMS:
            # the older note's only identifier, its title naming a kind of thing a
            # project names by one ("Billing worker task queue": "polls `billing-tq`")
            names = [a for a in old_values if a.kind == "name" and name_shape(a) == "identifier"]
        keys = [
            other for other in new_values if other.keyed and _thing_of_key(key_of(other)) == thing
        ]
        if len({a.norm for a in names}) != 1 or len(keys) != 1:
            continue
        if any(other.keyed and _thing_of_key(key_of(other)) == thing for other in old_values):
            continue  # the older note sets it too: its setting is compared as one
        a = names[0]
        if a.norm == value.lower() or named_in(a, newer):
            continue
        if not _share_a_word_beside(older, newer, thing):
            continue  # "account" of the exporter, "account" of the importer: two things
        if said_as_word(value.lower(), older, plural=False):
            continue
        if not b.changed and (
            other_scopes(older, a, newer, b, False) or other_things(a, b, older, newer)
        ):
            continue
        out.append(Difference("name", _key_said(key_of(b), thing), a.shown, value))
    return [
        *out,
        *_variables_renamed(older, newer, old_values, new_values),
        *_variables_renamed_by_their_ends(older, newer, old_values, new_values),
        *_named_beside_its_key(older, newer, old_values, new_values),
    ]


def _share_a_word_beside(older: NoteFacts, newer: NoteFacts, thing: frozenset[str]) -> bool:
    """Whether the two notes share a word beside a thing's own, anywhere in either
    (titles too): "account" in a note on the exporter and in one on the importer is two
    accounts."""
    said = frozenset().union(*(clause.stems for clause in older.clauses))
    theirs = frozenset().union(*(clause.stems for clause in newer.clauses))
    return bool((said & theirs) - thing)


def _variables_renamed(
    older: NoteFacts, newer: NoteFacts, old_values: list[Value], new_values: list[Value]
) -> list[Difference]:
    """An environment variable the older note names, and one the newer note sets to a
    value the older note gives too, both ending in the same word (``ARENA_REGION``
    "(eu-west, us-east)", then ``MATCH_REGION=eu-west``): one setting renamed, each
    note naming only its own. The value is an identifier (a mark or a digit in it): a
    plain word ("db") may be said of anything."""
    out: list[Difference] = []
    for b in new_values:
        if b.kind != "flag" or not b.keyed or "=" not in b.shown:
            continue
        key, value = (part.strip().strip("\"'") for part in b.shown.split("=", 1))
        if not _ENV_KEY.fullmatch(key) or not _NAMED_VALUE.fullmatch(value):
            continue
        if not re.search(r"[-_.\d]", value):
            continue  # a plain word ("db", "prod") may be said of anything in the older note
        for a in old_values:
            if a.kind != "name" or name_shape(a) != "env" or a.norm == key.lower():
                continue
            if a.norm.rsplit("_", 1)[-1] != key.lower().rsplit("_", 1)[-1]:
                continue
            if named_in(a, newer) or said_as_word(key.lower(), older, plural=False):
                continue
            if said_as_word(value.lower(), older, plural=False):
                out.append(Difference("name", key.lower().rsplit("_", 1)[-1], a.shown, key))
    return out


_ENV_KEY = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def _variables_renamed_by_their_ends(
    older: NoteFacts, newer: NoteFacts, old_values: list[Value], new_values: list[Value]
) -> list[Difference]:
    """Environment variables the older note names, and others the newer note names
    instead, each ending in the same word: ``BINANCE_API_KEY`` and ``BINANCE_API_SECRET``,
    then ``GRIDBOT_EXCHANGE_KEY`` and ``GRIDBOT_EXCHANGE_SECRET``; ``JDBC_URL``, then
    ``DATASOURCES_DEFAULT_URL`` "(the JDBC URL)". One setting's old and new name each,
    when neither note names any of the other's variables and a word of one note's
    variables is said by the other outside its own ("Exchange credentials"; "the JDBC
    URL"): that word says the two notes speak of one setting. Where one note names more
    variables than the other, both notes say such a word: ``SPRING_DATASOURCE_URL``
    beside "a second DataSource bean, ``LEDGER_REPLICA_URL``" is two data sources."""
    mine, theirs = _by_last_word(old_values), _by_last_word(new_values)
    if mine is None or theirs is None or not mine or not theirs:
        return []
    if any(named_in(a, newer) for a in mine.values()):
        return []
    if any(named_in(b, older) for b in theirs.values()):
        return []
    old_said = _said_outside(list(mine.values()), newer, list(theirs.values()))
    new_said = _said_outside(list(theirs.values()), older, list(mine.values()))
    if mine.keys() == theirs.keys():
        enough = old_said or new_said
    else:  # one note names more: both say a word of the other's
        nested = mine.keys() <= theirs.keys() or theirs.keys() <= mine.keys()
        enough = nested and old_said and new_said
    if not enough:
        return []
    return [
        Difference("name", end, mine[end].shown, theirs[end].shown)
        for end in sorted(mine.keys() & theirs.keys())
    ]


def _by_last_word(values: list[Value]) -> dict[str, Value] | None:
    """A note's environment variables by their last word (``_KEY``); None when two of
    them end alike (which of them was renamed is not said)."""
    out: dict[str, Value] = {}
    for value in values:
        if value.kind != "name" or not _ENV_KEY.fullmatch(value.shown):
            continue
        end = value.norm.rsplit("_", 1)[-1]
        if out.get(end, value).norm != value.norm:
            return None
        out[end] = value
    return out


def _said_outside(variables: list[Value], other: NoteFacts, its_own: list[Value]) -> bool:
    """Whether ``other`` says a word of ``variables`` (not their last), other than a
    word of its own variables, of its project's name ("inkwell" of ``INKWELL_LOG``: every
    note of inkwell-desktop says it) or a word any variable may hold
    (:data:`_ANY_VARIABLES`)."""
    taken = {stem(part) for value in its_own for part in value.norm.split("_")}
    taken |= {stem(part) for part in _IDENTIFIER_PARTS.split(other.memory.project.lower())}
    return any(
        len(word) >= 3
        and word not in _ANY_VARIABLES
        and stem(word) in other.prose_stems
        and stem(word) not in taken
        for value in variables
        for word in value.norm.split("_")[:-1]
    )


# Words of a variable's name that say nothing of its setting: a framework's prefix for
# what it exposes to the browser, a default.
_ANY_VARIABLES: Final = frozenset(
    {"api", "app", "default", "env", "max", "min", "public", "private", "vite", "next", "react"}
)


def _named_beside_its_key(
    older: NoteFacts, newer: NoteFacts, old_values: list[Value], new_values: list[Value]
) -> list[Difference]:
    """A setting one note gives a name, and a name the other note says beside the
    setting's own words: "the `tekton-builder` ServiceAccount", then
    ``serviceAccountName: pipeline-runner``; ``group.id`` is `clickstream-enricher`,
    then "a new consumer group, `cs-enricher-prod`". One thing's two names, whichever
    note sets it: notes say a setting in config and the same thing in prose by turns.

    Every word of the key but those that only say it holds a name (``name``, ``id``) is
    among the few words around the name (:func:`_words_around`). Neither note says the
    other's value; a name the older note says not to use ("we don't run
    BED_MESH_CALIBRATE in PRINT_START") is no value it holds; a name listed with the key
    itself is another field (:func:`_listed_beside`); and the notes share a word beside
    the key's (:func:`_share_a_word_beside`: "KV binding SESSIONS" and an R2 bucket's
    ``binding = "AVATARS"`` share only "binding")."""
    out: list[Difference] = []
    for setting_values, name_values, in_older in (
        (old_values, new_values, True),
        (new_values, old_values, False),
    ):
        setting_facts, name_facts = (older, newer) if in_older else (newer, older)
        for key in setting_values:
            if key.kind not in ("flag", "name") or not key.keyed or key.norm in _NOT_NAMES:
                continue
            value = key.shown.split("=", 1)[-1].strip("\"'")
            thing = _key_thing(key_of(key))
            if not thing or _NOT_A_NAME.search(value):
                continue
            for name in name_values:
                if name.kind != "name" or name.keyed or name.norm == key.norm:
                    continue
                if name.norm in setting_facts.lower or key.norm in name_facts.lower:
                    continue  # each note says only its own
                if not in_older and older.negated(older.clause(name.clause)):
                    continue
                if not thing <= _words_around(name, name_facts):
                    continue
                if _listed_beside(name, key_of(key), name_facts):
                    continue  # "`level`, `msg`": the key's field and another, not its value
                if not _share_a_word_beside(older, newer, thing):
                    continue  # the exporter's account, then the importer's
                old, new = (key, name) if in_older else (name, key)
                out.append(Difference("name", _key_said(key_of(key), thing), old.shown, new.shown))
    return out


@lru_cache(maxsize=4096)
def _key_thing(key: str) -> frozenset[str]:
    """The stems of a key's words that say what it names (``serviceAccountName``:
    ``servic``, ``account``; ``group.id``: ``group``), less those any key naming
    something ends in."""
    return frozenset(stem(word.lower()) for word in key_words(key) if not word.isdigit()) - (
        _HOLDS_A_NAME | GENERIC_KEY_WORDS
    )


def _key_said(key: str, thing: frozenset[str]) -> str:
    """A key's words that name its thing, as written, in lower case: ``serviceAccountName``
    is "service account"."""
    return " ".join(word.lower() for word in key_words(key) if stem(word.lower()) in thing)


# What no name holds: a call's parenthesis (``raw = adc1_get_raw(ADC1_CHANNEL_2)``).
_NOT_A_NAME = re.compile(r"[()]")
# Words of a key that say only that its value is a name: ``serviceAccountName``, ``group.id``.
_HOLDS_A_NAME: Final = frozenset({"name", "nam", "id", "key", "valu", "value"})


def _words_around(name: Value, facts: NoteFacts) -> frozenset[str]:
    """The stems of the three words before a name and the two after it in its clause
    (a word in camelCase is its words: "ServiceAccount")."""
    text = facts.clause(name.clause).text
    at = text.lower().find(name.shown.lower())
    if at == -1:
        return frozenset()
    end = at + len(name.shown)
    around = (
        _WORD.findall(text[max(0, at - 40) : at])[-3:] + _WORD.findall(text[end : end + 30])[:2]
    )
    return frozenset(stem(part.lower()) for word in around for part in key_words(word))


_WORD = re.compile(r"[A-Za-z]\w*")


def _listed_beside(name: Value, key: str, facts: NoteFacts) -> bool:
    """Whether a name is listed with the key itself ("carries `ts`, `level`, `msg` and
    `trace_id`"): fields of one list, none the others' value."""
    text = facts.clause(name.clause).text.lower()
    word, shown = re.escape(key.lower()), re.escape(name.shown.lower())
    items = rf"(?:{_LIST_GAP}`?[\w.-]+`?)*?{_LIST_GAP}"
    return (
        re.search(rf"(?<![\w.-])`?{word}`?{items}`?{shown}", text) is not None
        or re.search(rf"{shown}`?{items}`?{word}`?(?![\w.-])", text) is not None
    )


# What stands between two items of a list: a comma, "and", "or".
_LIST_GAP: Final = r"\s*(?:,|\band\b|\bor\b)\s*"


def _thing_of_key(key: str) -> frozenset[str]:
    """What a key's last word names, as stems (``init.defaultBranch``: ``branch``;
    ``role``: ``role``; the word before "name", ``QUEUE_NAME``: ``queu``); empty for a
    word any setting may end in."""
    words = key_words(key.rsplit(".", 1)[-1])
    if len(words) > 1 and words[-1].lower() == "name":
        words = words[:-1]
    last = stem(words[-1].lower()) if words else ""
    return frozenset({last}) if len(last) > 2 and last not in GENERIC_KEY_WORDS else frozenset()


# A value that names a thing: a word or an identifier, no number and no path.
_NAMED_VALUE = re.compile(r"[A-Za-z][\w.-]*")
# Values that switch or choose a mode rather than name a thing.
_NOT_NAMES: Final = frozenset(
    {"true", "false", "on", "off", "yes", "no", "none", "null", "auto", "default", "enabled",
     "disabled"}
)  # fmt: skip
