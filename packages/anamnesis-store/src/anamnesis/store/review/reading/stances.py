"""What a note says not to do, and what it says is gone: negations and replacements.

A negation ("never use X", "don't cache X", "do not enable X", "avoid X", "X instead
of Y" for Y, "stop X-ing", "without X", a title "No X") turns against another note
that says to do X. A replacement ("X is deprecated", "X was replaced by Y", "X in favour
of Y", "X no longer ...", "X was removed / deleted / switched off", "moved from X",
"switched from X") is a newer note retiring something an older one states. Each is
read as a :class:`Stance`: its kind, the thing it is about (``target``: the words, or
the code span, it turns against) and the clause it is in.
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.record import Record
from anamnesis.store.review.reading.text import CODE_SPAN, GENERIC, Clause, content_stems, stem

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Final


# A cue and the target after it: "never use X", "don't X", "instead of X".
_NEGATION_BEFORE = re.compile(
    r"\b(?:never|don['\u2019]t|do\s+not|does\s+not|doesn['\u2019]t|must\s+not|mustn['\u2019]t"
    r"|should\s+not|shouldn['\u2019]t|no\s+longer|no\s+more|avoid|stop(?:ped)?(?=\s+[\w-]+ing\b)"
    r"|instead\s+of"
    r"|rather\s+than|not\s+even|(?:without|no)(?=\s+(?:`|-))"
    # "with polars, not pandas": a choice's other side
    r"|(?<=,\s)not(?=\s+(?!(?:only|just|even|always|yet|all|every|sure|needed|required"
    r"|necessary|used|a|an|the)\b)[`\w]))\b\s*(?:use|using)?\s*",
    re.IGNORECASE,
)
# "X must not be installed", "X must never be exposed": the target is what comes before.
_PASSIVE_NEGATION = re.compile(
    r"\b(?:must|should|can|may)\s*(?:not|n['\u2019]t|\s+never)\s+be\s+\w+ed\b", re.IGNORECASE
)
# "X isn't used", "X are not obfuscated any more", "X isn't a fallback any more": the
# thing before is not (or no longer) done. "Not Y-ed any more" says the Y-ing is over too.
_NOT_DONE = re.compile(
    r"\b(?:is|are|was|were)\s*(?:not|n['\u2019]t)\s+(?:(?:used|enabled|installed|needed"
    r"|required|allowed)\b|(?P<done>[a-z]+ed)\s+(?:anymore|any\s+more)\b"
    r"|(?:[\w-]+\s+){1,3}?(?:anymore|any\s+more)\b)",
    re.IGNORECASE,
)
# "keep X off", "leave X disabled", "go out with X off": X is not to be on (the thing
# between, code or a few words); "X is off", "X stays disabled": the thing before.
_KEPT_OFF = re.compile(
    r"\b(?:keep|keeps|kept|leave|leaves|left|turn|turned|switch|switched|set|with)\s+"
    r"(?P<thing>`[^`]+`|(?:[\w-]+\s+){0,2}[\w-]+)\s+(?:off|disabled)\b",
    re.IGNORECASE,
)
# Not "off by default", "off when idle", "disabled for guests": off only sometimes. "X
# stays out of git" keeps X out as much.
_IS_OFF = re.compile(
    r"\b(?:is|are|stays|stay|remains|remain)\s+(?:off|disabled)\b"
    r"(?!\s+(?:by|when|if|for|in)\b)"
    r"|\b(?:stays|stay|remains|remain|is\s+kept|are\s+kept)\s+out\s+of\b",
    re.IGNORECASE,
)
# "X is in .gitignore", "X are git-ignored": X is not to be committed (the file named in
# code too, so read on the text as written).
_IGNORED_BY_GIT = re.compile(
    r"\b(?:is|are)\s+(?:listed\s+)?in\s+(?:the\s+)?`?\.gitignore`?|\b(?:is|are)\s+git-?ignored\b",
    re.IGNORECASE,
)
_TITLE_NO = re.compile(r"^(?:no|not|never|don['\u2019]t|do\s+not|stop|avoid)\s+", re.IGNORECASE)
# A cue with the retired thing before it: "X is deprecated", "X was replaced by Y", "X
# was renamed" (its name is the retired thing).
_RETIRED_AFTER = re.compile(
    r"\b(?:(?:is|are|was|were|has\s+been|have\s+been|got|gets|being|now)\s+)?"
    r"(?:deprecated|removed|deleted|dropped|gone|retired|replaced|superseded|obsolete"
    r"|decommissioned|switched\s+off|turned\s+off|shut\s+down|sunset|no\s+longer"
    r"|phased\s+out|ripped\s+out"
    r"|blocked|cancell?ed|discontinued|banned|forbidden|disallowed"
    r"|ignored|unused|unsupported|renamed|(?:moved|migrated|switched)\s+(?=to\b)"
    r"|scheduled\s+for\s+(?:deletion|removal)|in\s+favou?r\s+of"
    r"|reached\s+(?:its\s+)?end[\s-]of[\s-](?:support|life))\b",
    re.IGNORECASE,
)
# The cues of :data:`_RETIRED_AFTER` that forbid rather than retire.
_PROHIBITED = re.compile(r"\b(?:banned|forbidden|disallowed)\b", re.IGNORECASE)
# A cue with the retired thing after it: "moved from X", "switched from X to Y", "moved
# the nightly jobs from X to Y" (what moved is said between).
_RETIRED_BEFORE = re.compile(
    r"\b(?:moved|switched|migrated|changed|went|replaced|dropped|removed|deprecated|renamed)\s+"
    r"(?:away\s+)?from\s+|\b(?:moved|switched|migrated)\s+(?:[\w-]+\s+){1,6}?from\s+"
    # "raster functions moved out of the postgis extension": out of it, as from it
    r"|\b(?:moved|migrated)\s+out\s+of\s+"
    # not "replaced by Y", "deprecated in favour of Y": Y is the new thing
    r"|\b(?:deprecated|replaced)\s+(?!(?:by|with|in|since|for|as|on|and|because)\b)"
    r"|\bused\s+to\s+(?:use\s+)?"
    r"|\bmoved\s+off\s+|\bgot\s+rid\s+of\s+|\bstopped\s+using\s+"
    r"|\b(?:left|dropped|ditched|abandoned)\s+(?=(?-i:[A-Z`]))"
    r"|\b(?:phased|ripped|took|pulled)\s+out\s+(?:of\s+)?"
    r"|\bswapped\s+(?:out\s+)?",
    re.IGNORECASE,
)
_TO = re.compile(r"\s+to\b.*$", re.IGNORECASE)
# What a thing was replaced or swapped with, after it: "replaced Celery with RQ",
# "swapped Celery for Dramatiq" (the new thing, not what is retired).
_WITH = re.compile(r"\s+(?:with|for|by)\b.*$", re.IGNORECASE)
_SWAP_CUE = re.compile(r"\b(?:replaced|swapped)\b", re.IGNORECASE)
# A clause that starts by saying what went, in a change log's words: "Removed the weights
# from the image", "Not tmux anymore: ...", "there's no npm step any more".
_GONE_AT_START = re.compile(
    r"^(?:removed|dropped|deleted|retired|ditched|got\s+rid\s+of"
    r"|(?:there(?:['\u2019]s|\s+is|\s+are)\s+)?(?:not|no)\s+"
    r"(?=[^.;:]{1,40}?\b(?:anymore|any\s+more)\b))\s*(?:the\s+|our\s+)?",
    re.IGNORECASE,
)
_ANYMORE = re.compile(r"\s+(?:anymore|any\s+more)\b.*$", re.IGNORECASE)
# A clause that starts by saying a thing is not there: "No formatter in the pre-commit
# hook" (not "No longer ...", "No one ...", "No need to ...").
_NONE_AT_START = re.compile(
    r"^no\s+(?!(?:longer|one|need|matter|idea|way|more|later|further|less|fewer)\b)(?=\w)",
    re.IGNORECASE,
)
# A person just before a cue, its doer: "we dropped X", "I removed X" (X after the cue).
_DOER_BEFORE = re.compile(r"\b(?:we|i|they|you|someone|somebody)\s+$", re.IGNORECASE)
# Cues that also name what happens to one thing of many ("a message is dropped").
_WEAK = re.compile(r"\b(?:removed|deleted|dropped|blocked|cancell?ed)\b", re.IGNORECASE)
_INDEFINITE = re.compile(
    r"\b(?:an?|any|each|every|some)\s+(?:[\w-]+\s+){0,2}(?:is|are|gets?)?\s*$", re.I
)
# A target that only points back at something said before, or is no thing at all.
_PRONOUN = re.compile(
    r"(?:that|this|it|them|these|those|they|which|and|or|but|so)\b", re.IGNORECASE
)
# A target that says where or how, not what: "never in Slack", "not on Fridays".
_PLACE = re.compile(r"(?:in|on|at|to|into|inside|within|from|for|during|via|through)\b", re.I)
# A place after the thing a cue is about: "X in the environment is ignored".
_WHERE = re.compile(
    r"\s+(?:in|on|at|inside|within|from|under)\s+(?:the\s+|a\s+|an\s+|our\s+|its\s+|your\s+)?"
    r"[\w-]+$",
    re.IGNORECASE,
)
# Verbs a "never ..." starts with, before the thing it is about (their stems); a clause
# holding one says to do something (stance_differences).
VERBS: Final = frozenset(
    stem(word)
    for word in """
    put run use add set enabl install call commit push merg deploy stor keep creat writ edit
    pin wrap cach mount expos open send pass hardcod copy past chang touch invok execut
    import go goe belong turn switch allow start ship upload reli depend
    """.split()  # noqa: SIM905 - a word list reads best as words
)
# What makes a "don't" a condition: "without", "unless" after it; not "with or without",
# which says either way ("never force-push, with or without lease").
_CONDITION = re.compile(r"\b(?<!\bwith\sor\s)(?:without|unless|except|until)\b", re.IGNORECASE)
# Where a target ends: punctuation, or a word that starts another thought.
_TARGET_END = re.compile(
    r"[:,;]|\s[-\u2013\u2014]\s|\b(?:because|since|so|while|when|as|but|and\s+(?:use|run"
    r"|leave|put|pin|keep)|which|it|they|we|until|without|unless|otherwise)\b"
    # "don't use PCBA for this board": the project itself, which every note is about
    r"|\s(?:for|in|on|across)\s+this\s+(?:board|project|repo|repository|app|codebase|service"
    r"|package|crate|library|site|module)\b",
    re.IGNORECASE,
)
# Words that make a clause a recommendation: the other side of a negation.
DIRECTIVE: Final = frozenset(
    stem(word)
    for word in """
    use usi enabl enable run set instal install prefer recommend fine ok okay allow always
    should must pin wrap style cache keep put point configur add call
    """.split()  # noqa: SIM905 - a word list reads best as words
)

# Every word a stance can start from: a clause holding none states none (most clauses),
# found by a set of its words, much faster than any pattern.
_CUE_WORDS: Final = frozenset(
    """
    never don't dont do does doesn't doesnt isn't isnt aren't arent must mustn't should
    shouldn't can may no not none nothing avoid stop stopped instead rather without
    deprecated removed deleted dropped gone retired replaced superseded obsolete
    decommissioned switched turned shut sunset scheduled favour favor moved migrated
    changed went used longer ignored unused unsupported left ditched abandoned rid blocked
    cancelled canceled discontinued banned forbidden disallowed off disabled stays stay
    remains remain kept renamed gitignore gitignored reached swapped phased ripped took pulled
    """.split()  # noqa: SIM905 - a word list reads best as words
)
_WORDS = re.compile(r"[a-z]+(?:'[a-z]+)?")


@lru_cache(maxsize=65536)
def has_cue(text: str) -> bool:
    """Whether a text holds a word a negation or a replacement starts from (asked of one
    clause by each rule that reads it: kept by text)."""
    return not _CUE_WORDS.isdisjoint(_WORDS.findall(text.lower().replace("\u2019", "'")))


NEGATION: Final = "negation"
REPLACEMENT: Final = "replacement"


class Stance(Record):
    """A negation or a replacement a note states: ``kind``, the ``target`` as written
    (short), the ``stems`` of its words and the ``code`` spans it names, its ``clause``."""

    __slots__ = ("kind", "target", "stems", "code", "clause")

    def __init__(
        self, kind: str, target: str, stems: tuple[str, ...], code: tuple[str, ...], clause: int
    ) -> None:
        self.kind = kind
        self.target = target
        self.stems = stems
        self.code = code
        self.clause = clause


def clause_stances(clause: Clause) -> list[Stance]:
    """The negations and replacements one clause states."""
    if not has_cue(clause.text):
        return []
    return list(_clause_stances(clause))


# Where a clause goes on to say what its action is for or leads to: "so", "so that" (before
# a word or code: "so `nix build` with no attribute works").
_FOR_WHAT = re.compile(r"\s(?:so|so\s+that|in\s+order\s+that)\s+(?=[\w`])", re.IGNORECASE)
_NO = re.compile(r"\b(?:no|not|none|nothing|never)\b", re.IGNORECASE)


def is_negated(text: str, at: int = 0) -> bool:
    """Whether a clause says not to (or no longer) do what it names ("keeps no cache"),
    read in the part of it that holds position ``at``: what the clause says to do, or
    what that is for. A negation in what doing it is for says nothing of the doing:
    "inside tmux so a dropped connection doesn't kill it" says to use tmux; "so it does
    not clash with 6379" names 6379 as one to avoid."""
    if not has_cue(text):
        return False
    purpose = _FOR_WHAT.search(text)
    if purpose is not None:
        text = text[purpose.end() :] if at >= purpose.end() else text[: purpose.start()]
    return has_cue(text) and bool(
        _NO.search(text)
        or _NEGATION_BEFORE.search(text)
        or _PASSIVE_NEGATION.search(text)
        or _NOT_DONE.search(text)
        or _KEPT_OFF.search(text)
        or _IS_OFF.search(text)
        or _TITLE_NO.match(text)
        or _RETIRED_AFTER.search(text)
    )


