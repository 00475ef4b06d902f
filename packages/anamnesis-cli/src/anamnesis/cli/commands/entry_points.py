"""The hook entry points and the server, as typer commands for `--help` and completeness.

`anamnesis inject|prompt|capture` and `anamnesis sync --quiet` are normally dispatched to the
hooks package before typer loads (see ``__main__``); these commands exist so that `--help`
describes them and an unusual spelling still reaches the same code. They are made from the
hooks package's table of hooks (:data:`anamnesis.hooks.HOOKS`): every hook that is a command
of its own, with the table's help.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated

import typer

from anamnesis.cli.agent_config import mcp_registration
from anamnesis.cli.errors import CliError
from anamnesis.hooks import HOOKS
from anamnesis.hooks import main as run_hook

HOOK_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True}


def register(app: typer.Typer) -> None:
    for spec in HOOKS.values():
        # An internal hook is no command; a hook form of a person's command (`sync
        # --quiet`) is that command's (its flag is dispatched before typer loads).
        if not spec.internal and spec.hook_form is None:
            command = app.command(name=spec.name, help=spec.help, context_settings=HOOK_CONTEXT)
            command(_hook_command(spec.name))
    app.command()(serve)


def _hook_command(name: str) -> Callable[[typer.Context], None]:
    """The typer command running the hook ``name`` with the rest of the command line."""

    def hook(ctx: typer.Context) -> None:
        raise typer.Exit(run_hook([name, *ctx.args]))

    return hook


def serve(
    machine_id: Annotated[
        str | None, typer.Option("--machine-id", help="This machine's id (default: config).")
    ] = None,
) -> None:
    """Run the MCP server over stdio (what Claude Code starts)."""
    raise typer.Exit(run_server(machine_id=machine_id))


def missing_mcp() -> str:
    """Why the server cannot start, and the command that fixes it for this installation."""
    from anamnesis.cli.setup import add_mcp_extra  # init's module: only to say this

    return f"the MCP server is not installed; install it with: {add_mcp_extra()}"


def run_server(machine_id: str | None = None) -> int:
    if not mcp_registration.mcp_extra_installed():
        raise CliError(missing_mcp())
    from anamnesis.mcp import serve as serve_stdio  # the MCP extra, checked above

    sys.stdout.flush()
    return serve_stdio(machine_id=machine_id)
