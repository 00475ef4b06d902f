"""`anamnesis stats`: what this machine's sessions used (the store's usage log, recorded by
the hooks and the MCP server, never synced): the notes used most, the notes nothing used,
how often prompt recall found something. Notes never used are suggestions for a person's
review: nothing is hidden or removed."""

from __future__ import annotations

from typing import Annotated

import typer

from anamnesis.cli import console
from anamnesis.cli.context import JsonFlag, open_store
from anamnesis.cli.display import lines
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import suggest
from anamnesis.store import NoteUse, RunCount, UsageReport, usage_report

MAX_DAYS = 3650
MAX_LIMIT = 10_000

DaysOption = Annotated[
    int,
    typer.Option(
        "--days",
        min=1,
        max=MAX_DAYS,
        metavar="N",
        help="The window: the last N days (a note counts as never used only when it is "
        "older than N days).",
    ),
]
LimitOption = Annotated[
    int,
    typer.Option("--limit", min=1, max=MAX_LIMIT, metavar="N", help="Notes in each list."),
]

# Ids and counts whole; the title takes what is left (the counts by event are --json's: at
# 80 columns a column for each left a title 16 cells). A note's project gives way first.
ID = Column("id")
USES = Column("uses")
SOUGHT = Column("sought")  # of the uses, by the agent: returned by a search, read by id
TITLE = Column("title", cut=2, comfort=24)
CREATED = Column("created")
PROJECT = Column("project", cut=1, comfort=16, drop=1)
GONE = "(no longer in this store)"
SOUGHT_BY = ("searched", "fetched")


def register(app: typer.Typer) -> None:
    app.command(name="stats")(stats)


def stats(days: DaysOption = 30, limit: LimitOption = 10, as_json: JsonFlag = False) -> None:
    """What this machine's sessions used: the notes used most, the notes never used in
    the last N days, how often prompt recall found something. Recorded on this machine
    only, never synced; notes never used are suggestions for review, never removed."""
    with open_store() as store:
        report = usage_report(store, days=days, limit=limit)
    if report.problem:
        console.warn(report.problem)
    if as_json:
        console.print_json(report.to_dict())
        return
    _say(report)


def _say(report: UsageReport) -> None:
    days, events = report.days, report.events
    say = lines.say_wrapped
    say("", f"What this machine's sessions used in the last {_days(days)} (never synced):")
    console.say()
    say("  session starts  ", _runs(events["injected"], "shown"))
    say("  prompts         ", _found(events["recalled"]))
    say("  MCP searches    ", _found(events["searched"]))
    fetched = events["fetched"]
    say("  read by id      ", f"{_notes(fetched.notes)}, {report.fetched_after_search} right "
                              "after a search returned them")  # fmt: skip
    console.say()
    if report.most_used:
        say("", "Used most (uses: shown at a session's start or a prompt, returned by a "
                "search, read by id; sought: the last two):")  # fmt: skip
        rows = [[used.use.id, used.use.total, _count(used.use, SOUGHT_BY),
                 used.note.title if used.note else GONE]
                for used in report.most_used]  # fmt: skip
        show([ID, USES, SOUGHT, TITLE], rows)
    else:
        say("", "Used most: nothing recorded yet. The hooks and the MCP server record which "
                "notes sessions are given, from now on.")  # fmt: skip
    console.say()
    count = report.never_used_count
    if not count:
        say("", f"Never used: none of the durable notes older than {_days(days)}.")
        return
    unused = _notes(count, "durable note")
    say("", f"Never used in {_days(days)}: {unused} older than that. Suggestions for review "
            f"({suggest('show', 'ID')}); nothing is hidden or removed.")  # fmt: skip
    show(
        [ID, CREATED, TITLE, PROJECT],
        [[note.id, note.created_at[:10], note.title, note.project] for note in report.never_used],
    )
    if count > len(report.never_used):
        more = suggest("stats", "--days", str(days), "--limit", str(count))
        say("", f"and {count - len(report.never_used)} more: {more}")


def _count(use: NoteUse, events: tuple[str, ...]) -> int:
    return sum(use.counts.get(event, 0) for event in events)


def _notes(count: int, what: str = "note") -> str:
    return f"{count} {what}" if count == 1 else f"{count} {what}s"


def _days(days: int) -> str:
    return "day" if days == 1 else f"{days} days"


def _runs(count: RunCount, what: str) -> str:
    return f"{count.runs}, {_notes(count.notes)} {what}" if count.runs else "none"


def _found(count: RunCount) -> str:
    if not count.runs:
        return "none"
    return f"{count.runs}, found notes for {count.found} ({_share(count)}): {_notes(count.notes)}"


def _share(count: RunCount) -> str:
    rate = count.rate
    return "-" if rate is None else f"{rate:.0%}"
