"""`anamnesis review`: the possible contradictions among the live notes, each side with
where it came from, and the notes due for review; and settling them: `review keep`,
`review both`, `review edit`, `review done` (what each does: :mod:`.review_actions`),
or one pair at a time with `review -i` (:mod:`.review_session`).

The store finds the pairs (``MemoryStore.contradictions``: deterministic, no model) and
the due notes (``due_for_review``); :func:`collect` takes them once, and the listing is
printed from that (``--json``: :func:`listing_json`; a person: ``display.review_view``),
so an option that works on the listing first has one place to do it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.commands import review_actions, review_confirm, review_session
from anamnesis.cli.context import (
    HereFlag,
    JsonFlag,
    ProjectOption,
    get_note,
    open_store,
    project_filter,
)
from anamnesis.cli.display import lines, review_view
from anamnesis.cli.errors import UsageError
from anamnesis.store import Contradiction, Memory, MemoryStore, source_word

if TYPE_CHECKING:
    from anamnesis.reflect import Verdict

HELP = """Possible contradictions among the live notes, and notes due for review.

Two notes of one project (or both global) that state different values about the same
thing (a port, a version, a path, a command, "use X" / "never use X", "no longer ...")
are listed as a pair: what differs, and each side's id, title and provenance (you,
captured, reflected, imported or merged; the agent; the machine; when; "unconfirmed"
for a model's words no person has kept). The pairs are found without any model, newest
first. Notes whose review_after date has come are listed after them.

Settle a pair with `review keep`, `review both` or `review edit`; confirm a due note
with `review done`; or go through them one at a time with `review -i`.

--confirm first asks the configured LLM (llm.provider) about the pairs, in one batch: its
verdict (contradicts, compatible, unsure, with a reason) is shown under each pair, pairs
it confirmed come first and those it called compatible last, still listed. A verdict is
advice kept on this machine: it changes no note, and an edit to either note drops it.

--confirm --wide also sends the model the pairs the rules leave out although their notes
hold different values of one kind (many more pairs, so more of your notes, and more calls:
--max-calls bounds a run). Most are look-alikes, so such a pair is listed, marked, only
while the model's verdict that it contradicts holds.

--json prints {"contradictions": [...], "due": [...]}: each pair as {"notes": [OLDER,
NEWER], "newer", "differs": [{"kind", "subject", "old", "new"}], "sides": [{"id",
"title", "project", "type", "source", "prov_source", "agent", "machine", "created_at",
"updated_at", "unconfirmed"}, ...], "model": null or {"verdict", "reason", "provider",
"model", "checked_at"}, "wider": true for a pair of the wider net}, each due note as
{"id", "title", "project", "type", "source", "review_after", "reviewed_at",
"updated_at"}."""

IdArgument = Annotated[
    str, typer.Argument(metavar="ID", help="A note's id, or 6+ of its first characters.")
]
LimitOption = Annotated[
    int,
    typer.Option("--limit", help="At most this many pairs, and due notes (0: all)."),
]


@dataclass(frozen=True)
class Listing:
    """What `review` shows: the pairs and due notes within the limit, and how many of each
    there are in all."""

    pairs: list[Contradiction]
    due: list[Memory]
    pairs_total: int
    due_total: int
    verdicts: dict[tuple[str, str], Verdict] = field(default_factory=dict)
    confirm: dict[str, Any] | None = None  # what --confirm's batch did
    wider: frozenset[tuple[str, str]] = frozenset()  # the listed pairs of the wider net


def register(app: typer.Typer) -> None:
    app.add_typer(review_app(), name="review")


def review_app() -> typer.Typer:
    app = typer.Typer(help=HELP)

    @app.callback(invoke_without_command=True)
    def review_root(
        ctx: typer.Context,
        project: ProjectOption = None,
        here: HereFlag = False,
        limit: LimitOption = 50,
        interactive: Annotated[
            bool,
            typer.Option(
                "--interactive",
                "-i",
                help="One pair at a time: keep the older or the newer, both right, edit, "
                "skip; then each due note.",
            ),
        ] = False,
        confirm: review_confirm.ConfirmFlag = False,
        again: review_confirm.AgainFlag = False,
        wide: review_confirm.WideFlag = False,
        max_calls: review_confirm.MaxCallsOption = review_confirm.MAX_CALLS,
        as_json: JsonFlag = False,
    ) -> None:
        if ctx.invoked_subcommand is not None:
            return
        for given, flag in ((again, "--again"), (wide, "--wide")):
            if given and not confirm:
                raise UsageError(f"{flag} goes with --confirm")
        if max_calls < 1:
            raise UsageError(f"--max-calls must be 1 or more, got {max_calls}")
        if limit < 0:
            raise UsageError(f"--limit must be 0 (all) or more, got {limit}")
        if interactive and as_json:
            raise UsageError("--interactive and --json contradict each other; pick one")
        with open_store() as store:
            listing = collect(
                store,
                project_filter(project, here),
                limit or None,
                confirm=confirm,
                again=again,
                wide=wide,
                max_calls=max_calls,
                as_json=as_json,
            )
            if interactive:
                review_session.run(store, listing.pairs, listing.due, remarks(listing))
                raise typer.Exit(review_confirm.exit_code(listing.confirm))
        if as_json:
            console.print_json(listing_json(listing))
        else:
            say_listing(listing)
        raise typer.Exit(review_confirm.exit_code(listing.confirm))

    app.command(name="keep")(keep)
    app.command(name="both")(both)
    app.command(name="edit")(edit)
    app.command(name="done")(done)
    return app


def collect(
    store: MemoryStore,
    project: str | None,
    limit: int | None,
    *,
    confirm: bool = False,
    again: bool = False,
    wide: bool = False,
    max_calls: int = review_confirm.MAX_CALLS,
    as_json: bool = False,
) -> Listing:
    """The pairs and the due notes of ``project`` (None: every project), at most ``limit``
    of each (None: all). Pairs a model confirmed come first (with them the wider net's it
    confirmed), then the unchecked and the unsure, those it called compatible last, each
    group newest first; with ``confirm`` the configured model is asked about them first,
    and with ``wide`` about the wider net's pairs too (:mod:`.review_confirm`)."""
    pairs = store.contradictions(project=project)
    summary = None
    if confirm:
        summary = review_confirm.confirm_pairs(
            store,
            pairs,
            wider=(lambda: store.wider_candidates(project=project)) if wide else None,
            again=again,
            as_json=as_json,
            max_calls=max_calls,
        )
    confirmed, verdicts = review_confirm.listed_verdicts(store, pairs, project)
    pairs = [*confirmed, *pairs]
    pairs = review_confirm.review_order(pairs, verdicts)
    due = store.due_for_review(project=project)
    wider_ids = frozenset(pair.ids for pair in confirmed)
    return Listing(pairs[:limit], due[:limit], len(pairs), len(due), verdicts, summary, wider_ids)