def _clause_stances(clause: Clause) -> Iterator[Stance]:
    text = clause.text
    masked = CODE_SPAN.sub(lambda code: "`" + "x" * (len(code.group(0)) - 2) + "`", text)
    if clause.is_title and _TITLE_NO.match(text):
        target = _after(text, _TITLE_NO.match(text).end())  # type: ignore[union-attr]
        yield from _stance(NEGATION, target, clause)
    for match in _NEGATION_BEFORE.finditer(masked):
        if _CONDITION.search(masked, match.end()):
            continue  # "don't change X without updating Y": a condition, not a ban
        yield from _stance(NEGATION, _after(text, match.end()), clause)
    for match in _PASSIVE_NEGATION.finditer(masked):
        yield from _stance(NEGATION, _before(text, match.start()), clause)
    for match in _KEPT_OFF.finditer(masked):
        if match.group(0)[:4].lower() == "with" and not masked[: match.start()].strip():
            continue  # "With the cache off, the run is 3x slower": a condition, not a ban
        yield from _stance(NEGATION, text[match.start("thing") : match.end("thing")], clause)
    for match in _IS_OFF.finditer(masked):
        yield from _stance(NEGATION, _before(text, match.start()), clause)
    for match in _IGNORED_BY_GIT.finditer(text):
        yield from _stance(NEGATION, _before(text, match.start()), clause)
    for match in _NOT_DONE.finditer(masked):
        over = re.search(r"any\s*more$", match.group(0), re.IGNORECASE)
        yield from _stance(REPLACEMENT if over else NEGATION, _before(text, match.start()), clause)
        if match.group("done"):  # "builds are not obfuscated any more": obfuscating is over
            yield from _stance(REPLACEMENT, match.group("done"), clause)
    for match in _RETIRED_AFTER.finditer(masked):
        if _WEAK.search(match.group(0)) and _INDEFINITE.search(
            text[max(0, match.start() - 40) : match.start()]
        ):
            continue  # "a push is dropped": something happens to one of many, no fact retired
        # "X is banned", "X is forbidden": not to be done, as "never X" says
        kind = NEGATION if _PROHIBITED.search(match.group(0)) else REPLACEMENT
        if _DOER_BEFORE.search(masked, 0, match.start()):
            # "since we dropped the weekly branch": who did it before the cue, what went
            # after it
            yield from _stance(kind, _retired_after(text, match), clause)
            continue
        yield from _stance(kind, _before(text, match.start()), clause)
        if re.search(r"no\s+longer", match.group(0), re.IGNORECASE):
            yield from _stance(REPLACEMENT, _after(text, match.end()), clause)
    for match in _RETIRED_BEFORE.finditer(masked):
        target = _retired_after(text, match)
        if match.group(0).rstrip().lower().endswith("from"):
            target = _TO.sub("", target)  # "from X to Y": X, what it went to is new
        yield from _stance(REPLACEMENT, target, clause)
    if not clause.is_title:
        gone = _GONE_AT_START.match(masked)
        if gone:  # "Not tmux anymore": tmux, not "tmux anymore"
            target = _ANYMORE.sub("", _after(text, gone.end()))
            yield from _stance(REPLACEMENT, target, clause)
        absent = _NONE_AT_START.match(masked)
        if absent and not gone:
            yield from _stance(NEGATION, _after(text, absent.end()), clause)


