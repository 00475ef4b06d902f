"""How two notes differ in what they say to do: the newer note says not to do, or
retires, what the older one states; or the older said not to do what the newer now says
to do.

A negation or a retirement (:mod:`.reading.stances`) differs from the other note when that note
states what it turns against, in a clause of its body that is not itself negated, and
does not take the same stance, and the two clauses speak of one thing (not two scopes,
not two things of one kind: :mod:`.both_hold`)."""

from __future__ import annotations

import re

from anamnesis.store.review.both_hold import (
    qualified_apart,
    scoped_apart,
    titled_for_two_places,
)
from anamnesis.store.review.reading.stances import (
    DIRECTIVE,
    NEGATION,
    REPLACEMENT,
    VERBS,
    Stance,
    describes_first,
    head_stems,
    names_a_thing,
)
from anamnesis.store.review.reading.text import content_stems, stem
from anamnesis.store.review.records import Difference

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.text import Clause

_SHOWN_CHARS: Final = 80


def stance_differences(
    older: NoteFacts, newer: NoteFacts, mine: list[Clause], theirs: list[Clause]
) -> list[Difference]:
    """The newer note says not to do, or retires, what the older one states; or the older
    note said not to do what the newer one now says to do."""
    out: list[Difference] = []
    # the body's stances first: what they say is shown rather than the title's shorthand
    said_newer = sorted(newer.stances(theirs), key=lambda stance: stance.clause == 0)
    for said_stance in said_newer:
        stance = _of_title(said_stance, newer)
        if _shared(stance, older.stances(mine)):
            continue  # both notes say it: they agree
        clause = _states(older, mine, stance, directive=False)
        if clause is None and stance is not said_stance:
            # "strip symbols and don't ship them in the fleet zip": "them" may be what its
            # own clause names, not the title; the words it says are asked for as written
            stance = said_stance
            clause = _states(older, mine, stance, directive=False)
        said = newer.clause(stance.clause).text
        if clause is not None and stance is not said_stance and clause.stems.isdisjoint(VERBS):
            continue  # "do not edit them" is about editing the thing, not all said of it
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


def _of_title(stance: Stance, facts: NoteFacts) -> Stance:
    """A negation of doing something to "them" or "it" ("do not check them in") as one of
    doing it to what the note's title names ("types/generated in git"): the pronoun
    stands for the note's subject, which its body need not name again."""
    said = _TO_PRONOUN.match(stance.target)
    if stance.kind != NEGATION or said is None or stance.code:
        return stance
    title = facts.title
    # the title's words first: what the negation is about first (:func:`head_stems`)
    stems = tuple(dict.fromkeys((*content_stems(title), *content_stems(said.group(1)))))
    return Stance(stance.kind, f"{said.group(1)} {title}"[:80], stems, (), stance.clause)


# A verb and a pronoun for its object, at a negation's start ("check them in").
_TO_PRONOUN: Final = re.compile(r"([a-z]+)\s+(?:them|it)\b", re.IGNORECASE)


