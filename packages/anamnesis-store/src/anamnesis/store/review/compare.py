"""How two notes differ: the values each states for the same thing, the things one says
not to do or says are gone while the other states them.

Values are paired kind by kind, the best-matched pairs first: a value with a slot (a
setting's key, a flag, a version's tool) pairs only with a value of the same slot; a
number pairs with one in the same unit whose clause shares a word; a port, path, URL,
command or name pairs with one whose clause shares enough words. A pair that states the
same value agrees (a value inside the other's range, a path under the other, a command
inside the other, 3.11 and 3.11.4 agree too); the rest differ, unless the older note
states the newer value as well, or the two clauses are visibly about different things
(``orders`` table against ``customers`` table) in a newer note that says nothing changed.
"""

from __future__ import annotations

import re

from anamnesis.store.review.records import DIFFERENCE_KINDS, Difference
from anamnesis.store.review.stances import DIRECTIVE, NEGATION, is_negated
from anamnesis.store.review.text import content_stems, words
from anamnesis.store.review.values import KINDS, parse_version

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.facts import NoteFacts
    from anamnesis.store.review.stances import Stance
    from anamnesis.store.review.text import Clause
    from anamnesis.store.review.values import Value


# How many words two clauses must share for their values to be about the same thing,
# by kind (a name or a command needs more: they are everywhere).
_THRESHOLD: Final = {
    "number": 1.0, "version": 2.0, "port": 1.0, "path": 1.0, "url": 1.0, "flag": 1.0,
    "command": 1.5, "name": 2.0,
}  # fmt: skip
# Words that say a note is about a change: then a new word beside the value is the new
# state of the same thing, not another thing ("moved to Vite").
_CHANGE: Final = re.compile(
    r"\b(?:now|moved?|switch(?:ed)?|chang(?:ed|es)?|since|no\s+longer|instead|replac(?:ed|es)"
    r"|raised|lowered|bump(?:ed)?|upgraded?|downgraded?|migrat(?:ed|ion)|renamed|updated"
    r"|reduced|increased|anymore|used\s+to|from\s+now)\b",
    re.IGNORECASE,
)
_SHOWN_CHARS: Final = 80


def differences(older: NoteFacts, newer: NoteFacts) -> tuple[Difference, ...]:
    """How ``newer`` disagrees with ``older`` (empty: no sign that it does), each kind
    in :data:`.records.DIFFERENCE_KINDS` order, each difference once."""
    mine, theirs = older.relevant(newer), newer.relevant(older)
    found = [
        *_stance_differences(older, newer, mine, theirs),
        *_value_differences(older, newer, older.values(mine), newer.values(theirs)),
        *_flag_set_differences(older.values(mine), newer.values(theirs)),
    ]
    unique = list({(d.kind, d.subject, d.old, d.new): d for d in found}.values())
    order = {kind: i for i, kind in enumerate(DIFFERENCE_KINDS)}
    return tuple(sorted(unique, key=lambda d: order.get(d.kind, len(order))))


# -- values ------------------------------------------------------------------------------


def _value_differences(
    older: NoteFacts, newer: NoteFacts, old_values: list[Value], new_values: list[Value]
) -> list[Difference]:
    titles = min(len(older.title_stems & newer.title_stems), 2) * 0.5
    changed = bool(_CHANGE.search(newer.lower))
    out: list[Difference] = []
    for kind in KINDS:
        olds = [value for value in old_values if value.kind == kind]
        news = [value for value in new_values if value.kind == kind]
        if not olds or not news:
            continue
        ranked: list[tuple[float, bool, int, int]] = []
        for i, a in enumerate(olds):
            for j, b in enumerate(news):
                score = _alignment(a, b, titles)
                if score is None:
                    continue
                same = agree(a, b)
                if not same and not changed and _other_things(a, b, older, newer):
                    continue
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
            if not differ or any(agree(other, b) for other in olds if _same_slot(other, b)):
                continue  # the older note states the newer value too
            if kind in ("name", "command") and any(agree(a, other) for other in news):
                continue  # the newer note still names the older one
            if kind == "command" and _tool(a.norm) == _tool(b.norm):
                continue  # the same command: its flags and values say what differs
            out.append(Difference(kind, _subject(a, b, older), a.shown, b.shown))
    return out


def _alignment(a: Value, b: Value, titles: float) -> float | None:
    """How surely two values of a kind are about the same thing; None: they are not."""
    if a.keyed and b.keyed and a.kind != "url":
        if a.slot != b.slot:
            return None
        return 2.0 + len(a.stems & b.stems) + titles
    if a.kind == "number":
        if a.keyed != b.keyed or not a.slot or a.slot != b.slot:
            return None
    elif a.kind in ("version", "flag") and (a.keyed or b.keyed):
        return None
    shared = len(a.stems & b.stems) + 0.5 * len(set(a.near) & set(b.near))
    if shared < _THRESHOLD[a.kind]:
        return None
    return shared + titles


def _same_slot(a: Value, b: Value) -> bool:
    return a.kind == b.kind and (a.slot == b.slot or not (a.keyed and b.keyed))


