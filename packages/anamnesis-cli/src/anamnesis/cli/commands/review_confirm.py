"""`anamnesis review --confirm`: the configured LLM confirms or dismisses the contradiction
candidates in one batch, before the list is shown (reflect's ``confirm_contradictions``).

The candidates are the store's, found mechanically; a model's verdict is advice kept on
this machine: it orders the list (pairs it confirmed first, those it called compatible
last, still listed and marked) and is shown beside each pair, and it never changes a note.
Resolving a pair stays the person's (keep one, both are right, edit). With ``--wide`` the
model is also asked about the store's wider net (``wider_candidates``), whose pairs are
listed only on its ``contradicts`` (:func:`listed_verdicts`, marked: :func:`wider_label`).

The review command takes the pairs from the store, then (its ``collect``,
``listing_json`` and ``say_listing``)::

    summary = confirm_pairs(store, pairs, wider=..., again=again, ...) if confirm else None
    confirmed, verdicts = listed_verdicts(store, pairs, project)  # also without --confirm
    pairs = [*confirmed, *pairs]                     # the wider net's the model confirmed
    pairs = review_order(pairs, verdicts)            # before --limit cuts the list
    # each pair: verdicts[pair.ids].label() under it; --json: "model": verdict_json(...)
    # after the pairs: listed_last(verdicts); --json: "confirm": summary (when asked)
    raise typer.Exit(exit_code(summary))

Exit status: 0 when the batch ran (or there was nothing to ask), and when no LLM is
configured (``llm.provider`` is ``heuristic``: said on stderr, with how to choose one; the
list is the store's candidates, unconfirmed); 1 when the provider failed or a reply could
not be read (the verdicts of the calls before it are kept, the list is still shown). A bad
``llm.*`` setting, or a provider that cannot start (``claude`` not on PATH), is one line and
exit 1 before anything is listed, as for `reflect`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.display import lines
from anamnesis.cli.errors import FAILURE, suggest

if TYPE_CHECKING:
    from anamnesis.reflect import ConfirmReport, Verdict
    from anamnesis.store import Contradiction, MemoryStore

ConfirmFlag = Annotated[
    bool,
    typer.Option(
        "--confirm",
        help="First ask the configured LLM (llm.provider) to confirm or dismiss each pair, "
        "in one batch; its verdicts are advice kept on this machine, no note changes.",
    ),
]
AgainFlag = Annotated[
    bool,
    typer.Option("--again", help="With --confirm: ask about pairs the model already judged too."),
]
WideFlag = Annotated[
    bool,
    typer.Option(
        "--wide",
        help="With --confirm: also ask about the pairs the rules leave out whose notes hold "
        "different values of one kind (most are look-alikes); those the model confirms "
        "are listed, marked.",
    ),
]
MaxCallsOption = Annotated[
    int,
    typer.Option(
        "--max-calls",
        help="With --confirm: at most this many calls to the model; pairs left over are "
        "asked about on the next run.",
    ),
]
MAX_CALLS = 4
HEURISTIC = "heuristic"


def confirm_pairs(
    store: MemoryStore,
    pairs: Sequence[Contradiction],
    *,
    wider: Callable[[], Sequence[Contradiction]] | None = None,
    again: bool = False,
    as_json: bool = False,
    max_calls: int = MAX_CALLS,
) -> dict[str, Any]:
    """Ask the configured provider about ``pairs``, then the wider net's (``wider`` gives
    them, called only once there is a model to ask: the net costs a second reading of the
    pairs), those without a current verdict (or all with ``again``), in at most
    ``max_calls`` calls, and say what came of it (on a terminal, unless ``as_json``);
    return the summary ``--json`` shows as ``"confirm"``. With no LLM configured, nothing
    is asked: stderr says how to choose one."""
    # the LLM's settings and errors only where one is asked: a plain review lists the
    # store's pairs without loading what reflecting needs (a tenth of a second)
    from anamnesis.cli.commands.reflecting import llm_errors, provider_from_settings

    settings, provider = provider_from_settings()
    if provider.name == HEURISTIC:
        console.warn(no_llm_message())
        return {"provider": HEURISTIC, "model": "", "ok": True, "skipped": "no LLM configured"}
    from anamnesis.reflect import confirm_contradictions  # reflect: see reflecting.llm_errors

    net = wider() if wider is not None else []
    with llm_errors(f"Asking {provider.name} about {len(pairs) + len(net)} pair(s)"):
        report = confirm_contradictions(
            store, provider, pairs, settings, wider=net, again=again, max_calls=max_calls
        )
    if not as_json:
        say_report(report)
    return report.to_dict()


def no_llm_message() -> str:
    return (
        "no LLM is configured (llm.provider is heuristic), so no model was asked: the pairs "
        "are the store's own candidates, unconfirmed. To have a model confirm them, use your "
        f"Claude Code login: {suggest('config', 'set', 'llm.provider', 'claude-code')} (or "
        "openai / anthropic, with llm.model and a key), then "
        f"{suggest('review', '--confirm')}"
    )


def say_report(report: ConfirmReport) -> None:
    """What the batch did, in a few lines: asked, verdicts, what was left or ignored."""
    counts = report.counts()
    model = f", {report.model}" if report.model else ""
    if report.calls:
        lines.say_wrapped(
            f"model ({report.provider}{model}): ",
            f"asked about {report.asked} pair(s) in {report.calls} call(s), about "
            f"{report.input_tokens} input tokens: {counts['contradicts']} contradict, "
            f"{counts['compatible']} compatible, {counts['unsure']} unsure",
            2,
        )
    elif not report.candidates:
        console.say("no candidate pairs: nothing to ask the model")
    if report.wider:
        lines.say_wrapped(
            "",
            f"{report.wider} of the {report.candidates} pair(s) came from the wider net "
            "(--wide): the rules leave them out, so one is listed only if the model says it "
            "contradicts",
            2,
        )
    if report.already:
        lines.say_wrapped(
            "",
            f"{report.already} pair(s) already judged by the model, unchanged since "
            "(--again asks again)",
            2,
        )
    if report.not_sent:
        again = ("review", "--confirm", *(("--wide",) if report.wider else ()))
        console.warn(
            f"{report.not_sent} pair(s) did not fit this run's {report.calls} call(s) "
            f"(--max-calls, llm.max_input_tokens): {suggest(*again)} again asks about them"
        )
    if report.unanswered and not report.error:
        console.warn(f"{report.unanswered} pair(s) got no usable verdict")
    if report.ignored:
        what = ", ".join(
            f"{count} {why.replace('_', ' ')}" for why, count in report.ignored.items()
        )
        console.warn(f"ignored in the model's reply: {what}")
    for failure in report.failures:
        console.warn(f"a reply could not be read: {failure}")
    if report.error:
        console.warn(f"the provider failed, the batch stopped: {report.error}")
    if report.calls:
        console.say("verdicts are advice kept on this machine: no note was changed")
    console.say()  # then the list


def model_verdicts(
    store: MemoryStore, pairs: Sequence[Contradiction]
) -> dict[tuple[str, str], Verdict]:
    """Each pair's current verdict (given before both notes' last change: none), by
    ``(older id, newer id)``. Reading them calls no model."""
    from anamnesis.reflect import verdicts_for

    return verdicts_for(store, pairs)


def listed_verdicts(
    store: MemoryStore, listed: Sequence[Contradiction], project: str | None
) -> tuple[list[Contradiction], dict[tuple[str, str], Verdict]]:
    """The wider net's pairs a model confirmed, beyond the store's ``listed`` candidates,
    and the current verdict of each pair of both (the verdicts read once; no model is
    called)."""
    from anamnesis.reflect import review_verdicts

    return review_verdicts(store, listed, project)


def confirmed(store: MemoryStore, pair: Contradiction) -> bool:
    """Whether a model's current verdict on ``pair`` is that it contradicts."""
    from anamnesis.reflect import CONTRADICTS

    verdict = model_verdicts(store, [pair]).get(pair.ids)
    return verdict is not None and verdict.verdict == CONTRADICTS


