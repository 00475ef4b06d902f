"""The `anamnesis` command: a typer app, run so that every error is one line on stderr."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Sequence
from importlib import import_module, metadata
from typing import Annotated, Any

import typer
import typer.main

from anamnesis.cli import __version__, console
from anamnesis.cli.display import help_text
from anamnesis.cli.errors import FAILURE, USAGE, CliError
from anamnesis.cli.notices import append_log, routed
from anamnesis.store import StoreError, display_safe
from anamnesis.sync import SyncError

HELP = """Cross-machine memory for Claude Code: markdown notes, keyword and vector search,
git sync.

Run `anamnesis init` once per machine, and `anamnesis doctor` when something is off.
`anamnesis serve` runs the MCP server (so does a bare `anamnesis` whose stdin is not a
terminal, which is how Claude Code starts it)."""


# The modules of anamnesis.cli.commands that register the top-level commands, in the order
# `anamnesis --help` lists them, each with the commands it registers, and how: its
# ``register(app)``, or the group its function of that name makes. A command line that
# names one of them loads that module alone: importing every command's module is a
# quarter of a second (`anamnesis review` spent as long importing as reviewing a store
# with its memo). test_commands_table checks this table against what the modules register.
COMMAND_MODULES: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("setup_cmd", ("init",), "register"),
    ("entry_points", ("inject", "prompt", "capture", "serve"), "register"),
    ("syncing", ("sync",), "register"),
    ("remotes", ("share", "remote"), "register"),
    ("notes", ("search", "list", "show", "write", "edit", "delete"), "register"),
    ("admin", ("status", "reindex", "migrate", "dedup", "project", "doctor"), "register"),
    ("interchange", ("export", "import"), "register"),
    ("reflecting", ("reflect", "merge", "llm"), "register"),
    ("compacting", ("compact",), "register"),
    ("hygiene", ("clean",), "register"),
    ("review", ("review",), "register"),
    ("secrets_scan", ("secrets",), "register"),
    ("dashboard_cmd", ("dashboard",), "register"),
    ("usage_stats", ("stats",), "register"),
    ("admin", ("config",), "config_app"),
    ("evaluate", ("eval",), "eval_app"),
)


def build_app(argv: Sequence[str] = ()) -> typer.Typer:
    """The app with every command; with only the one ``argv`` names, when it names one
    (whose module then loads alone: :data:`COMMAND_MODULES`)."""
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
            if console.stdin_is_terminal():  # a person typed it: show what there is
                typer.echo(ctx.get_help())
                raise typer.Exit(0)
            from anamnesis.cli.commands import entry_points

            raise typer.Exit(entry_points.run_server())

    named = argv[0] if argv else ""
    wanted = [entry for entry in COMMAND_MODULES if named in entry[1]] or COMMAND_MODULES
    for name, commands, how in wanted:
        module = import_module(f"anamnesis.cli.commands.{name}")
        if how == "register":
            module.register(app)
        else:
            app.add_typer(getattr(module, how)(), name=commands[0])
    return app


def version_line() -> str:
    parts = []
    for dist in (
        "anamnesis-store",
        "anamnesis-sync",
        "anamnesis-hooks",
        "anamnesis-mcp",
        "anamnesis-reflect",
        "anamnesis-dashboard",
    ):
        try:
            parts.append(f"{dist.removeprefix('anamnesis-')} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{dist.removeprefix('anamnesis-')} not installed")
    return f"anamnesis {__version__} ({', '.join(parts)})"


def main(argv: Sequence[str]) -> int:
    """Run one command; return the exit status. Nothing here ends in a traceback, and the
    libraries' warnings and log records come out as the CLI's own notices."""
    with routed():
        return _run(list(argv))


def _run(argv: list[str]) -> int:
    command = typer.main.get_command(build_app(argv))
    help_text.make_readable(command)
    prefix = command_path(command, argv)
    try:
        result = command(argv, prog_name="anamnesis", standalone_mode=False)
    except CliError as exc:
        _error(prefix, exc.message)
        return exc.code
    except typer.TyperException as exc:  # usage errors from the command line parser
        # The parser knows which (sub)command it was parsing: `anamnesis config bogus`
        # is an error of `anamnesis config`, whose --help lists its commands.
        context = getattr(exc, "ctx", None)
        where = getattr(context, "command_path", None) or prefix
        code = getattr(exc, "exit_code", USAGE)
        hint = f" (see `{where} --help`)" if code == USAGE else ""
        _error(where, exc.format_message() + hint)
        return int(code)
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
        path = _log_crash(prefix)
        _error(prefix, f"unexpected error: {type(exc).__name__}: {exc} (details: {path})")
        return FAILURE
    return result if isinstance(result, int) else 0


def command_path(command: Any, argv: Sequence[str]) -> str:
    """``anamnesis config get`` for ``["config", "get", "remote"]``: the words of argv that
    name (sub)commands, which is how every error line of that command starts."""
    words = ["anamnesis"]
    for arg in argv:
        commands = getattr(command, "commands", None)
        if not isinstance(commands, dict) or arg not in commands:
            break
        words.append(arg)
        command = commands[arg]
    return " ".join(words)


def _error(prefix: str, message: str) -> None:
    sys.stderr.write(f"{prefix}: {display_safe(' '.join(message.split()))}\n")


def _log_crash(command: str) -> str:
    path = append_log(f"{command}\n{traceback.format_exc()}")
    return str(path) if path else "no log: the store folder is not writable"
