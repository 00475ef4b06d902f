"""`anamnesis init`: one command to wire a machine up (and `--uninstall` to unwire it)."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from anamnesis.cli import console, setup, setup_vectors
from anamnesis.cli.config_file import check_model_path, load_config, set_setting
from anamnesis.cli.context import current_home, embed_in_background
from anamnesis.cli.errors import CliError
from anamnesis.hooks import DEFAULT_AGENT
from anamnesis.ops import Home


def register(app: typer.Typer) -> None:
    app.command()(init)


def init(
    remote: Annotated[
        str | None,
        typer.Option(
            "--remote",
            help="Git remote to sync through (URL or path; default: $ANAMNESIS_GIT_REMOTE).",
        ),
    ] = None,
    local_only: Annotated[
        bool, typer.Option("--local-only", help="No remote: keep notes on this machine.")
    ] = False,
    machine_id: Annotated[
        str | None, typer.Option("--machine-id", help="This machine's name in notes.")
    ] = None,
    print_only: Annotated[
        bool, typer.Option("--print", help="Show the plan; write nothing.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask anything.")] = False,
    no_sync: Annotated[bool, typer.Option("--no-sync", help="Skip the first sync.")] = False,
    embed_model_path: Annotated[
        str | None,
        typer.Option(
            "--embed-model-path",
            help="A local copy of the embedding model (for machines that cannot download it).",
        ),
    ] = None,
    uninstall: Annotated[
        bool, typer.Option("--uninstall", help="Remove our hooks and MCP server; keep notes.")
    ] = False,
    agent: Annotated[
        str,
        typer.Option(
            "--agent",
            metavar="AGENT",
            help="The coding agent to set up: claude-code, codex, or all.",
        ),
    ] = DEFAULT_AGENT,
) -> None:
    """Set up this machine: config, the agent's hooks and MCP server, a first sync."""
    agents = setup.chosen_agents(agent)
    if uninstall:
        _uninstall(print_only=print_only, yes=yes, agents=agents)
        return
    interactive = not yes and not print_only and console.stdin_is_terminal()
    home = current_home()
    remote_from_env = bool(os.environ.get("ANAMNESIS_GIT_REMOTE", "").strip())
    if interactive and remote is None and not local_only and not remote_from_env:
        current = str(load_config(home).get("remote") or "")  # a broken file stops here
        answer = typer.prompt(
            "Git remote to sync notes between machines (empty: this machine only)",
            default=current,
            show_default=bool(current),
        ).strip()
        remote, local_only = (answer, False) if answer else (None, True)
    plan = setup.plan_init(
        home,
        machine_id=machine_id,
        remote=remote,
        local_only=local_only,
        embed_model_path=embed_model_path,
        agents=agents,
    )
    if print_only:
        console.say("anamnesis init --print: nothing will be written")
        for line in setup.describe_init(plan):
            console.say(line)
        return
    if interactive:
        for line in setup.describe_init(plan):
            console.say(line)
        if not typer.confirm("Apply?", default=True):
            raise CliError("nothing changed")
    outcome = setup.apply_init(plan, first_sync=not no_sync)
    for line in outcome.lines:
        console.say(line)
    _model_step(home, interactive=interactive)
    _embed_in_background(home)
    if outcome.problems:
        for problem in outcome.problems[:-1]:
            console.warn(problem)
        raise CliError(outcome.problems[-1])


def _model_step(home: Home, *, interactive: bool) -> None:
    """Vector search needs its model: ask for a local copy when it cannot be downloaded."""
    with console.spinner("Checking the embedding model"):
        problem = setup_vectors.model_problem(home.root)
    if problem is None:
        return
    if not interactive:
        console.say(f"vector search: {problem}; {setup_vectors.HINT}")
        return
    console.say(f"vector search: {problem}")

    for _attempt in range(3):  # an optional step: a typo asks again, never fails init
        answer = typer.prompt(
            "Folder with a local copy of the model (model.onnx and its tokenizer files; "
            "empty: keyword search for now)",
            default="",
            show_default=False,
        ).strip()
        if not answer:
            break
        try:
            folder = check_model_path(answer)
        except CliError as exc:
            console.say(exc.message)
            continue
        set_setting(home, "embed_model_path", folder)
        console.say(f"vector search will use the model in {folder}")
        return
    console.say(f"vector search stays off; later: {setup_vectors.HINT}")


def _embed_in_background(home: Home) -> None:
    """The notes the first sync brought are embedded by a process of their own."""
    if not home.exists():
        return
    with home.open_store() as store:
        embedding = embed_in_background(store)
    if embedding:
        console.say(embedding)


def _uninstall(*, print_only: bool, yes: bool, agents: tuple[str, ...]) -> None:
    plan = setup.plan_uninstall(agents)
    if print_only:
        console.say("anamnesis init --uninstall --print: nothing will be changed")
        for line in setup.describe_uninstall(plan):
            console.say(line)
        return
    if not yes and console.stdin_is_terminal():
        for line in setup.describe_uninstall(plan):
            console.say(line)
        if not typer.confirm("Remove?", default=True):
            raise CliError("nothing changed")
    outcome = setup.apply_uninstall(plan)
    for line in outcome.lines:
        console.say(line)
    if outcome.problems:
        raise CliError(outcome.problems[-1])
