"""`anamnesis dashboard`: start the local web page (the `dashboard` extra), in this process.

The dashboard is imported here, on first use (as the MCP extra is for `serve`): an install
without the extra says how to add it. The CLI hands the dashboard its whole doctor as the
status panel's checks; the dashboard syncs through ops' cycle itself. Neither runs the
other as a program.
"""

from __future__ import annotations

import sys
from functools import partial
from typing import Annotated

import typer

from anamnesis.cli import installation
from anamnesis.cli.context import current_home
from anamnesis.cli.errors import CliError
from anamnesis.cli.importable import importable


def register(app: typer.Typer) -> None:
    app.command()(dashboard)


def dashboard(
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            min=0,
            max=65535,
            help="Port to listen on (default 8765, or a free one; 0: any).",
        ),
    ] = None,
    no_open: Annotated[bool, typer.Option("--no-open", help="Do not open a browser.")] = False,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to listen on. Anything but 127.0.0.1 exposes your memory to the "
            "network (a warning is printed); 0.0.0.0 and :: are refused: from another "
            "machine, use `ssh -L 8765:127.0.0.1:8765 HOST`.",
        ),
    ] = "127.0.0.1",
) -> None:
    """Browse, search and edit the notes in a local web page, with each note's history,
    the fleet of machines and doctor's checks. Prints a one-time link; Ctrl-C stops it."""
    if not importable("anamnesis.dashboard"):
        raise CliError(missing_dashboard())
    try:
        from anamnesis.dashboard import run_dashboard  # the dashboard extra (see above)
    except ImportError as exc:  # there, but something it needs is not: reinstall the extra
        raise CliError(f"{missing_dashboard()} ({exc})") from None
    from anamnesis.cli import doctor  # the status panel's checks: the dashboard's alone

    home = current_home()
    checks = partial(doctor.run_checks, home, check_remote=False)  # every list page sums them up
    sys.stdout.flush()
    code = run_dashboard(home.root, port=port, host=host, open_browser=not no_open, checks=checks)
    raise typer.Exit(code)


def missing_dashboard() -> str:
    """Why the dashboard cannot start, and the command that adds it to this installation
    (never the package index's anamnesis-memory: an older release, without this dashboard)."""
    inst = installation.detect()
    command = installation.install_command(inst, extras=inst.with_extras("dashboard"))
    return (
        f"the dashboard is not installed; install it with: {command} (anamnesis-memory"
        "[dashboard] from a checkout or its wheels: the package index's anamnesis-memory is "
        "an older, incompatible release)"
    )
