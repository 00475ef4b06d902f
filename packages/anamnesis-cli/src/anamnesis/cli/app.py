"""The `anamnesis` command: a typer app, run so that every error is one line on stderr."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Annotated

import typer

from anamnesis.cli import __version__
from anamnesis.cli.commands import admin, entry_points, notes, setup_cmd, syncing
from anamnesis.cli.errors import FAILURE, USAGE, CliError

HELP = """Cross-machine memory for Claude Code: markdown notes, keyword search, git sync.

Run `anamnesis init` once per machine. With no command, `anamnesis` runs the MCP server."""


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="anamnesis",
        help=HELP,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
    )

    @app.callback(invoke_without_command=True)
    def root(
        ctx: typer.Context,
        version: Annotated[
            bool, typer.Option("--version", help="Print the versions and exit.")
        ] = False,
    ) -> None:
        if version:
            typer.echo(version_line())
            raise typer.Exit(0)
        if ctx.invoked_subcommand is None:
            raise typer.Exit(entry_points.run_server())

    setup_cmd.register(app)
    entry_points.register(app)
    syncing.register(app)
    notes.register(app)
    admin.register(app)
    app.add_typer(admin.config_app(), name="config")
    return app


def version_line() -> str:
    from importlib import metadata

    parts = []
    for dist in ("anamnesis-store", "anamnesis-sync", "anamnesis-hooks", "anamnesis-mcp"):
        try:
            parts.append(f"{dist.removeprefix('anamnesis-')} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist.removeprefix('anamnesis-')} not installed")
    return f"anamnesis {__version__} ({', '.join(parts)})"


def main(argv: Sequence[str]) -> int:
    """Run one command; return the exit status. Nothing here ends in a traceback."""
    from anamnesis.store import StoreError
    from anamnesis.sync import SyncError

    command = argv[0] if argv and not argv[0].startswith("-") else ""
    prefix = f"anamnesis {command}".rstrip()
    try:
        result = build_app()(list(argv), prog_name="anamnesis", standalone_mode=False)
    except CliError as exc:
        _error(prefix, exc.message)
        return exc.code
    except typer.TyperException as exc:  # usage errors from the command line parser
        message = exc.format_message()
        if message.startswith("No such command"):
            prefix = "anamnesis"
        hint = f" (see `{prefix} --help`)" if exc.exit_code == USAGE else ""
        _error(prefix, message + hint)
        return exc.exit_code
    except typer.Abort:
        _error(prefix, "aborted")
        return FAILURE
    except (StoreError, SyncError) as exc:
        _error(prefix, str(exc))
        return FAILURE
    except KeyboardInterrupt:
        _error(prefix, "interrupted")
        return 130
    except BrokenPipeError:
        return FAILURE
    except Exception as exc:  # a bug: still one line, with where to look
        path = _log_crash(command or "anamnesis")
        _error(prefix, f"unexpected error: {type(exc).__name__}: {exc} (details: {path})")
        return FAILURE
    return result if isinstance(result, int) else 0


def _error(prefix: str, message: str) -> None:
    sys.stderr.write(f"{prefix}: {' '.join(message.split())}\n")


def _log_crash(command: str) -> str:
    import traceback
    from datetime import UTC, datetime

    from anamnesis.store.config import resolve_home

    path = resolve_home() / "logs" / "cli.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as log:
            log.write(f"{datetime.now(UTC).isoformat()} {command}\n{traceback.format_exc()}\n")
    except OSError:
        return "no log: the store folder is not writable"
    return str(path)
