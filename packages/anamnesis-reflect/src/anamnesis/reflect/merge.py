"""``anamnesis merge``: retire redundant durable notes, with an LLM choosing and a recall
gate deciding.

1. Candidates (:mod:`.merge_candidates`): groups of look-alike procedural or semantic notes,
   not superseded, of one project and type.
2. One provider call per project with candidates (at most ``max_calls``), the groups
   masked and fitted to the token budget (:mod:`.merge_reply`); the reply is read strictly.
   Groups holding a machine-local note go in a call of their own: a model may copy
   anything it was sent into what it writes, so whatever a call with machine-local text
   synthesizes is machine-local (:func:`.prompting.reply_scope`), and the other groups'
   merges must stay free to sync. A dry run (the default) stops before the call: it says
   what would be sent.
3. Each valid merge is kept only if every fact of each note it retires (numbers, URLs,
   paths, identifiers, code spans, commands) is in the note that replaces them, a
   synthesized note adds no such fact of its own, and, tried on a sandbox copy of the
   store, no eval case or self-probe loses its hit at 8 (:mod:`.merge_gate`).
4. The merges kept land in one ``put_many``: all of them or none.

Nothing is deleted. ``keep``: the kept note gains the others' ids in ``supersedes`` and
``prov_source: merge`` (its text is unchanged). ``synthesize``: a new note (fresh id, the
group's project and type, ``prov_source: merge``, the model in ``prov_model``, tag
``merged``) supersedes every note of the group; its confidence is the group's highest (it
restates notes already trusted that much, and the gate checked it still answers what they
answered); it is machine-local when its call held a machine-local note, so a merge never
carries a machine-local note's text into the synced tree. Superseded notes leave search and inject
and stay listed. The run holds the store's reflection lock; a dry run only reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from anamnesis.reflect.merge_candidates import CandidateGroup, find_candidates
from anamnesis.reflect.merge_gate import RetirementGate
from anamnesis.reflect.merge_reply import (
    MERGE_SYSTEM,
    REPLY_TOKENS,
    MergePrompt,
    Proposal,
    build_prompt,
    parse_reply,
)
from anamnesis.reflect.merge_report import (
    ANSWERED,
    APPLIED,
    INVALID_REPLY,
    OVER_MAX_CALLS,
    PLANNED,
    REFUSED_BY_GATE,
    REFUSED_BY_VALIDATION,
    TOO_BIG,
    GroupOutcome,
    MergeCall,
    MergeReport,
)
from anamnesis.reflect.prompting import MACHINE_LOCAL, reply_scope
from anamnesis.reflect.providers.protocol import Provider
from anamnesis.reflect.providers.settings import LlmSettings
from anamnesis.reflect.replies import InvalidReply
from anamnesis.reflect.run_lock import reflection_lock
from anamnesis.store import (
    DURABLE_TYPES,
    EvalCase,
    InvalidNote,
    Memory,
    MemoryStore,
    due_bound,
    expiry_bound,
    new_id,
    resolve_machine_id,
    utc_now,
)

DEFAULT_MAX_CALLS = 10
MERGED_TAG = "merged"
MERGE_SOURCE = "merge"


def run_merge(
    store: MemoryStore,
    provider: Provider,
    settings: LlmSettings,
    *,
    project: str | None = None,
    apply: bool = False,
    cases: Sequence[EvalCase] = (),
    max_calls: int = DEFAULT_MAX_CALLS,
) -> MergeReport:
    """Find, propose, gate and (with ``apply``) write merges; see the module doc.

    ``cases``: the user's eval cases for the gate (approved ones count). A
    :class:`~anamnesis.reflect.ProviderError` ends the run with nothing written; an
    invalid reply only drops its project's merges. Raises
    :class:`~anamnesis.reflect.run_lock.ReflectionBusy` when another reflect or merge runs.
    """
    if max_calls < 0:
        raise ValueError(f"max_calls must be 0 or more, not {max_calls}")
    if not apply:
        report, _visible, _prompts = _plan(store, provider, settings, project, max_calls, False)
        return report
    with reflection_lock(store.root):
        report, visible, prompts = _plan(store, provider, settings, project, max_calls, True)
        pending: list[tuple[Proposal, list[Memory], dict[str, Memory]]] = []
        for index, prompt in prompts:
            offered = prompt.offered()
            proposals = _ask(provider, settings, prompt, report, index)
            for proposal in proposals:
                writes, problem = _writes(store, proposal, prompt, provider.model)
                if problem:
                    report.groups.append(_refused(prompt.project, proposal, problem))
                else:
                    pending.append((proposal, writes, offered))
        accepted = _gate(store, report, visible, cases, pending)
        if accepted:
            report.written = [note.id for note in store.put_many(accepted)]
        return report


def _plan(
    store: MemoryStore,
    provider: Provider,
    settings: LlmSettings,
    project: str | None,
    max_calls: int,
    apply: bool,
) -> tuple[MergeReport, list[Memory], list[tuple[int, MergePrompt]]]:
    """The candidates and the calls they make; the prompts within ``max_calls``, each with
    the index of its call in the report."""
    visible = store.list(include_superseded=False)
    durable = [
        note
        for note in visible
        if note.type in DURABLE_TYPES and (project is None or note.project == project)
    ]
    candidates, vectors = find_candidates(store, durable, use_vectors=store.vectors_available())
    report = MergeReport(apply, provider.name, provider.model, project, vectors, candidates)
    by_project: dict[str, list[CandidateGroup]] = {}
    for group in candidates:
        by_project.setdefault(group.project, []).append(group)
    prompts: list[tuple[int, MergePrompt]] = []
    for name in sorted(by_project):
        for groups in _by_scope(by_project[name]):
            prompt = build_prompt(name, groups, settings.max_input_tokens)
            notes = sum(len(group.notes) for group in prompt.groups)
            if not prompt.groups:
                status = TOO_BIG
            elif len(prompts) >= max_calls:
                status = OVER_MAX_CALLS
            else:
                status = ANSWERED if apply else PLANNED  # ANSWERED once it is, see _ask
                prompts.append((len(report.calls), prompt))
            report.calls.append(
                MergeCall(
                    name,
                    len(prompt.groups),
                    notes,
                    prompt.left_out,
                    prompt.tokens,
                    status,
                    scope=reply_scope(note for group in groups for note in group.notes),
                )
            )
    return report, visible, prompts


def _by_scope(groups: list[CandidateGroup]) -> list[list[CandidateGroup]]:
    """A project's groups for its calls: those of portable notes only, then those holding a
    machine-local note (either left out when empty)."""
    portable: list[CandidateGroup] = []
    local: list[CandidateGroup] = []
    for group in groups:
        (local if reply_scope(group.notes) == MACHINE_LOCAL else portable).append(group)
    return [batch for batch in (portable, local) if batch]


def _ask(
    provider: Provider,
    settings: LlmSettings,
    prompt: MergePrompt,
    report: MergeReport,
    index: int,
) -> list[Proposal]:
    """The proposals of one call; refusals go to the report, an invalid reply to its call
    (``report.calls[index]``)."""
    reply = provider.complete(
        MERGE_SYSTEM, prompt.user, max_tokens=REPLY_TOKENS, timeout_s=settings.timeout_s
    )
    try:
        proposals, refusals = parse_reply(reply, prompt.offered())
    except InvalidReply as exc:
        report.calls[index] = replace(
            report.calls[index], status=INVALID_REPLY, reason=exc.reason, excerpt=exc.excerpt
        )
        return []
    for refusal in refusals:
        report.groups.append(
            GroupOutcome(
                prompt.project, refusal.ids, refusal.action, REFUSED_BY_VALIDATION, refusal.reason
            )
        )
    return proposals


def _writes(
    store: MemoryStore, proposal: Proposal, prompt: MergePrompt, model: str
) -> tuple[list[Memory], str]:
    """The note a merge writes (the kept note superseding the others, its text and scope
    its own; or a new note, of the scope of what the call sent), or why it cannot be
    written (the store's own validation, e.g. a title too long)."""
    offered = prompt.offered()
    group = [offered[memory_id] for memory_id in proposal.ids]
    now = utc_now()
    if proposal.action == "keep":
        kept = offered[proposal.keep]
        retired = [memory_id for memory_id in proposal.ids if memory_id != kept.id]
        supersedes = [*kept.supersedes, *(i for i in retired if i not in kept.supersedes)]
        note = kept.replace(
            supersedes=supersedes,
            prov_source=MERGE_SOURCE,
            prov_model=model,
            updated_at=now,
            review_after=_first_review(group),
        )
    else:
        first = group[0]
        note = Memory(
            id=new_id(),
            type=first.type,
            title=proposal.title,
            body=proposal.body,
            project=first.project,
            machine_id=resolve_machine_id(store.root),
            scope=reply_scope(offered.values()),
            tags=[*proposal.tags, MERGED_TAG],
            created_at=now,
            updated_at=now,
            prov_source=MERGE_SOURCE,
            prov_model=model,
            confidence=max(member.confidence for member in group),
            supersedes=list(proposal.ids),
            valid_until=_last_valid(group),
            review_after=_first_review(group),
        )
    try:
        return [store.as_written(note)], ""
    except InvalidNote as exc:
        return [], f"the note cannot be written: {exc}"


def _last_valid(group: Sequence[Memory]) -> str:
    """How long a note merged from ``group`` holds: as long as the last of them, when each
    holds only until a day; for good when one of them does (a temporary fact merged into
    a new note must not become a lasting one, nor a lasting one a temporary one)."""
    if any(not member.valid_until for member in group):
        return ""
    return max((member.valid_until for member in group), key=expiry_bound)


def _first_review(group: Sequence[Memory]) -> str:
    """When a note merged from ``group`` asks to be reviewed: the first of their review
    dates ("" when none has one)."""
    dates = [member.review_after for member in group if member.review_after]
    return min(dates, key=due_bound) if dates else ""


def _gate(
    store: MemoryStore,
    report: MergeReport,
    visible: list[Memory],
    cases: Sequence[EvalCase],
    pending: list[tuple[Proposal, list[Memory], dict[str, Memory]]],
) -> list[Memory]:
    """Judge each merge (:class:`RetirementGate`); record its outcome; return the notes of
    those kept."""
    if not pending:
        return []
    touched = [offered[i] for proposal, _writes, offered in pending for i in proposal.ids]
    accepted: list[Memory] = []
    with RetirementGate(store, cases, touched, visible) as gate:
        for proposal, writes, offered in pending:
            note = writes[0]
            retired = [offered[i] for i in proposal.ids if i != note.id]
            verdict = gate.judge(writes, retired, new_text=proposal.action == "synthesize")
            project = offered[proposal.ids[0]].project
            outcome = GroupOutcome(
                project, proposal.ids, proposal.action, APPLIED, proposal.reason, title=note.title
            )
            if verdict.kept:
                accepted.extend(writes)
                outcome = replace(outcome, note_id=note.id)
            else:
                outcome = replace(
                    outcome, status=REFUSED_BY_GATE, reason=verdict.reason, losses=verdict.losses
                )
            report.groups.append(outcome)
    return accepted


def _refused(project: str, proposal: Proposal, reason: str) -> GroupOutcome:
    return GroupOutcome(project, proposal.ids, proposal.action, REFUSED_BY_VALIDATION, reason)
