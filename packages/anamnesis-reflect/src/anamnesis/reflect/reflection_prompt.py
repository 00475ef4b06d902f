"""What reflection asks a model, and the strict check of what it answers.

The prompt shows each note with its id, so the model can cite the episodes a durable note
comes from (``sources``) and the durable notes it replaces (``supersedes``). The reply is
checked against what was actually sent: a model that cites an id it never saw is either
confused or echoing text from a note, and its note is refused, never written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from anamnesis.reflect.replies import InvalidReply, extract_object
from anamnesis.store import DURABLE_TYPES

if TYPE_CHECKING:
    from anamnesis.store import Memory


class ProjectPlan(Protocol):
    """What checking a reply needs of a plan (:class:`.reflection_plan.ProjectPlan` has it):
    the ids that were sent. A protocol, so this module needs nothing from the planner."""

    @property
    def episode_ids(self) -> frozenset[str]: ...

    @property
    def durable_ids(self) -> frozenset[str]: ...


REPLY_SHAPE = (
    '{"notes": [{"type": "procedural|semantic", "title": "...", "body": "...", '
    '"tags": ["..."], "sources": ["<episodic ids>"], "supersedes": ["<durable ids>"]}]}'
)

SYSTEM_PROMPT = f"""\
You maintain a developer's long-term memory for Claude Code. You get the episodic notes of
one project (what happened in recent work sessions) and the project's current durable
notes. Distil the episodes into durable notes that will help in future sessions:
- procedural: how to do something here: commands, steps, fixes that worked, conventions.
- semantic: facts and stable knowledge: how the project is built, decisions and why.

Rules:
- Write only what the episodes support; never invent. Every note lists in "sources" the
  ids of the episodes it comes from (at least one), copied exactly as given.
- Do not repeat what a durable note already says. When a new note corrects, updates or
  replaces a durable note, put that note's id in "supersedes"; the new note then has to
  say everything that is still true of the one it replaces.
- Leave out one-off details that will not matter again.
- Each note stands alone: a short, specific title and a body of a few sentences or steps
  in markdown. "tags" are a few short lowercase keywords.
- Never copy a secret, key, password or token, nor a [REDACTED] marker.
- If nothing in the episodes is worth keeping, reply {{"notes": []}}.

