"""Reflection: distil a project's episodic notes into durable ones with an LLM.

A run plans (:func:`plan_reflection`), and stops there unless asked to apply: a dry run
makes no call and writes nothing. Applying makes one provider call per planned project,
checks the reply strictly (:func:`validate_reply`), passes each note's ``supersedes``
through merge's gate (:mod:`.reflection_gate`: a durable note is retired only when its
facts and searches are kept) and writes each project's new notes and retagged episodes in
one all-or-nothing batch (:func:`apply_reflection`). A project whose reply cannot be used
gets nothing written; the report says why.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from anamnesis.reflect.prompting import MACHINE_LOCAL, PORTABLE, redact_prompt
from anamnesis.reflect.providers.protocol import ProviderError, ProviderUnavailable
from anamnesis.reflect.reflection_gate import gate_supersedes
from anamnesis.reflect.reflection_plan import (
    REFLECTED_TAG,
    ProjectPlan,
    pending_episodes,
    plan_reflection,
)
from anamnesis.reflect.reflection_prompt import ProposedNote, check_reply, validate_reply
from anamnesis.reflect.replies import InvalidReply
from anamnesis.reflect.run_lock import reflection_lock
from anamnesis.store import (
    InvalidNote,
    Memory,
    NoteNotFound,
    batch_contradictions,
    new_id,
    resolve_machine_id,
    utc_now,
)

if TYPE_CHECKING:
    from anamnesis.reflect.providers.protocol import Provider
    from anamnesis.reflect.providers.settings import LlmSettings
    from anamnesis.store import EvalCase, MemoryStore

# The whole workflow from one module (the prompt and plan modules hold the details).
__all__ = [
    "REFLECTED_TAG",
    "ApplyResult",
    "ProjectOutcome",
    "ProjectPlan",
    "ProposedNote",
    "ReflectionReport",
    "apply_reflection",
    "check_reply",
    "plan_reflection",
    "run_reflection",
    "validate_reply",
]

log = logging.getLogger("anamnesis.reflect")

PROV_SOURCE = "reflection"
# Frontmatter key of a reflection note: the ids of the episodes it was distilled from.
SOURCES_KEY = "sources"
REFLECTION_TAG = "reflection"
# Below a human's 1.0: a model's distillation, not something a person checked.
REFLECTION_CONFIDENCE = 0.6
# Room for a dozen notes of a few paragraphs; the reply is JSON, cut JSON is unusable.
REPLY_MAX_TOKENS = 4096


@dataclass(frozen=True)
class ApplyResult:
    """What one project's apply wrote: the new notes' ids, the episodes tagged
    ``reflected``, the durable notes the new ones supersede, and the supersedes the gate
    refused (one line each: which, and why)."""

    project: str
    written: tuple[str, ...]
    retagged: tuple[str, ...]
    superseded: tuple[str, ...]
    refused_supersedes: tuple[str, ...] = ()
    # The live notes a new note may contradict: {"note": NEW_ID, "id", "title", "differs"}.
    possible_contradictions: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "written": list(self.written),
            "retagged": list(self.retagged),
            "superseded": list(self.superseded),
            "refused_supersedes": list(self.refused_supersedes),
            "possible_contradictions": list(self.possible_contradictions),
        }


def apply_reflection(
    store: MemoryStore,
    plan: ProjectPlan,
    notes: Collection[ProposedNote],
    *,
    model: str,
    keep_unreflected: Collection[str] = (),
    cases: Sequence[EvalCase] = (),
) -> ApplyResult:
    """Write ``notes`` as new durable notes of the plan's project and tag the plan's
    episodes ``reflected``, all in one :meth:`MemoryStore.put_many`: either everything is
    written or nothing is. ``model`` goes in each note's ``prov_model``.

    Which episodes get ``reflected``: every episode that was sent, except those in
    ``keep_unreflected`` that no note in ``notes`` cites. The model read every episode it
    was sent; one it drew nothing from is accounted for as much as one it cites, and
    tagging only the cited ones would send the rest again, at a price, on every later run,
    so a second apply would not be a no-op. ``keep_unreflected`` is for the episodes cited
    by notes the check refused: what the model meant to keep from them was not written,
    so they stay for another run.

    Each note's ``supersedes`` pass merge's gate first (:func:`.reflection_gate.
    gate_supersedes`, with the user's eval ``cases``): a supersede that would lose a
    durable note's facts or searches is dropped, and listed in ``refused_supersedes``.

    ``notes`` may be empty: the model read the episodes and found nothing worth keeping
    (its prompt asks for exactly that answer), so every episode sent is tagged and none
    is sent, and paid for, again."""
    # validate_reply checked a model's notes; these may come from elsewhere, and an id
    # outside the plan would tag or hide a note nobody looked at.
    for note in notes:
        if not note.sources or not plan.episode_ids.issuperset(note.sources):
            raise ValueError(f"{note.title!r}: its sources are not in the plan's episodes")
        if not plan.durable_ids.issuperset(note.supersedes):
            raise ValueError(f"{note.title!r}: what it supersedes is not in the plan's notes")
    machine = resolve_machine_id(store.root)
    new = [
        Memory(
            id=new_id(),
            type=note.type,
            title=note.title,
            body=note.body,
            project=plan.project,
            machine_id=machine,
            # The model may have copied anything it was sent into any note: a prompt that
            # held a machine-local note makes every note of its reply machine-local.
            scope=plan.scope,
            tags=[REFLECTION_TAG, *note.tags],
            prov_source=PROV_SOURCE,
            prov_model=model,
            confidence=REFLECTION_CONFIDENCE,
            supersedes=list(note.supersedes),
            # The episodes it was distilled from, for a reader (the dashboard links them).
            extra={SOURCES_KEY: list(note.sources)},
        )
        for note in notes
    ]
    new, refused_supersedes = gate_supersedes(store, new, cases)
    cited = {source for note in notes for source in note.sources}
    held = set(keep_unreflected) - cited
    now = utc_now()
    retagged = []
    for sent in plan.episodes:
        if sent.id in held:
            continue
        # Read again, not taken from the plan: a hook or the user may have changed the
        # episode since, and the batch must not write an old copy over that.
        try:
            current = store.get(sent.id)
        except NoteNotFound:
            continue  # deleted since the plan was made: nothing left to tag
        if REFLECTED_TAG not in current.tags:
            retagged.append(current.replace(tags=[*current.tags, REFLECTED_TAG], updated_at=now))
    written = store.put_many([*new, *retagged])[: len(new)]
    return ApplyResult(
        project=plan.project,
        written=tuple(note.id for note in new),
        retagged=tuple(note.id for note in retagged),
        superseded=tuple(dict.fromkeys(sid for note in new for sid in note.supersedes)),
        refused_supersedes=tuple(refused_supersedes),
        possible_contradictions=tuple(batch_contradictions(store, written)),
    )


@dataclass(frozen=True)
class ProjectOutcome:
    """What an apply run did for one project. ``status`` is ``applied``, or why nothing
    was written: ``provider-error``, ``invalid-reply`` or ``store-refused`` (``reason``
    says more). ``refused`` lists the notes of an applied reply that were refused."""

    project: str
    status: str
    reason: str = ""
    refused: tuple[str, ...] = ()
    result: ApplyResult | None = None

    @property
    def ok(self) -> bool:
        return self.status == "applied"


@dataclass(frozen=True)
class ReflectionReport:
    """A run's plans and, when it applied, the outcome of each plan it reached (the first
    ones: ``outcomes[i]`` is ``plans[i]``'s) and the projects that ``max_calls`` left
    unreached, and the projects that have unreflected episodes, fewer than ``min_episodes``
    (``waiting``). ``ok`` is false when any project failed."""

    applied: bool
    plans: tuple[ProjectPlan, ...]
    outcomes: tuple[ProjectOutcome, ...] = ()
    not_reached: tuple[str, ...] = ()
    # The threshold, and the projects (with the scope of their episodes) below it, with how
    # many unreflected episodes each has: why nothing was planned for them.
    min_episodes: int = 5
    waiting: tuple[tuple[str, str, int], ...] = ()

    @property
    def ok(self) -> bool:
        return all(outcome.ok for outcome in self.outcomes)

    @property
    def calls(self) -> int:
        """Provider calls planned (dry run) or made (apply)."""
        return len(self.outcomes) if self.applied else sum(plan.calls for plan in self.plans)

    @property
    def input_tokens(self) -> int:
        """The estimated input tokens of the planned calls."""
        return sum(plan.input_tokens for plan in self.plans)

    def to_dict(self) -> dict[str, Any]:
        projects = []
        for index, plan in enumerate(self.plans):
            entry = plan.to_dict()
            if index < len(self.outcomes):
                outcome = self.outcomes[index]
                entry.update(status=outcome.status, reason=outcome.reason)
                entry["refused"] = list(outcome.refused)
                entry.update(outcome.result.to_dict() if outcome.result else {})
            else:
                entry["status"] = "not-reached" if self.applied else "planned"
            projects.append(entry)
        return {
            "dry_run": not self.applied,
            "ok": self.ok,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "projects": projects,
            "not_reached": list(self.not_reached),
            "min_episodes": self.min_episodes,
            "waiting": [
                {"project": project, "scope": scope, "episodes": count}
                for project, scope, count in self.waiting
            ],
        }


def run_reflection(
    store: MemoryStore,
    provider: Provider,
    settings: LlmSettings,
    *,
    project: str | None,
    all_projects: bool = False,
    min_episodes: int = 5,
    apply: bool = False,
    max_calls: int | None = None,
    cases: Sequence[EvalCase] = (),
) -> ReflectionReport:
    """Plan, and with ``apply`` reflect, under the store's reflection lock (raises
    :class:`~anamnesis.reflect.run_lock.ReflectionBusy` when another run holds it).
    ``cases``: the user's eval cases, for the gate a supersede passes (approved ones count).

    A dry run (the default) calls nothing and writes nothing, whatever the provider. With
    ``apply``, one call per planned project, at most ``max_calls``. A provider error, an
    unusable reply or a note the store refuses fails that project alone, and nothing is
    written for it. :class:`ProviderUnavailable` (no LLM configured, as with the heuristic
    provider, or none reachable) ends the run: it would fail every project the same way,
    so it is raised for the caller to print; projects already applied stay applied."""
    if max_calls is not None and max_calls < 0:
        raise ValueError(f"max_calls must not be negative, not {max_calls}")
    with reflection_lock(store.root):
        plans = plan_reflection(
            store,
            project=project,
            all_projects=all_projects,
            min_episodes=min_episodes,
            settings=settings,
        )
        waiting = tuple(
            (key, MACHINE_LOCAL if local else PORTABLE, len(episodes))
            for (key, local), episodes in sorted(
                pending_episodes(store, project=None if all_projects else project).items()
            )
            if len(episodes) < min_episodes
        )
        if not apply:
            return ReflectionReport(False, tuple(plans), min_episodes=min_episodes, waiting=waiting)
        outcomes: list[ProjectOutcome] = []
        not_reached: list[str] = []
        for plan in plans:
            if max_calls is not None and len(outcomes) >= max_calls:
                not_reached.append(plan.project)
                continue
            outcomes.append(_reflect(store, provider, settings, plan, cases))
        reached = tuple(dict.fromkeys(not_reached))  # a project's two plans: named once
        return ReflectionReport(True, tuple(plans), tuple(outcomes), reached, min_episodes, waiting)


def _reflect(
    store: MemoryStore,
    provider: Provider,
    settings: LlmSettings,
    plan: ProjectPlan,
    cases: Sequence[EvalCase],
) -> ProjectOutcome:
    project = plan.project
    try:
        reply = provider.complete(
            plan.system, plan.user, max_tokens=REPLY_MAX_TOKENS, timeout_s=settings.timeout_s
        )
    except ProviderUnavailable:
        raise
    except ProviderError as exc:
        log.warning("reflect %s: the provider failed, nothing written: %s", project, exc)
        return ProjectOutcome(project, "provider-error", str(exc))
    try:
        checked = check_reply(reply, plan)
    except InvalidReply as exc:
        # Masked again: the model saw masked text, but a reply can hold anything.
        log.warning(
            "reflect %s: unusable reply, nothing written: %s; the reply began: %r",
            project,
            exc.reason,
            redact_prompt(exc.excerpt),
        )
        return ProjectOutcome(project, "invalid-reply", exc.reason)
    for refused in checked.refused:
        log.warning("reflect %s: refused %s", project, refused.describe())
    held = {source for refused in checked.refused for source in refused.cited}
    try:
        result = apply_reflection(
            store,
            plan,
            checked.accepted,
            model=provider.model or provider.name,
            keep_unreflected=held,
            cases=cases,
        )
    except InvalidNote as exc:
        # put_many checks every note before writing any: nothing of this project is written.
        log.warning("reflect %s: the store refused a note, nothing written: %s", project, exc)
        return ProjectOutcome(project, "store-refused", str(exc))
    for kept_back in result.refused_supersedes:
        log.warning("reflect %s: %s", project, kept_back)
    refusals = tuple(refused.describe() for refused in checked.refused)
    return ProjectOutcome(project, "applied", "", refusals, result)
