"""Values a newer note names only to leave them: a port it says clashed ("8080 clashed
with Trino"), a value it says is gone ("nothing listens on 1883 anymore"), an older command
it says fails or is of the past (:func:`.reading.commands.retired_in`). What the newer note states
beside such a mention is its new value of the same thing; the mention itself is no value it
states."""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.review.agreement import agree
from anamnesis.store.review.reading.commands import (
    program_of,
    retired_in,
    retiring_clauses,
    tool_of,
)

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.text import Clause
    from anamnesis.store.review.reading.value import Value


# Kinds whose value a newer note names as what it left, by the words after it.
LEFT_KINDS: Final = frozenset({"number", "port", "version"})
# What a value was left for, said right after it: "8080 clashed with", "3000 is taken by".
_LEFT_FOR = re.compile(
    r"^[`'\"]?\s*(?:\w+\s+){0,2}?(?:clash(?:ed|es)?|collid(?:ed|es)|conflict(?:ed|s)?"
    r"|(?:was|is|were|are)\s+(?:already\s+)?(?:taken|in\s+use|busy|occupied)"
    r"|belongs?\s+to|(?:was|is)\s+(?:already\s+)?(?:used|owned|held)\s+by)\b",
    re.IGNORECASE,
)
# Another thing said to hold a value, right before it: "Puma also wants 9292", "the docs
# server already uses port 4173".
_CLAIMED_BEFORE = re.compile(
    r"\b(?:also|already)\s+(?:wants|uses|takes|grabs|holds|owns|occupies|binds(?:\s+to)?"
    r"|listens\s+on|runs\s+on)\s+(?:port\s+)?[`'\"]?$",
    re.IGNORECASE,
)


def left_behind(value: Value, facts: NoteFacts) -> bool:
    """Whether the note says of ``value`` that it was given up: right after it, that it
    clashed or collided with something, it is taken, it belongs to another thing
    (:data:`_LEFT_FOR`); or right before it, that another thing wants it too
    (:data:`_CLAIMED_BEFORE`)."""
    text = facts.clause(value.clause).text
    at = text.find(value.shown)
    return at != -1 and (
        _LEFT_FOR.match(text[at + len(value.shown) :]) is not None
        or _CLAIMED_BEFORE.search(text[:at]) is not None
    )


def said_as_former(value: Value, facts: NoteFacts) -> bool:
    """Whether the note names ``value`` as the one of before, right after "the old" or
    "the former" ("The old `orbitfleet/route-planner` on Docker Hub is stale"): a value
    it no longer holds, whatever else it says of it."""
    text = facts.clause(value.clause).text
    at = text.find(value.shown)
    if at <= 0 or text[at - 1] not in " `'\"":
        return False
    before = text[:at].rstrip("`'\" ").rsplit(None, 1)
    return bool(before) and before[-1].lower() in _FORMER


# Words naming a value as the one of before: "the old `orbitfleet/route-planner`".
_FORMER: Final = frozenset({"old", "former", "previous", "legacy"})


@lru_cache(maxsize=4096)
def names_a_former(lower: str) -> bool:
    """Whether a note's text (lower case) says any word naming a value as the one of
    before: most notes do not, and their values are then never looked at one by one."""
    return _FORMER_WORD.search(lower) is not None


_FORMER_WORD = re.compile(rf"\b(?:{'|'.join(sorted(_FORMER))})\b")


def retired_commands(
    olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts, theirs: list[Clause]
) -> set[int]:
    """The older note's commands (by index) that the newer note, giving commands of its
    own, says fail or are of the past (:func:`.reading.commands.retired_in`) in the clauses
    compared (``theirs``: a long note's lead against another long note): the newer gives
    the task's new way. A command the older note itself says not to run is retired by
    neither."""
    said = newer.retiring(theirs)
    if not said:
        return set()
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
        if not older.avoids(a)
        and retired_in(a.shown, said, running)
        and any(not agree(a, b) for b in news)
    }