def _apart(mine: str, theirs: str, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether a clause of each note speaks of something else: for two scopes
    (:func:`scoped_apart`), or of one kind of thing told apart by the word before it
    (:func:`qualified_apart`)."""
    return (
        scoped_apart(mine, theirs, older, newer, leaving="", changed=True)
        or qualified_apart(mine, theirs, older, newer)
        or titled_for_two_places(older, newer)
    )


def _shared(stance: Stance, others: list[Stance]) -> bool:
    """Whether the other note says the same: a stance of the kind about the same thing,
    or a negation of what a replacement retires ("we don't require cl", "`cl` is
    obsolete": both say it is out)."""
    key = set(stance.stems[:4])
    need = 1 if len(key) <= 1 else 2
    return any(
        (other.kind == stance.kind or (stance.kind, other.kind) == (REPLACEMENT, NEGATION))
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
    owners = _owners(stance)
    methods = _methods(stance)
    # a compound first word is named by all its parts too ("force-push" by `git push
    # --force-with-lease`)
    first = stance.target.strip("`").split()[0] if stance.target.strip("`") else ""
    parts = frozenset(content_stems(first)[1:]) if "-" in first else frozenset()
    # The first word of a thing's name may only say which or how much of it ("the whole
    # suite", "the separate install is gone"): all the others, two at least, in one
    # clause state it too.
    rest = set(stance.stems[1:4]) - {stance.stems[0]} if describes_first(stance) else set()
    # A title names a subject, it states nothing (unless it is all there is).
    stated = [clause for clause in chosen if not clause.is_title] or chosen
    usable = [
        clause
        for clause in stated
        if not facts.negated(clause)
        and not (
            _SET_OFF.search(clause.text)
            and not any(code and code in clause.text.lower() for code in stance.code)
        )  # (a setting turned off says not to do it, unless that is what the stance names)
        and (not directive or _directs(clause, heads))
    ]
    for clause in usable:
        lower = clause.text.lower()
        if any(code and code in lower for code in stance.code):
            return clause
        if any(_names(code, target, heads) for code in facts.code(clause)):
            return clause
        if any(re.search(rf"(?<![\w.]){re.escape(name)}(?:\.|::)\w", lower) for name in owners):
            return clause  # ``ioutil.ReadFile`` uses the package "io/ioutil"
        if any(f".{method}(" in lower for method in methods):
            return clause  # ``df.append(...)`` calls the retired ``DataFrame.append``
        if key and len(key & clause.stems) >= need and _holds(clause, heads, parts):
            if directive and not _does_it_to(key, heads, clause):
                continue  # "don't ship a statically linked Qt", "ship the Qt DLLs"
            return clause  # the thing it is about first ("never paste tokens" is not "jwt")
        if len(rest) >= 2 and rest <= clause.stems:
            return clause  # "the whole suite locally": "whole" only says how much of it
    if len(key) >= 2 and stance.stems:
        together = frozenset().union(*(clause.stems for clause in usable)) if usable else set()
        # a title naming all of a thing says what the body is about: "via-IR pipeline"
        # over "compile with `via_ir = true`" states the IR pipeline (not an action: a
        # title "Email sending rate" says of "throttles at 50 emails" no sending)
        if names_a_thing(stance) and any(c.is_title and key <= c.stems for c in chosen):
            together = together | key
        if len(key & together) >= 2:
            for clause in usable:
                if not heads.isdisjoint(clause.stems) and not (
                    directive and not _does_it_to(key, heads, clause)
                ):
                    return clause
    return None


def _does_it_to(key: set[str], heads: frozenset[str], clause: Clause) -> bool:
    """Whether a clause saying to do something does it to what a negation says not to do
    it to: two of the negation's other words, or its only one ("don't sign commits",
    "sign every commit"; not "ship statically linked Qt" and "ship the Qt DLLs"), and the
    identifier it names, whole: ``binary_to_existing_atom/2`` holds the words of
    ``binary_to_atom/2``, and is another function."""
    named = {word for word in key if _IDENTIFIER_WORD.search(word)}
    if named and named.isdisjoint(clause.stems):
        return False
    rest = key - heads
    return len(rest & clause.stems) >= min(2, len(rest))


# A word of code: snake_case, a path or a dotted name.
_IDENTIFIER_WORD: Final = re.compile(r"\w[_./]\w")


def _directs(clause: Clause, heads: frozenset[str]) -> bool:
    """Whether a clause says to do something: it holds a word of recommendation
    (:data:`.reading.stances.DIRECTIVE`: "prefer", "always"), or it opens as an imperative
    does, after a label or a condition ("Decided:", "In CI,", "When the lock is stuck,"):
    "use ..." (a word too common to be a stem, so read as written), or the verb the
    negation is about, then what it is done to, a determiner, a name or code ("Log the
    full request body", "Sign every commit", "In CI, set `SKIP_LINKCHECK=1`"); not a noun
    ("Ports are only used for ...", "FINAL made the panels time out", "Full product
    reindexes run at night")."""
    if clause.stems & DIRECTIVE:
        return True
    opening = _IMPERATIVE.match(clause.text)
    if opening is None:
        return False
    verb, following = opening.group(1), opening.group(2)
    if verb.lower() in _IMPERATIVES:
        return True
    if verb.isupper():
        return False  # "FINAL made ...": a name, not a verb
    # the negation's verb, then what it is done to: a name, code, a determiner
    return stem(verb.lower()) in heads and (
        following in _OBJECT_OPENERS or not following.strip("`'\"")[:1].islower()
    )


# A clause's first word, past a list's mark, a label or a condition ("Decided:", "In CI,",
# "When the lock is stuck,") and a word of manner ("just"), and the word after it.
_IMPERATIVE: Final = re.compile(
    r"\s*(?:[-*\d.)]+\s+)?(?:[^.;:,`]{1,40}[:,]\s+)?(?i:(?:just|simply|always|now|then"
    r"|also|please)\s+)?([A-Za-z]+)\s+([`'\"]?[\w.-]+)"
)
# What an imperative's object opens with: a determiner, a preposition.
_OBJECT_OPENERS: Final = frozenset(
    """
    the a an every all each any your our its it them this that these those with on in
    into to from for under over
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# Imperative verbs too common to be a stem of a clause's (:data:`.reading.text.GENERIC`).
_IMPERATIVES: Final = frozenset({"use", "keep", "run", "set", "make", "always"})


# A setting turned off ("enable_signup = false", "cache: off"): its clause says not to do
# what it names, as a negation does.
_SET_OFF: Final = re.compile(r"[=:]\s*[\"']?(?:false|off|no|disabled|none)\b", re.IGNORECASE)


def _owners(stance: Stance) -> list[str]:
    """The last part of each package path a stance names, in lower case ("io/ioutil":
    ``ioutil``, which owns ``ioutil.ReadFile``). Four letters at least: "os" and "io" own
    too much."""
    names = [re.split(r"[/.:]", code.rstrip("/.:"))[-1] for code in stance.code if "/" in code]
    return [name for name in dict.fromkeys(names) if len(name) >= 4]


def _methods(stance: Stance) -> list[str]:
    """The method a stance names with its class (``DataFrame.append``, ``Model.save()``),
    lower case: code calls it on an object of any name (``df.append(...)``)."""
    method = _CLASS_METHOD.fullmatch(stance.target.strip("`").strip())
    return [method.group(1).lower()] if method else []


# A class, by its capital, and a method of it: "DataFrame.append", "Session.query()".
_CLASS_METHOD: Final = re.compile(r"[A-Z]\w*\.([a-z_]\w{2,})(?:\(\))?")


def _holds(clause: Clause, heads: frozenset[str], parts: frozenset[str]) -> bool:
    """Whether a clause holds what a stance is about first: one of its ``heads``, or all
    the ``parts`` of a compound first word (two at least)."""
    return not heads.isdisjoint(clause.stems) or (len(parts) >= 2 and parts <= clause.stems)


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
