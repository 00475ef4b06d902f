"""Planning a reflection: which episodes of which projects, and the exact prompt for each.

A plan is everything a dry run shows before any paid call: the episodes and durable notes
that would be sent, the prompt itself (masked and fitted to ``llm.max_input_tokens``), the
number of calls and an estimate of the input tokens. Applying uses the same plan, so what
was shown is what is sent.

A project's machine-local episodes are planned apart from its portable ones: every note
written from a reply is machine-local when its prompt held anything machine-local
(:func:`.prompting.reply_scope`), so a portable plan sends portable notes only, and what it
distils syncs; a machine-local plan sends its episodes with every durable note, and what it
distils stays on this machine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anamnesis.reflect.prompting import (
    MACHINE_LOCAL,
    PORTABLE,
    SEPARATOR,
    estimate_tokens,
    fit_to_budget,
    redact_prompt,
    reply_scope,
)
from anamnesis.reflect.providers.protocol import InvalidLlmSetting
from anamnesis.reflect.reflection_prompt import (
    CLOSING,
    DURABLE_HEADING,
    EPISODE_HEADING,
    NO_DURABLE,
    SYSTEM_PROMPT,
    durable_block,
    episode_block,
    user_header,
)
from anamnesis.store import DURABLE_TYPES

if TYPE_CHECKING:
    from anamnesis.reflect.providers.settings import LlmSettings
    from anamnesis.store import Memory, MemoryStore

REFLECTED_TAG = "reflected"
# Durable notes are context (what not to repeat, what may be superseded); the episodes are
# the point. So durable notes get at most half of what the prompt has room for, and
# episodes always keep at least MIN_EPISODE_TOKENS (about a page).
DURABLE_SHARE = 2
MIN_EPISODE_TOKENS = 250


@dataclass(frozen=True)
class SentNote:
    """A note as a plan holds it: what the prompt shows of it, and its scope (a note
    distilled from a machine-local one stays machine-local)."""

    id: str
    type: str
    title: str
    body: str
    scope: str

    @classmethod
    def of(cls, note: Memory) -> SentNote:
        return cls(note.id, note.type, note.title, note.body, note.scope)

    def to_dict(self) -> dict[str, str]:
        return {"id": self.id, "type": self.type, "title": self.title}


@dataclass(frozen=True)
class ProjectPlan:
    """One project's reflection (of its portable episodes, or of its machine-local ones):
    the episodes sent (oldest first) and the durable notes sent, how many unreflected
    episodes and durable notes did not fit (the episodes stay unreflected for a later run),
    whether the one episode sent had to be cut, and the prompt: ``system`` and ``user``,
    exactly as they will be sent."""

    project: str
    episodes: tuple[SentNote, ...]
    durable: tuple[SentNote, ...]
    left_out: int
    durable_left_out: int
    episode_cut: bool
    system: str
    user: str
    calls: int = 1  # one provider call per project

    @property
    def episode_ids(self) -> frozenset[str]:
        return frozenset(note.id for note in self.episodes)

    @property
    def durable_ids(self) -> frozenset[str]:
        return frozenset(note.id for note in self.durable)

    @property
    def input_tokens(self) -> int:
        """The estimated input tokens of the call (system and user text)."""
        return estimate_tokens(self.system) + estimate_tokens(self.user)

    @property
    def scope(self) -> str:
        """The scope of every note distilled by this plan's call (what it sends decides)."""
        return reply_scope((*self.episodes, *self.durable))

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "scope": self.scope,
            "episodes": [note.to_dict() for note in self.episodes],
            "durable": [note.to_dict() for note in self.durable],
            "left_out": self.left_out,
            "durable_left_out": self.durable_left_out,
            "episode_cut": self.episode_cut,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
        }