def _retired_after(text: str, cue: re.Match[str]) -> str:
    """What a cue retires, said after it: "replaced Celery with RQ" retires Celery."""
    target = _after(text, cue.end())
    return _WITH.sub("", target) if _SWAP_CUE.search(cue.group(0)) else target


def _after(text: str, start: int) -> str:
    """The target after a cue: up to where the thought ends, five words at most."""
    rest = text[start:]
    code = re.match(r"\s*(?:the\s+)?`([^`]+)`", rest)
    if code:
        return f"`{code.group(1)}`"
    end = _TARGET_END.search(rest)
    rest = rest[: end.start()] if end else rest
    return " ".join(rest.split()[:5])


_DETERMINERS: Final = ("the", "a", "an", "our", "your", "its", "their", "this", "that")


def _before(text: str, end: int) -> str:
    """The target before a cue: the code span just before it, else the last words since
    the thought began (three content words at most)."""
    head = text[:end].rstrip()
    code = re.search(r"`([^`]+)`\s*(?:\w+\s*){0,2}$", head)
    if code:
        return f"`{code.group(1)}`"
    # "a DATABASE_URL in the environment is ignored": the thing is before where it is
    where = _WHERE.search(head)
    if where and re.search(r"\w", head[: where.start()]):
        head = head[: where.start()].rstrip()
    cut = [match.end() for match in _TARGET_END.finditer(head)]
    head = head[cut[-1] :] if cut else head
    tokens = head.split()
    kept: list[str] = []
    for at, token in reversed(list(enumerate(tokens))):
        # "hand edits to the snapshot are not allowed": the edits, not only the snapshot
        after_to = at > 0 and tokens[at - 1].lower() in ("to", "of") and bool(kept)
        if token.lower() in _DETERMINERS and not after_to:
            break
        kept.insert(0, token)
        if len([t for t in kept if t.lower() not in GENERIC]) >= 3:
            break
    return " ".join(kept)