def listing_json(listing: Listing) -> dict[str, Any]:
    """`review --json`: ``{"contradictions": [...], "due": [...]}``."""
    data: dict[str, Any] = {
        "contradictions": [
            {
                **pair.to_dict(),
                "model": review_confirm.verdict_json(listing.verdicts.get(pair.ids)),
                "wider": pair.ids in listing.wider,
            }
            for pair in listing.pairs
        ],
        "due": [due_dict(note) for note in listing.due],
    }
    if listing.confirm is not None:
        data["confirm"] = listing.confirm
    return data


def due_dict(note: Memory) -> dict[str, Any]:
    """A due note as `review --json` lists it: enough to decide, and its id to act on."""
    return {
        "id": note.id,
        "title": note.title,
        "project": note.project,
        "type": note.type,
        "source": source_word(note),
        "review_after": note.review_after,
        "reviewed_at": note.reviewed_at,
        "updated_at": note.updated_at,
    }


def remarks(listing: Listing) -> dict[tuple[str, str], str]:
    """The line under each pair that has one: a model's verdict, and for a pair of the
    wider net, that it is listed on that verdict."""
    said = {ids: verdict.label() for ids, verdict in listing.verdicts.items()}
    for ids in listing.wider:
        said[ids] = review_confirm.wider_label(listing.verdicts.get(ids))
    return said


def say_listing(listing: Listing) -> None:
    if not listing.pairs_total and not listing.due_total:
        console.say("no possible contradictions, and no notes due for review")
        return
    if listing.pairs_total:
        last = review_confirm.listed_last(listing.verdicts)
        review_view.say_pairs(listing.pairs, listing.pairs_total, remarks(listing), last)
    else:
        console.say("no possible contradictions")
    console.say()
    if listing.due_total:
        review_view.say_due(listing.due, listing.due_total)
    else:
        console.say("no notes due for review")


def _say(said: list[str]) -> None:
    for line in said:
        lines.say_wrapped("", line, 2)


def keep(
    memory_id: IdArgument,
    over: Annotated[
        str,
        typer.Option(
            "--over",
            metavar="ID",
            help="The other note of the pair: superseded by the kept one (never deleted).",
        ),
    ],
) -> None:
    """Keep one note of a pair: the other is superseded by it (hidden from recall, kept in
    the history, and so on every machine after a sync)."""
    with open_store() as store:
        kept, other = get_note(store, memory_id), get_note(store, over)
        _say(review_actions.keep(store, kept, other))


def both(first: IdArgument, second: IdArgument) -> None:
    """Both notes of a pair are right: each remembers the other (compatible_with, synced),
    and the pair is never proposed again, here or on another machine."""
    with open_store() as store:
        a, b = get_note(store, first), get_note(store, second)
        _say(review_actions.both_right(store, a, b))


def edit(memory_id: IdArgument) -> None:
    """Open a note in $VISUAL or $EDITOR; once saved, it counts as confirmed by you, and
    its pairs are checked again (each said to stand or not)."""
    with open_store() as store:
        _say(review_actions.edit(store, get_note(store, memory_id)))


def done(
    memory_id: IdArgument,
    next_review: Annotated[
        str | None,
        typer.Option(
            "--next",
            metavar="WHEN",
            help="When to ask again: a number of days (90d), a date (2027-01-31) or "
            "timestamp, or never (default: not again, its review_after stays).",
        ),
    ] = None,
) -> None:
    """A note due for review is still right: it is confirmed (reviewed_at) and not asked
    about again until --next."""
    review_after = review_actions.next_review(next_review)
    with open_store() as store:
        _say(review_actions.done(store, get_note(store, memory_id), review_after))