def plan_reflection(
    store: MemoryStore,
    *,
    project: str | None,
    all_projects: bool,
    min_episodes: int = 5,
    settings: LlmSettings,
) -> list[ProjectPlan]:
    """A plan for ``project`` (or, with ``all_projects``, for every project, by key) when
    it has at least ``min_episodes`` episodic notes that are neither tagged ``reflected``
    nor superseded: one for its portable episodes and one for its machine-local ones, each
    when there are enough (portable first). Reads the store only. Raises ValueError for
    contradictory arguments and InvalidLlmSetting when ``llm.max_input_tokens`` cannot
    hold the prompt."""
    if all_projects == (project is not None):
        raise ValueError("name one project, or ask for all projects (not both)")
    if min_episodes < 1:
        raise ValueError(f"min_episodes must be at least 1, not {min_episodes}")
    by_project = pending_episodes(store, project=None if all_projects else project)
    plans = []
    for key, local in sorted(by_project):
        episodes = by_project[(key, local)]
        if len(episodes) < min_episodes:
            continue
        # Oldest first: episodes that do not fit are the newest, which the next run takes,
        # so none waits forever behind a stream of new sessions; and the model reads
        # events in the order they happened, a later fix after the attempt it corrects.
        episodes.sort(key=lambda note: (note.created_at, note.id))
        # Newest first (the store's order): the notes most likely to matter get the room.
        durable = store.list(project=key, type=DURABLE_TYPES, include_superseded=False)
        if not local:  # what a portable plan's reply writes syncs: nothing local goes in
            durable = [note for note in durable if note.scope == PORTABLE]
        plans.append(_plan(key, episodes, durable, settings.max_input_tokens))
    return plans


def pending_episodes(
    store: MemoryStore, *, project: str | None
) -> dict[tuple[str, bool], list[Memory]]:
    """The episodes a reflection would take, by project and whether they are machine-local:
    episodic notes neither tagged ``reflected`` nor superseded (of ``project``, or of every
    project when it is None)."""
    pending = store.list(
        project=project, type="episodic", exclude_tag=REFLECTED_TAG, include_superseded=False
    )
    by_project: dict[tuple[str, bool], list[Memory]] = {}
    for note in pending:
        by_project.setdefault((note.project, note.scope == MACHINE_LOCAL), []).append(note)
    return by_project


def _plan(
    project: str, episodes: list[Memory], durable: list[Memory], max_tokens: int
) -> ProjectPlan:
    # Everything sent is masked, the fixed text included: the project key is a path or a
    # URL, and a URL can hold a credential.
    system = redact_prompt(SYSTEM_PROMPT)
    header = redact_prompt(user_header(project))
    skeleton = _user(header, NO_DURABLE, "")
    # The windows' texts take the empty sections' places, and a rounded-up estimate of a
    # sum is at most the sum of the estimates: the whole prompt fits max_tokens.
    room = max_tokens - estimate_tokens(system) - estimate_tokens(skeleton)
    if room < MIN_EPISODE_TOKENS:
        needed = max_tokens - room + MIN_EPISODE_TOKENS
        raise InvalidLlmSetting(
            "llm.max_input_tokens",
            f"llm.max_input_tokens is {max_tokens}, too small for a reflection prompt "
            f"(at least {needed}): `anamnesis config set llm.max_input_tokens 24000`",
        )
    durable_room = min(room // DURABLE_SHARE, room - MIN_EPISODE_TOKENS)
    kept_durable, durable_left_out, _ = _window(
        [durable_block(note) for note in durable], durable_room, allow_cut=False
    )
    durable_text = SEPARATOR.join(kept_durable)
    kept, left_out, cut = _window(
        [episode_block(note) for note in episodes],
        room - estimate_tokens(durable_text),
        allow_cut=True,
    )
    return ProjectPlan(
        project=project,
        episodes=tuple(SentNote.of(note) for note in episodes[: len(kept)]),
        durable=tuple(SentNote.of(note) for note in durable[: len(kept_durable)]),
        left_out=left_out,
        durable_left_out=durable_left_out,
        episode_cut=cut,
        system=system,
        user=_user(header, durable_text or NO_DURABLE, SEPARATOR.join(kept)),
    )


def _user(header: str, durable_text: str, episode_text: str) -> str:
    return SEPARATOR.join(
        [header, DURABLE_HEADING, durable_text, EPISODE_HEADING, episode_text, CLOSING]
    )


def _window(blocks: list[str], budget: int, *, allow_cut: bool) -> tuple[list[str], int, bool]:
    """The blocks (masked) that fit ``budget`` tokens whole, in order; how many did not;
    and whether the one kept block was cut to fit."""
    if not blocks or budget <= 0:
        return [], len(blocks), False
    window = fit_to_budget(blocks, budget)
    kept, left_out, cut = list(window.items), window.left_out, window.cut
    # A note is sent whole or not at all: a model would distil (or supersede) what it only
    # half read, and a cut episode would then be tagged reflected with its end never read.
    # The exception is an episode too long to fit alone: it is sent cut (the plan says so)
    # rather than block its project's reflection forever.
    if cut and (len(kept) > 1 or not allow_cut):
        kept, left_out, cut = kept[:-1], left_out + 1, False
    return kept, left_out, cut