# Words after a thing's name that only say what kind of thing it is: "the http2
# parameter" is http2, "the npm step" npm, "no datasource property" datasource (written
# in lower case: "Airflow Variables" is a name). Stems.
_KIND_OF_THING: Final = frozenset(
    content_stems(
        "parameter parameters option options flag flags step steps argument property"
        " properties setting settings variable variables"
    )
)


def _stance(kind: str, target: str, clause: Clause) -> Iterator[Stance]:
    target = target.strip(" .")
    if _PRONOUN.match(target):
        return  # "replaced that with ...": what it retires is said elsewhere
    if kind == NEGATION and _PLACE.match(target):
        return  # "convert in Looker, never in dbt models": where, not what, is negated
    code = tuple(span.strip().lower() for span in CODE_SPAN.findall(target))
    stems = tuple(dict.fromkeys(content_stems(target)))
    if (
        len(stems) > 1
        and stems[-1] in _KIND_OF_THING
        and re.search(rf"\b{re.escape(stems[-1])}", target)  # "Airflow Variables" is a name
    ):
        stems = stems[:-1]
    if not code:
        bare = target.strip("`").strip()
        if re.fullmatch(r"[\w.()/-]+", bare) and any(c in bare for c in "._()/"):
            code = (bare.lower().rstrip("()"),)  # datetime.utcnow(), pkg_resources
    if stems or code:
        yield Stance(kind, target[:80], stems, code, clause.index)


