"""Two tools of one role as one thing's older and newer answer: "Koin wires everything"
against "dependencies are wired with kotlin-inject", kitty against WezTerm in two notes on
the terminal (the roles: :mod:`.reading.tool_roles`).

Knowing what a tool is for ties two names no words around them tie; so the rule asks for
everything else to agree: each note names one tool of the role and never the other's (a
note that names both compares them, runs both, or says one replaced the other, which the
stances read), and the notes are about one thing, by a title word they share that is no
tool's name or by a word of the role both say ("font", "physics", "dependency
injection"), not about two parts of it ("Unit tests", "Legacy tests"). The gates every
pair of names passes afterwards still apply (two scopes, two things the titles name).
What the pair differs in is then said as the role.

A word of the role said by one note only was tried: it found one more pair in 300 on
notes the finder never saw (issue 42's validation splits), and proposed a note titled
"Cache" (Redis) beside one on the rate limiter's store (Memcached).
"""

from __future__ import annotations

import re
from functools import lru_cache

from anamnesis.store.review.reading.commands import program_of
from anamnesis.store.review.reading.text import content_stems
from anamnesis.store.review.reading.tool_roles import ROLE_CUES, TOOL_ROLES, role_of

TYPE_CHECKING = False  # importing typing costs the hooks' hot path; checkers see True
if TYPE_CHECKING:
    from typing import Final

    from anamnesis.store.review.reading.facts import NoteFacts
    from anamnesis.store.review.reading.value import Value


def of_one_role(
    a: Value, b: Value, olds: list[Value], news: list[Value], older: NoteFacts, newer: NoteFacts
) -> bool:
    """Whether names ``a`` (the older note's) and ``b`` (the newer's) are two tools of one
    role, each its note's only one, in notes about that one thing (see above)."""
    tools = _two_tools_of_one_role(a, b)
    if tools is None:
        return False
    mine, theirs = tools
    role = mine[0]
    if _tools(role, olds) != {mine[1]} or _tools(role, news) != {theirs[1]}:
        return False
    if theirs[1] in _named_tools(older.lower) or mine[1] in _named_tools(newer.lower):
        return False
    cues = ROLE_CUES[role]
    if _titled_apart(older, newer, cues):
        return False
    shared = older.subject_stems & newer.subject_stems
    if shared - older.tool_stems - newer.tool_stems:
        return True
    # no title word shared: both notes say what the role is for ("Cache" with Redis
    # beside "Rate limiter store" with Memcached names two jobs, not one)
    return _says_any(older.lower, cues) and _says_any(newer.lower, cues)


def _titled_apart(older: NoteFacts, newer: NoteFacts, cues: tuple[str, ...]) -> bool:
    """Whether the titles name one thing with two words before it, each the other title
    lacks ("Unit tests", "Legacy tests"): two parts of the role's work, each may hold its
    own tool. The role's words and tools' names tell no part."""
    if older.subject_stems.isdisjoint(newer.subject_stems):
        return False  # two ways of naming one subject, not one subject's two parts
    said = {stem for cue in cues for stem in content_stems(cue)}
    mine = older.subject_stems - newer.subject_stems - older.tool_stems - said
    theirs = newer.subject_stems - older.subject_stems - newer.tool_stems - said
    return bool(mine) and bool(theirs)


def one_role_of(a: Value, b: Value) -> str:
    """The role two names' tools share, when they are two tools of one role ("" if
    not)."""
    tools = _two_tools_of_one_role(a, b)
    return tools[0][0] if tools else ""


def programs_of_one_role(a: str, b: str) -> bool:
    """Whether two commands run two tools of one role (``npx cypress run``, ``pnpm exec
    playwright test``; ``mvn clean package``, ``./gradlew bootJar``): two ways to do one
    task, whatever their subcommands are called. Each is asked of its program, past any
    runner (:func:`.reading.commands.program_of`)."""
    mine = role_of(program_of(a).removeprefix("./"))
    theirs = role_of(program_of(b).removeprefix("./"))
    if mine is None or theirs is None or mine[0] != theirs[0] or mine == theirs:
        return False
    # a package manager running a script runs the script's task (`npm run lint` is no
    # way to do what `pnpm dev` does)
    return mine[0] not in _SCRIPT_RUNNERS or not (_runs_script(a) or _runs_script(b))


def _runs_script(command: str) -> bool:
    words = command.split()
    return len(words) > 2 and words[1] in ("run", "exec", "x", "dlx")


# Roles whose tools run a project's scripts: each script is a task of its own.
_SCRIPT_RUNNERS: Final = frozenset({"javascript package manager", "python package manager"})


def _two_tools_of_one_role(a: Value, b: Value) -> tuple[tuple[str, str], tuple[str, str]] | None:
    """Each name's (role, tool) when they are two tools of one role, else None."""
    mine, theirs = role_of(a.norm), role_of(b.norm)
    if mine is None or theirs is None or mine[0] != theirs[0] or mine[1] == theirs[1]:
        return None
    return mine, theirs


def _tools(role: str, names: list[Value]) -> set[str]:
    """The tools of ``role`` among a note's names, each by its one spelling."""
    tools = set()
    for name in names:
        of = role_of(name.norm)
        if of is not None and of[0] == role:
            tools.add(of[1])
    return tools


@lru_cache(maxsize=4096)
def _named_tools(text: str) -> frozenset[str]:
    """Every tool of any role a note's text (lower case) names, as a word, by its one
    spelling: a name the value readers passed over (in a command, a path) counts too."""
    return frozenset(TOOL_ROLES[match.group(0)][1] for match in _ANY_TOOL.finditer(text))


def _says_any(text: str, cues: tuple[str, ...]) -> bool:
    return any(re.search(rf"\b{re.escape(cue)}\b", text) for cue in cues)


# Any spelling of any tool, as a word (lower case; the longest spelling first).
_ANY_TOOL = re.compile(
    r"(?<![\w@/-])(?:"
    + "|".join(re.escape(spelling) for spelling in sorted(TOOL_ROLES, key=len, reverse=True))
    + r")(?![\w-])"
)
