"""The hook entry points and the server, as typer commands for `--help` and completeness.

`anamnesis inject|prompt|capture` and `anamnesis sync --quiet` are normally dispatched to the
hooks package before typer loads (see ``__main__``); these commands exist so that `--help`
describes them and an unusual spelling still reaches the same code.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from anamnesis.cli.errors import CliError

HOOK_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True}


def register(app: typer.Typer) -> None:
    app.command(context_settings=HOOK_CONTEXT)(inject)
    app.command(context_settings=HOOK_CONTEXT)(prompt)
    app.command(context_settings=HOOK_CONTEXT)(capture)
    app.command()(serve)


def inject(ctx: typer.Context) -> None:
    """SessionStart hook: print the notes that matter for this project.

    Options: --cwd DIR, --project KEY, --format text|json, --k N, --budget CHARS. Reads
    Claude Code's hook JSON on stdin; always exits 0 (problems go to <home>/logs/hooks.log).
    """
    raise typer.Exit(_hook("inject", ctx.args))


def prompt(ctx: typer.Context) -> None:
    """UserPromptSubmit hook: add up to 3 of this project's notes related to the prompt.

    Options: --cwd DIR, --project KEY, --format text|json, --budget CHARS, --session-id ID.
    Leaves out notes the session was already shown; nothing for short prompts and slash
    commands; off with `anamnesis config set prompt_recall.enabled false`. Reads Claude
    Code's hook JSON on stdin; always exits 0 (problems go to <home>/logs/hooks.log).
    """
    raise typer.Exit(_hook("prompt", ctx.args))


def capture(ctx: typer.Context) -> None:
    """SessionEnd / PreCompact hook: turn the session transcript into one episodic note.

    Options: --transcript FILE, --session-id ID, --cwd DIR, --source session-end|precompact,
    --no-sync. Reads Claude Code's hook JSON on stdin; always exits 0.
    """
    raise typer.Exit(_hook("capture", ctx.args))


def _hook(name: str, args: list[str]) -> int:
    from anamnesis.hooks import main

    return main([name, *args])


def serve(
    machine_id: Annotated[
        str | None, typer.Option("--machine-id", help="This machine's id (default: config).")
    ] = None,
) -> None:
    """Run the MCP server over stdio (what Claude Code starts)."""
    raise typer.Exit(run_server(machine_id=machine_id))


def missing_mcp() -> str:
    """Why the server cannot start, and the command that fixes it for this installation."""
    from anamnesis.cli.setup import add_mcp_extra

    return f"the MCP server is not installed; install it with: {add_mcp_extra()}"


def run_server(machine_id: str | None = None) -> int:
    from anamnesis.cli.mcp_registration import mcp_extra_installed

    if not mcp_extra_installed():
        raise CliError(missing_mcp())
    from anamnesis.mcp import serve as serve_stdio

    sys.stdout.flush()
    return serve_stdio(machine_id=machine_id)