def agree(a: Value, b: Value) -> bool:
    """Whether two values of a kind can both be true of one thing: the same value, a
    value inside the other's range, the same version at another precision, a path under
    the other, a command or name inside the other."""
    if a.norm == b.norm:
        return True
    if a.kind == "version":
        return _versions_agree(a, b)
    if a.kind in ("path", "url"):
        shorter, longer = sorted((a.norm, b.norm), key=len)
        return longer.startswith(shorter + "/") or longer.endswith("/" + shorter)
    if a.kind in ("command", "name"):
        shorter, longer = sorted((a.norm, b.norm), key=len)
        return f" {shorter} " in f" {longer} "
    return False


def _versions_agree(a: Value, b: Value) -> bool:
    if a.low is not None or a.high is not None:
        if b.low is not None or b.high is not None:
            return a.low is not None and a.low == b.low  # the same floor: one is narrower
        return _inside(b, a)
    if b.low is not None or b.high is not None:
        return _inside(a, b)
    left, right = parse_version(a.norm), parse_version(b.norm)
    if left is None or right is None:
        return False
    if _suffix(a.norm) != _suffix(b.norm) and _suffix(a.norm) and _suffix(b.norm):
        return False
    size = min(len(left), len(right))
    return left[:size] == right[:size]


def _suffix(norm: str) -> str:
    return norm.split("-", 1)[1] if "-" in norm else ""


def _inside(value: Value, bounds: Value) -> bool:
    version = parse_version(value.norm)
    if version is None:
        return False
    if bounds.low is not None and version[: len(bounds.low)] < bounds.low:
        return False
    return bounds.high is None or version[: len(bounds.high)] < bounds.high


def _other_things(a: Value, b: Value, older: NoteFacts, newer: NoteFacts) -> bool:
    """Whether the two values are visibly of different things: each clause holds a word
    of its note's title that the other note never mentions (``orders`` table against
    ``customers`` table; the HTTP port against the Postgres port)."""
    mine = (older.clause(a.clause).stems & older.title_stems) - {a.slot}
    theirs = (newer.clause(b.clause).stems & newer.title_stems) - {b.slot}
    only_mine = [word for word in mine if word not in newer.lower]
    only_theirs = [word for word in theirs if word not in older.lower]
    return bool(only_mine and only_theirs)


def _tool(command: str) -> str:
    parts = command.split()
    if len(parts) > 1 and re.fullmatch(r"[a-z][a-z0-9-]*", parts[1]):
        return f"{parts[0]} {parts[1]}"
    return parts[0] if parts else ""


def _subject(a: Value, b: Value, older: NoteFacts) -> str:
    """The words the two values share around them, as the older note writes them."""
    if a.keyed and a.slot == b.slot and a.slot:
        return a.slot
    shared = a.stems & b.stems
    clause = older.clause(a.clause).text
    picked: list[str] = []
    for word in words(re.sub(r"`[^`]*`", " ", clause)):
        stems = content_stems(word)
        if stems and stems[0] in shared and word.lower() not in picked:
            picked.append(word.lower())
    if a.kind == "number" and a.slot and not a.slot.startswith("~"):
        picked.append(a.slot.lstrip("/"))
    return " ".join(picked[:5]) or a.kind


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
    return {_tool(value.norm) for value in values if value.kind == "command"}


# -- negations and replacements ----------------------------------------------------------


def _stance_differences(
    older: NoteFacts, newer: NoteFacts, mine: list[Clause], theirs: list[Clause]
) -> list[Difference]:
    """The newer note says not to do, or retires, what the older one states; or the older
    note said not to do what the newer one now says to do."""
    out: list[Difference] = []
    for stance in newer.stances(theirs):
        clause = _states(mine, stance, directive=False)
        if clause is not None:
            said = newer.clause(stance.clause).text
            out.append(Difference(stance.kind, _target(stance), _short(clause.text), _short(said)))
    for stance in older.stances(mine):
        if stance.kind != NEGATION:
            continue
        clause = _states(theirs, stance, directive=True)
        if clause is not None:
            said = older.clause(stance.clause).text
            out.append(Difference(NEGATION, _target(stance), _short(said), _short(clause.text)))
    return out


def _states(chosen: list[Clause], stance: Stance, *, directive: bool) -> Clause | None:
    """The clause among ``chosen`` that states what ``stance`` turns against, not negated
    itself (and, with ``directive``, saying to do it); None when no clause does."""
    key = set(stance.stems[:4])
    need = 1 if len(key) <= 1 else 2
    for clause in chosen:
        lower = clause.text.lower()
        hit = any(code and code in lower for code in stance.code)
        if not hit and key:
            hit = len(key & clause.stems) >= need
        if not hit or is_negated(clause.text):
            continue
        if directive and not (clause.stems & DIRECTIVE):
            continue
        return clause
    return None


def _target(stance: Stance) -> str:
    return stance.target.replace("`", "").strip()


def _short(text: str) -> str:
    """A clause as a pair shows it: whole words, at most :data:`_SHOWN_CHARS` characters."""
    text = " ".join(text.split())
    if len(text) <= _SHOWN_CHARS:
        return text
    return text[: _SHOWN_CHARS - 1].rsplit(" ", 1)[0] + "\u2026"