Reply with one JSON object and nothing else, exactly in this shape:
{REPLY_SHAPE}"""

DURABLE_HEADING = '## Current durable notes (put an id in "supersedes" to replace that note)'
EPISODE_HEADING = '## Episodes to distil (cite their ids in "sources")'
NO_DURABLE = "(none yet)"
CLOSING = "Reply with the JSON object only."


def durable_block(note: Memory) -> str:
    """A durable note as the prompt shows it: its id and type, title, body."""
    return f'<note id="{note.id}" type="{note.type}">\n# {note.title}\n{note.body}\n</note>'


def episode_block(note: Memory) -> str:
    """An episode as the prompt shows it: its id and date, title, body."""
    # The date lets the model tell a later fix from the earlier attempt it corrects.
    when = note.created_at[:10]
    return f'<episode id="{note.id}" date="{when}">\n# {note.title}\n{note.body}\n</episode>'


def user_header(project: str) -> str:
    """The line that opens the user text: which project the notes belong to."""
    return f"Project: {project}"


@dataclass(frozen=True)
class ProposedNote:
    """A durable note the model proposed and the check accepted."""

    type: str
    title: str
    body: str
    tags: tuple[str, ...]
    sources: tuple[str, ...]  # ids of episodes that were sent
    supersedes: tuple[str, ...]  # ids of durable notes that were sent


@dataclass(frozen=True)
class RefusedNote:
    """A proposed note the check refused: its position in the reply (from 1), the title
    it had (if any), why, and the sent episodes it cited (kept unreflected: see
    :func:`anamnesis.reflect.reflection.apply_reflection`)."""

    index: int
    title: str
    reason: str
    cited: tuple[str, ...]

    def describe(self) -> str:
        """One line naming the note and why it was refused."""
        named = f" ({self.title!r})" if self.title else ""
        return f"note {self.index}{named}: {self.reason}"


@dataclass(frozen=True)
class ReplyCheck:
    """Every note of a reply, sorted into accepted and refused."""

    accepted: tuple[ProposedNote, ...]
    refused: tuple[RefusedNote, ...]


def check_reply(reply_text: str, plan: ProjectPlan) -> ReplyCheck:
    """Sort the reply's notes into accepted and refused. Raises :class:`InvalidReply` when
    the reply is not a JSON object with a ``notes`` list, or when it proposes notes and
    none is acceptable (the reason then lists every refusal).

    An empty list is an answer, not a failure: the prompt asks for ``{"notes": []}`` when
    nothing in the episodes is worth keeping, and the episodes were read all the same."""
    data = extract_object(reply_text)
    notes = data.get("notes")
    if not isinstance(notes, list):
        raise InvalidReply('the reply\'s JSON object has no "notes" list', reply_text)
    accepted: list[ProposedNote] = []
    refused: list[RefusedNote] = []
    for index, raw in enumerate(notes, start=1):
        outcome = _check_note(index, raw, plan)
        if isinstance(outcome, ProposedNote):
            accepted.append(outcome)
        else:
            refused.append(outcome)
    if refused and not accepted:
        reasons = "; ".join(note.describe() for note in refused)
        raise InvalidReply(f"no note in the reply can be used: {reasons}", reply_text)
    return ReplyCheck(tuple(accepted), tuple(refused))


def validate_reply(reply_text: str, plan: ProjectPlan) -> list[ProposedNote]:
    """The acceptable notes of a reply (see :func:`check_reply`; refusals are dropped):
    empty when the reply proposes none. Raises :class:`InvalidReply` when it proposes
    notes and none is acceptable."""
    return list(check_reply(reply_text, plan).accepted)


def _check_note(index: int, raw: Any, plan: ProjectPlan) -> ProposedNote | RefusedNote:
    if not isinstance(raw, dict):
        return RefusedNote(index, "", f"is a {type(raw).__name__}, not an object", ())
    title = raw.get("title")
    shown = title.strip()[:80] if isinstance(title, str) else ""
    # The sent episodes it cites, worked out before anything else is checked: a refused
    # note's episodes stay unreflected, whatever made it fail.
    sources = raw.get("sources")
    cited = _sent_ids(sources, plan.episode_ids)

    def refuse(reason: str) -> RefusedNote:
        return RefusedNote(index, shown, reason, cited)

    kind = raw.get("type")
    if kind not in DURABLE_TYPES:
        return refuse(f'"type" is {repr(kind)[:40]}; it must be "procedural" or "semantic"')
    for field, value in (("title", title), ("body", raw.get("body"))):
        if not isinstance(value, str) or not value.strip():
            return refuse(f'"{field}" must be non-empty text')
    # "tags" and "supersedes" may be left out or null: nothing to tag, nothing replaced.
    tags = _optional_list(raw, "tags")
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        return refuse('"tags" must be a list of strings')
    if not isinstance(sources, list) or not sources:
        return refuse('"sources" must be a non-empty list of episode ids')
    problem = _foreign(sources, plan.episode_ids, "sources", "an episode that was sent")
    if problem:
        return refuse(problem)
    supersedes = _optional_list(raw, "supersedes")
    if not isinstance(supersedes, list):
        return refuse('"supersedes" must be a list of durable note ids')
    problem = _foreign(supersedes, plan.durable_ids, "supersedes", "a durable note that was sent")
    if problem:
        return refuse(problem)
    return ProposedNote(
        type=kind,
        title=raw["title"].strip(),
        body=raw["body"].strip(),
        tags=_unique(tag.strip() for tag in tags if tag.strip()),
        sources=_unique(sources),
        supersedes=_unique(supersedes),
    )


def _optional_list(raw: dict[str, Any], field: str) -> Any:
    value = raw.get(field)
    return [] if value is None else value


def _foreign(ids: list[Any], allowed: frozenset[str], field: str, what: str) -> str:
    """Why ``ids`` cannot be used ("" when every one is ``allowed``)."""
    for value in ids:
        if not isinstance(value, str):
            return f'"{field}" holds {repr(value)[:40]}, which is not an id'
        if value not in allowed:
            return f'"{field}" cites {value[:40]!r}, which is not {what}'
    return ""


def _sent_ids(ids: Any, allowed: frozenset[str]) -> tuple[str, ...]:
    if not isinstance(ids, list):
        return ()
    return _unique(value for value in ids if isinstance(value, str) and value in allowed)


def _unique(values: Any) -> tuple[str, ...]:
    return tuple(dict.fromkeys(values))
