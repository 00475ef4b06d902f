"""`anamnesis sync` as people run it: progress, a clear result, a non-zero exit on trouble.

The hook form (`anamnesis sync --quiet`, what SessionStart runs) never gets here: it is
dispatched to the hooks package before this app loads, and fails open.
"""

from __future__ import annotations

from typing import Annotated

import typer

from anamnesis.cli import console
from anamnesis.cli.context import JsonFlag, embed_in_background, open_home
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.hooks import sync_store
from anamnesis.ops import claude_home
from anamnesis.sync import STRATEGIES, SyncBusy, SyncError


def register(app: typer.Typer) -> None:
    app.command()(sync)


def sync(
    resolve: Annotated[
        str | None,
        typer.Option(
            "--resolve",
            help="Settle a reported conflict: keep-both (default choice), ours or theirs.",
        ),
    ] = None,
    no_import: Annotated[
        bool, typer.Option("--no-import", help="Skip importing Claude Code's own memory.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="The hook form: print nothing, never fail.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Commit, pull and push the notes, then reindex what changed."""
    del quiet  # `sync --quiet` is dispatched to the hook before this app runs
    if resolve is not None and resolve not in STRATEGIES:
        raise UsageError(f"--resolve must be one of {', '.join(STRATEGIES)}, got {resolve!r}")

    with open_home() as (home, store):
        try:
            with console.spinner("Syncing"):  # the import is part of the wait, too
                # The one sync cycle (masking what goes out first), settling a conflict
                # when asked; a resolve imports nothing new meanwhile.
                report = sync_store(
                    home,
                    store,
                    claude_dir=None if no_import else claude_home(),
                    resolve=resolve,  # one of STRATEGIES: checked above
                )
        except SyncBusy as exc:
            raise CliError(str(exc)) from None
        except SyncError as exc:
            raise CliError(str(exc)) from None
        # Pulled notes are found by meaning once embedded, by a process of their own.
        embedding = embed_in_background(store)
    result, data = report.result, report.as_dict()
    problems = report.imported.problems if report.imported else []
    for path, reason in problems:
        console.warn(f"could not import {path}: {reason}")
    masked = [*data["masked"], *(f.path for named in report.remotes for f in named.masked)]
    for path in masked:
        console.warn(f"masked secrets in {path} before pushing it (committed as such)")
    if as_json:
        console.print_json(data)
    else:
        if data["imported"]:
            console.say(f"imported {data['imported']} note(s) from Claude Code's own memory")
        console.say(result.detail)
        for named in report.remotes:  # each named remote, in routing order
            console.say(f"{named.name}: {named.as_dict()['detail']}")
        indexed = data["indexed"] + sum(named.indexed for named in report.remotes)
        if indexed:
            console.say(f"reindexed {indexed} note(s)")
        if embedding:
            console.say(embedding)
    if result.conflicted or any(named.as_dict()["conflicted"] for named in report.remotes):
        raise CliError(
            "conflict: resolve with `anamnesis sync --resolve keep-both` (or ours / theirs)"
        )
    errors = report.remote_errors
    if errors:
        raise CliError("\n".join(errors))
