"""`anamnesis compact`: rewrite long notes shorter, keeping only rewrites that keep the facts.

A dry run unless `--apply` is given: it lists the notes over the threshold, the provider
calls and an input-token estimate, and calls nothing. What an apply writes (the rewrites and
the `needs-review` tags of the refused ones) lands in one batch, committed to the sync
repository at once; the old text stays in its history.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.commands.reflecting import (
    ApplyFlag,
    commit_to_sync,
    llm_errors,
    provider_from_settings,
    say_cost,
)
from anamnesis.cli.config_file import check_min_tokens, config_for_reading
from anamnesis.cli.context import (
    HereFlag,
    JsonFlag,
    ProjectOption,
    current_home,
    open_home,
    project_filter,
)
from anamnesis.cli.display import lines
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import FAILURE

MIN_TOKENS_KEY = "compact.min_tokens"
# Ids and figures whole; why a note was refused gives way to the terminal's width.
COMPACT_COLUMNS = [
    Column("id"),
    Column("tokens"),
    Column("after"),
    Column("status"),
    Column("why", cut=1),
]

MinTokens = Annotated[
    int | None,
    typer.Option(
        "--min-tokens",
        min=1,
        help="Compact notes longer than this many tokens (default: compact.min_tokens, 1500).",
    ),
]


def register(app: typer.Typer) -> None:
    app.command()(compact)


def compact(
    project: ProjectOption = None,
    here: HereFlag = False,
    min_tokens: MinTokens = None,
    apply: ApplyFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Rewrite long notes shorter with the LLM provider (or, without one, fold repeated
    lines and blocks). A rewrite is kept only if every number, path, URL, identifier, code
    span and command, and 95% of the words, are still there; otherwise the note is tagged
    needs-review and left as it was."""
    # reflect (~20 modules, ~30 ms): loaded by the commands that use it, not every command
    from anamnesis.reflect import run_compaction

    project = project_filter(project, here)
    threshold = min_tokens if min_tokens is not None else configured_min_tokens()
    settings, provider = provider_from_settings()
    with open_home() as (home, store):
        with llm_errors("Compacting" if apply else "Looking for long notes"):
            report = run_compaction(
                store, provider, settings, project=project, min_tokens=threshold, apply=apply
            )
        data = report.to_dict()
        if report.written or report.tagged:
            message = (
                f"anamnesis compact: {len(report.written)} note(s) compacted, "
                f"{len(report.tagged)} tagged needs-review"
            )
            data["commit"] = commit_to_sync(home, store, message)
    if as_json:
        console.print_json(data)
    else:
        _say(data)
    if report.error:
        console.warn(f"compact stopped: {report.error}")
    if not report.ok:
        raise typer.Exit(FAILURE)


def configured_min_tokens() -> int:
    """``compact.min_tokens`` from config.json, or the default (a bad value is an error)."""
    from anamnesis.reflect import COMPACT_MIN_TOKENS  # reflect: see compact()

    raw = config_for_reading(current_home()).get(MIN_TOKENS_KEY)
    if raw is None or raw == "":
        return int(COMPACT_MIN_TOKENS)
    source = f"{MIN_TOKENS_KEY} in config.json"
    return int(check_min_tokens(raw, source=source, code=FAILURE))


def _say(data: dict[str, Any]) -> None:
    notes = data["notes"]
    if not notes:
        console.say(f"nothing to compact: no note is longer than {data['min_tokens']} tokens")
        return
    rows = [
        [
            note["id"],
            note["tokens"],
            "" if note["tokens_after"] is None else note["tokens_after"],
            note["status"],
            note["reason"],
        ]
        for note in notes
    ]
    show(COMPACT_COLUMNS, rows)
    if data["written"]:
        lines.say_wrapped(f"compacted {len(data['written'])} note(s): ", ", ".join(data["written"]))
    if data["tagged"]:
        lines.say_wrapped("tagged needs-review: ", ", ".join(data["tagged"]))
    heuristic = data["provider"] == "heuristic"
    if heuristic:
        console.say("no LLM (llm.provider heuristic): repeated lines and blocks are folded")
    say_cost(data, "compact", calls=not heuristic)
