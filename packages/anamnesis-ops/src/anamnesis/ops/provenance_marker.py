"""The line under each note's title in a block of notes: where the note comes from, in as
few characters as let a model judge it.

    _captured via codex on laptop-2 · 2w ago · unconfirmed_
    _global · you · 4mo ago · due for review_

Each part is there only when it says something to the one reading the block
(:class:`Viewpoint`):

- the note's project, only when it is not the block's: a global note in a project's
  block says ``global``;
- who wrote it: the store's word (``source_word``: you, captured, reflected, imported,
  merged); ``via AGENT`` when an agent other than the reader wrote it (the reader's own
  name on every note it wrote would tell it nothing, another agent's says the note came
  from another tool's session); ``, rewritten by MODEL`` when a model rewrote a person's
  words (never shown as the user's own); ``on MACHINE`` when another machine wrote it;
- its age: since it was last updated, in one short unit (:func:`age_text`);
- ``unconfirmed``: a model wrote it and no person has kept it (``is_unconfirmed``);
- ``due for review``: its ``review_after`` has come (``is_due``). A due note is still
  shown: only a person retires a note.

The note's confidence is not shown: it follows from who wrote it (a reflection's 0.6, a
rewrite's 0.8 at most), which ``unconfirmed`` says in a word. Every part is one line
(whitespace folded: a note file written by hand may hold anything); the caller makes the
whole note display-safe.
"""

from __future__ import annotations

from datetime import UTC, datetime

from anamnesis.store import (
    Memory,
    Record,
    is_due,
    is_unconfirmed,
    rewritten_by,
    source_word,
    utc_now,
)

# Names are cut to this: a machine id or a model is a name, not a paragraph.
NAME_MAX = 40
PROJECT_MAX = 120
GLOBAL = "global"
# Machine ids that name no machine: saying "on unknown" would tell the reader nothing.
NO_MACHINE = frozenset({"", "unknown"})
SEPARATOR = " · "

# One line for the block's header: what the markers mean, where a word could mislead
# ("you" is the person, not the model reading it).
MARKER_LEGEND = (
    'Under each title: who wrote the note ("you" is the user) and when; "unconfirmed" '
    "means a model wrote it and no person has checked it."
)

_MINUTE = 60
_HOUR = 60 * _MINUTE
_DAY = 24 * _HOUR
# (below this many seconds, divide by this, unit): the first row that applies.
_UNITS = (
    (_HOUR, _MINUTE, "min"),
    (_DAY, _HOUR, "h"),
    (14 * _DAY, _DAY, "d"),
    (60 * _DAY, 7 * _DAY, "w"),
    (365 * _DAY, 30 * _DAY, "mo"),
)


class Viewpoint(Record):
    """Who reads a block, and when: the block's project, this machine's id, the agent the
    block is for, and the moment ages count to (canonical UTC; default: when made, so a
    block's costs and its text agree). A part left None is not known: every note says it.
    """

    __slots__ = ("project", "machine", "agent", "now")

    def __init__(
        self,
        *,
        project: str | None = None,
        machine: str | None = None,
        agent: str | None = None,
        now: str | None = None,
    ) -> None:
        self.project = project
        self.machine = machine
        self.agent = agent
        self.now = now or utc_now()


def note_marker(mem: Memory, view: Viewpoint) -> str:
    """The parts of ``mem``'s marker as read from ``view``, joined with `` · ``."""
    parts = []
    if view.project is None or mem.project != view.project:
        parts.append(GLOBAL if mem.project == GLOBAL else _name(mem.project, PROJECT_MAX))
    parts.append(_who(mem, view))
    age = age_text(mem.updated_at or mem.created_at, view.now)
    if age:
        parts.append(age)
    if is_unconfirmed(mem):
        parts.append("unconfirmed")
    if is_due(mem, view.now):
        parts.append("due for review")
    return SEPARATOR.join(parts)


def _who(mem: Memory, view: Viewpoint) -> str:
    who = _name(source_word(mem))
    agent = _name(mem.prov_agent)
    if agent and agent != view.agent:
        who += f" via {agent}"
    model = rewritten_by(mem)
    if model:
        who += f", rewritten by {_name(model)}"
    machine = _name(mem.machine_id)
    if machine not in NO_MACHINE and mem.machine_id != view.machine:
        who += f" on {machine}"
    return who


def age_text(then: str, now: str) -> str:
    """How long before ``now`` the timestamp ``then`` is, in one short unit: ``just now``
    (under a minute), ``5min ago``, ``3h ago``, ``6d ago`` (under two weeks), ``3w ago``
    (under 60 days), ``4mo ago`` (months of 30 days, under a year), ``2y ago``. A time
    after ``now`` (a machine whose clock runs ahead) is ``just now``; "" when either is
    not a timestamp."""
    try:
        seconds = (_instant(now) - _instant(then)).total_seconds()
    except ValueError:
        return ""
    if seconds < _MINUTE:
        return "just now"
    for below, unit_seconds, unit in _UNITS:
        if seconds < below:
            return f"{int(seconds // unit_seconds)}{unit} ago"
    return f"{int(seconds // (365 * _DAY))}y ago"


def _instant(text: str) -> datetime:
    moment = datetime.fromisoformat(text.strip().upper())  # ValueError for what is not one
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def _name(text: str, limit: int = NAME_MAX) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."