def values_given_up(
    olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> tuple[set[int], list[Value]]:
    """The older note's values (by index) that the newer note names only to say they are
    gone ("nothing listens on 1883 anymore", "we no longer pin 3.9"), and the newer
    note's values left once those mentions are set aside: what it states instead is the
    new value of the same thing, whatever words it is said among. A value the older note
    itself says not to use is given up by neither."""
    gone = [b for b in news if said_gone(b, newer)]
    if not gone:
        return set(), news
    given_up = {
        i for i, a in enumerate(olds) if not older.avoids(a) and any(agree(a, b) for b in gone)
    }
    if not given_up:
        return set(), news
    left = [b for b in news if not (b in gone and any(agree(olds[i], b) for i in given_up))]
    return (given_up if left else set()), left


# What says a value is gone, said just before it ("nothing listens on", "no longer pins",
# "clashed with the dashboard on")
# or just after it ("1883 anymore", "8080 is gone", "9000 is closed", "80% was too
# noisy"), within its part of the sentence.
_GONE_BEFORE = re.compile(
    r"\b(?:no\s+longer|nothing|nobody|never|stopped|dropped|removed|moved\s+(?:off|away\s+from)"
    r"|switched\s+(?:off|away\s+from)|migrated\s+(?:off|from)|instead\s+of|rather\s+than|took"
    r"|taken\s+by|(?:clash(?:ed|es)?|collid(?:ed|es)|conflict(?:ed|s)?)\s+with)\b[^.;,:]{0,30}$",
    re.IGNORECASE,
)
# What says another thing holds a value, as the reason the note's thing left it, said just
# before it: "because Keycloak grabs 8080", "since the storefront's Vite also wants 5173",
# "next to the admin app, which keeps 4000".
_HELD_BY_ANOTHER = re.compile(
    r"\b(?:because|since|as|which|while)\s+[^.;:]{0,40}?\b(?:grabs|grabbed|takes|took|holds"
    r"|held|owns|keeps|kept|occupies|occupied|wants|wanted|needs|needed|(?:already|also)\s+uses?)"
    r"\s+(?:port\s+)?[`'\"]?$"
    # or a verb of owning alone, in its own part of the sentence: "the sidecar owns 8080"
    r"|\b(?:owns|grabs|grabbed|occupies|occupied)\s+(?:port\s+)?[`'\"]?$",
    re.IGNORECASE,
)
_GONE_AFTER = re.compile(
    r"^[`'\"]?[^.;,:]{0,25}?\b(?:anymore|any\s+more|no\s+longer|is\s+gone|was\s+removed"
    r"|was\s+dropped|(?:is|was|got|has\s+been)\s+deprecated|reached\s+(?:its\s+)?end[\s-]of[\s-]life"
    r"|(?:is|are|was|were)\s+(?:now\s+)?(?:closed|blocked|firewalled)"
    # "80% was too noisy", "4 workers weren't enough": tried and given up
    r"|(?:was|were)\s+(?:way\s+|much\s+|far\s+)?too\s+[a-z]+|(?:was|were)(?:n't|\s+not)\s+enough"
    r"|is\s+(?:past\s+)?(?:eol|end[\s-]of[\s-]life))\b",
    re.IGNORECASE,
)


def said_gone(value: Value, facts: NoteFacts) -> bool:
    """Whether the note names ``value`` to say it is gone (:data:`_GONE_BEFORE`,
    :data:`_GONE_AFTER`) or held by another thing (:data:`_HELD_BY_ANOTHER`), not as a
    value it states."""
    return _said_gone_in(facts.clause(value.clause).text, value.shown)


@lru_cache(maxsize=16384)
def _said_gone_in(text: str, shown: str) -> bool:
    """:func:`said_gone` of a clause's text and a value as it is shown there: kept, since a
    note's values are read again for each note it is compared with."""
    at = text.find(shown)
    if at == -1:
        return False
    before = text[:at]
    return bool(
        _GONE_BEFORE.search(before)
        or _HELD_BY_ANOTHER.search(before)
        or _GONE_AFTER.match(text[at + len(shown) :])
    )


def retiring_mention(b: Value, olds: list[Value], retired: set[int], newer: NoteFacts) -> bool:
    """Whether a newer command only names a retired older one where it says it fails ("a
    bare `npx prisma generate` fails"): a mention, not a command the newer note runs."""
    said = retiring_clauses([newer.clause(b.clause).text])
    return any(
        i in retired and agree(a, b) and retired_in(a.shown, said) for i, a in enumerate(olds)
    )
