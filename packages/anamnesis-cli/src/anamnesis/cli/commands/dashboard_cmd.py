"""`anamnesis dashboard`: start the local web page (the `dashboard` extra).

The dashboard runs as its own process (``python -m anamnesis.dashboard``): the CLI never
imports it, and it runs the CLI (not imports it) for a sync or doctor's checks.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Annotated

import typer

from anamnesis.cli.context import current_home
from anamnesis.cli.errors import CliError
from anamnesis.cli.importable import importable


def register(app: typer.Typer) -> None:
    app.command()(dashboard)


def dashboard(
    port: Annotated[
        int | None,
        typer.Option("--port", help="Port to listen on (default 8765, or a free one; 0: any)."),
    ] = None,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. Anything but 127.0.0.1 exposes your memory to the "
            "network (a warning is printed).",
        ),
    ] = "127.0.0.1",
) -> None:
    """Browse, search and edit the notes in a local web page, with each note's history,
    the fleet of machines and doctor's checks. Prints a one-time link; Ctrl-C stops it."""
    if not importable("anamnesis.dashboard"):
        raise CliError(missing_dashboard())
    root = str(current_home().root)
    argv = [sys.executable, "-m", "anamnesis.dashboard", "--home", root, "--host", host]
    if port is not None:
        argv += ["--port", str(port)]
    if no_open:
        argv.append("--no-open")
    sys.stdout.flush()
    if os.name == "posix":  # become the server: Ctrl-C and exit codes need no relaying
        os.execv(sys.executable, argv)
    try:
        raise typer.Exit(subprocess.call(argv))
    except KeyboardInterrupt:
        raise typer.Exit(0) from None


def missing_dashboard() -> str:
    """Why the dashboard cannot start, and the command that adds it to this installation."""
    from anamnesis.cli import installation

    inst = installation.detect()
    command = installation.install_command(inst, extras=inst.with_extras("dashboard"))
    return f"the dashboard is not installed; install it with: {command}"