_GERUND = re.compile(r"[A-Za-z]+ing\b")
# Words that only say how old a thing is, before its name ("the legacy Input Manager", "the
# old staging bucket"): the older note named the thing without them. Stems.
_AGE_WORDS: Final = frozenset({"legacy", "previous", "former", "classic"})


def head_stems(stance: Stance) -> frozenset[str]:
    """What a stance is about first: its first word, and for a negation that starts with
    a verb ("never put CI runners on spot") the first word after the verb too."""
    stems = stance.stems
    if not stems:
        return frozenset()
    if len(stems) > 1 and stems[0] in _AGE_WORDS:
        stems = stems[1:]  # "the legacy Input Manager is no longer used": the Input Manager
    if (
        len(stems) > 1
        and stems[0] in VERBS
        and (stance.kind == NEGATION or _GERUND.match(stance.target))
    ):
        # "never put X", "invoking X is deprecated": X too, and the parts of a compound X
        # ("turn on task_always_eager" is about ``CELERY_TASK_ALWAYS_EAGER``)
        parts = [stem for stem in stems[2:] if stem in stems[1] and stem != stems[1]]
        return frozenset((*stems[:2], *parts))
    return frozenset((stems[0], *_doing(stems[0])))


def _doing(noun: str) -> tuple[str, ...]:
    """What a tool named for its doing does, as a stem: "formatter" formats, "compiler"
    compiles ("no formatter in the hook" is about the hook that runs ``mix format``).
    Four letters at least, so "user" is no "us"."""
    if len(noun) < 7 or not noun.endswith("er"):
        return ()
    base = noun[:-2]
    if base[-1] == base[-2]:
        base = base[:-1]  # "formatter": "format"
    return (base,) if len(base) >= 4 else ()


