"""`anamnesis eval run`: how well search finds the notes a set of cases expects."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anamnesis.cli import console, evaluation
from anamnesis.cli.context import JsonFlag
from anamnesis.cli.errors import CliError, UsageError

HELP = """Measure recall: Recall@k and MRR of search over a set of cases.

Cases are JSONL, one per line: {"qid", "query", "relevant": [note ids], "project",
"approved", "kind"}. A result also counts when it supersedes a relevant note."""


def eval_app() -> typer.Typer:
    app = typer.Typer(help=HELP)

    @app.callback(invoke_without_command=True)
    def eval_root(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:  # a short usage line, not the whole help
            raise UsageError("missing a command: run (see `anamnesis eval --help`)")

    app.command(name="run")(run)
    return app


def run(
    cases: Annotated[
        Path,
        typer.Option(
            "--cases",
            metavar="FILE",
            help='JSONL, a case a line: {"qid", "query", "relevant": [note ids], "project", '
            '"approved", "kind"}.',
        ),
    ],
    notes: Annotated[
        Path | None,
        typer.Option(
            "--notes",
            metavar="FILE",
            help="Notes (JSONL: id, type, title, body, project, tags, supersedes) to load "
            "into a temporary sandbox store; the cases then use the file's ids. Without it "
            "the cases run against your store, with its note ids.",
        ),
    ] = None,
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            metavar="MODE",
            help="keyword | vector | hybrid | all (every mode that can run here).",
        ),
    ] = evaluation.ALL_MODES,
    ks: Annotated[
        str, typer.Option("--k", metavar="K,K,...", help="Cut-offs for Recall@k.")
    ] = "1,3,5,8",
    project_filter: Annotated[
        bool,
        typer.Option("--project-filter", help="Search each case within its own project only."),
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Recall@k and MRR for each search mode (a table; --json for the figures, per kind
    of case and each case's rank)."""
    from anamnesis.store import load_cases

    cutoffs = evaluation.parse_ks(ks)
    evaluation.check_mode_choice(mode)
    loaded = load_cases(cases)  # a bad file is one line naming it, before any other work
    scored = [case for case in loaded if case.approved]
    if not scored:
        raise CliError(f"{cases} holds no approved cases to measure")
    with evaluation.subject(notes) as target:
        modes = evaluation.modes_to_run(mode, target.vectors_problem)
        modes = evaluation.embed_all(target, mode, modes)
        missing = evaluation.missing_ids(target, scored)
        if missing:
            where = "the notes file" if target.sandbox else "the store"
            console.warn(
                f"{len(missing)} relevant id(s) in {cases} name no note in {where} "
                f"(first: {missing[0]}); cases that need only those can never be found"
            )
        reports = evaluation.evaluate(target, scored, cutoffs, modes, use_project=project_filter)
        data = evaluation.as_data(reports, target)
    if as_json:
        console.print_json(
            {
                "cases_file": str(cases),
                "notes_file": str(notes) if notes is not None else None,
                "ks": list(cutoffs),
                "project_filter": project_filter,
                **data,
            }
        )
        return
    source = f"notes from {notes} (sandbox)" if notes is not None else "your store"
    console.say(f"{len(scored)} cases from {cases} against {source}")
    evaluation.print_tables(reports, cutoffs)
