"""`anamnesis eval run|generate|approve`: how well search finds the notes a set of cases
expects, and cases made by the LLM provider (stored unapproved until a person approves them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from anamnesis.cli import console, evaluation
from anamnesis.cli.commands.reflecting import llm_errors, provider_from_settings
from anamnesis.cli.context import JsonFlag, current_home, mode_help, open_store
from anamnesis.cli.display import lines
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.store import load_cases

HELP = """Measure recall: Recall@k and MRR of search over a set of cases.

Cases are JSONL, one per line: {"qid", "query", "relevant": [note ids], "project",
"approved", "kind"}. A result also counts when it supersedes a relevant note."""

# Its help names the store's search modes as they are when the app is built (eval_app).
EVAL_MODE_OPTION = typer.Option("--mode", metavar="MODE")


def eval_app() -> typer.Typer:
    app = typer.Typer(help=HELP)
    EVAL_MODE_OPTION.help = f"{mode_help(evaluation.ALL_MODES)} (every mode that can run here)."

    @app.callback(invoke_without_command=True)
    def eval_root(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:  # a short usage line, not the whole help
            raise UsageError(
                "missing a command: run, generate or approve (see `anamnesis eval --help`)"
            )

    app.command(name="run")(run)
    app.command(name="generate")(generate)
    app.command(name="approve")(approve)
    return app


def run(
    cases: Annotated[
        Path | None,
        typer.Option(
            "--cases",
            metavar="FILE",
            help='JSONL, a case a line: {"qid", "query", "relevant": [note ids], "project", '
            '"approved", "kind"}. Default: the store\'s own cases (`eval generate`).',
        ),
    ] = None,
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
    mode: Annotated[str, EVAL_MODE_OPTION] = evaluation.ALL_MODES,
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
    if cases is None and notes is not None:
        raise UsageError("--notes needs --cases: the store's own cases name the store's notes")
    if cases is None:
        # reflect (~20 modules, ~30 ms): loaded by the commands that use it, not every command
        from anamnesis.reflect import cases_path

        cases = cases_path(current_home().root)
        if not cases.is_file():
            raise CliError(
                "this store has no eval cases yet: `anamnesis eval generate` asks the LLM "
                "provider for some (then `anamnesis eval approve`), or pass --cases FILE"
            )
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
    lines.say_wrapped(f"{len(scored)} cases from ", f"{cases} against {source}", 2)
    evaluation.print_tables(reports, cutoffs)


def generate(
    n: Annotated[int, typer.Option("--n", min=1, max=1000, help="How many notes to sample.")] = 50,
    seed: Annotated[int | None, typer.Option("--seed", help="Sample the same notes again.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Ask the LLM provider for one paraphrase query per sampled durable note; the cases
    are stored unapproved (`anamnesis eval approve` approves them)."""
    from anamnesis.reflect import cases_path, generate_cases  # reflect: see run()

    settings, provider = provider_from_settings()
    with open_store() as store:
        with llm_errors("Asking for queries"):
            made = generate_cases(store, provider, settings, n=n, seed=seed)
        path = cases_path(store.root)
    if as_json:
        console.print_json({"generated": [case.qid for case in made], "file": str(path)})
        return
    console.say(f"{len(made)} new case(s), unapproved, in {path}")
    if made:
        console.say("review them with `anamnesis eval approve` (or `--all`)")


def approve(
    qids: Annotated[list[str] | None, typer.Argument(help="Cases to approve (qid).")] = None,
    all_cases: Annotated[bool, typer.Option("--all", help="Approve every case.")] = False,
) -> None:
    """Approve generated cases: the merge gate and `eval run` use approved ones only.
    Without qids or --all, asks about each unapproved case in turn (a terminal is needed)."""
    from anamnesis.reflect import UnknownCases, approve_cases, load_store_cases  # see run()

    root = current_home().root
    if qids and all_cases:
        raise UsageError("name cases or use --all, not both")
    chosen = list(qids or [])
    if not chosen and not all_cases:
        pending = [case for case in load_store_cases(root) if not case.approved]
        if not pending:
            console.say("no unapproved cases")
            return
        if not console.stdin_is_terminal():
            raise UsageError("name the cases to approve, or use --all (no terminal to ask on)")
        for case in pending:
            console.say(f"{case.qid}: {case.query!r} -> {', '.join(case.relevant)}")
            if typer.confirm("approve?", default=True):
                chosen.append(case.qid)
        if not chosen:
            console.say("none approved")
            return
    try:
        changed = approve_cases(root, chosen, all_cases=all_cases)
    except UnknownCases as exc:
        raise CliError(str(exc)) from None
    console.say(f"approved {changed} case(s)")