# Words that start the name of a thing, not of an action: "never the whole suite".
# A possessive names whose the thing is, as "our" does: "OpenTofu's client-side state
# encryption" is about that encryption, which a note may name without its owner.
_DETERMINER = re.compile(
    r"(?:the|a|an|our|your|its|their|this|that|[\w.-]+['\u2019]s)\s+\w", re.IGNORECASE
)


def describes_first(stance: Stance) -> bool:
    """Whether a stance's first word may only say which or how much of the thing it is
    about ("the whole suite", "the separate install is gone"): a thing's name, not an
    action ("never carries game traffic" is about carrying). A retired thing is named
    before its cue, so is a thing's name; a negation's target is one when it starts with
    "the" or the like. Its first word is no verb either way."""
    if len(stance.stems) < 3 or not names_a_thing(stance) or _OF_WHAT.match(stance.target):
        return False
    return stance.kind == REPLACEMENT or bool(_DETERMINER.match(stance.target))


# A first word that says of what it is: "ownership of the bucket moved" is about the
# ownership, which the bucket's own words do not state.
_OF_WHAT = re.compile(
    r"(?:(?:the|a|an|our|your|its|their)\s+)?[\w-]+\s+(?:of|for|to|from|with|by|on|in)\b",
    re.IGNORECASE,
)


def names_a_thing(stance: Stance) -> bool:
    """Whether a stance starts with a thing's name, not an action ("never send more than 50
    emails" is about sending, "we don't use the IR pipeline" about the pipeline)."""
    return bool(stance.stems) and not (stance.stems[0] in VERBS or _GERUND.match(stance.target))