def wider_label(verdict: Verdict | None) -> str:
    """The line under a pair of the wider net: the model's word is why it is listed."""
    said = verdict.label() if verdict is not None else "model: contradicts"
    return f"{said}; wider net: listed on the model's word (the rules do not find it)"


def review_order(
    pairs: Sequence[Contradiction], verdicts: Mapping[tuple[str, str], Verdict]
) -> list[Contradiction]:
    """Pairs a model confirmed first, unchecked and unsure ones next, those it called
    compatible last (listed, marked: the pair is still the person's to decide)."""
    from anamnesis.reflect import by_verdict

    return by_verdict(pairs, verdicts)


def listed_last(verdicts: Mapping[tuple[str, str], Verdict]) -> str:
    """The line after a listing that has pairs a model called compatible: where they are,
    and that they are still the person's ("" when there are none)."""
    dismissed = sum(verdict.dismissed for verdict in verdicts.values())
    if not dismissed:
        return ""
    return (
        f"{dismissed} pair(s) the model called compatible are listed last, marked: a model's "
        "word settles nothing; settle them as any other"
    )


def verdict_json(verdict: Verdict | None) -> dict[str, Any] | None:
    """A pair's ``"model"`` in ``--json``: verdict, reason, provider, model, checked_at."""
    return None if verdict is None else verdict.to_dict()


def exit_code(summary: dict[str, Any] | None) -> int:
    """1 when the batch asked for (``summary``) failed or a reply could not be read, else 0."""
    return FAILURE if summary is not None and not summary.get("ok", True) else 0
