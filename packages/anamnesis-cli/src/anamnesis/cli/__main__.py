"""The `anamnesis` process: hook entry points first, then everything else.

Session hooks start a fresh process each time and wait for it, so `inject`, `prompt`,
`capture` and the hook form of `sync` (the hooks package's table of hooks says which command
lines are hooks) are handed to the hooks package before typer (and rich, and pydantic) would
load. The MCP server's start-up (`anamnesis serve`, as `init` registers it)
skips typer too: it is over a second of CPU already (the MCP SDK), and it starts at a lower
priority than the hooks (`store.yield_to_sessions`), which typer's imports would run before.
"""

from __future__ import annotations

import os
import sys

HELP_FLAGS = ("--help", "-h")


def is_hook_call(argv: list[str]) -> bool:
    """Whether the command line runs a hook: a hook's name (not an internal one), and for a
    hook that shares its name with a person's command, the flag of its hook form."""
    if not argv or any(arg in HELP_FLAGS for arg in argv):
        return False
    from anamnesis.hooks import HOOKS  # the table alone: no hook's code loads here

    spec = HOOKS.get(argv[0])
    if spec is None or spec.internal:
        return False
    return spec.hook_form is None or spec.hook_form in argv[1:]


def server_machine_id(argv: list[str]) -> str | bool | None:
    """For ``anamnesis serve`` as `init` registers it (``serve``, ``serve --machine-id X``):
    the machine id it names (None: the configured one), so that the server starts without
    typer; False for any other command line (typer parses it, and says what is wrong)."""
    if argv[:1] != ["serve"]:
        return False
    rest = argv[1:]
    if not rest:
        return None
    if len(rest) == 2 and rest[0] == "--machine-id" and not rest[1].startswith("-"):
        return rest[1]
    if len(rest) == 1 and rest[0].startswith("--machine-id="):
        return rest[0].partition("=")[2]
    return False


def run() -> None:
    argv = sys.argv[1:]
    if is_hook_call(argv):
        from anamnesis.hooks import main as hook_main  # the hook alone: no typer, no CLI

        code = hook_main(argv)
        _flush()
        os._exit(code)  # skip interpreter teardown: the session waits on this process
    machine_id = server_machine_id(argv)
    if machine_id is not False:  # the MCP server, as Claude Code starts it
        _flush()
        sys.exit(_serve(machine_id if isinstance(machine_id, str) else None, "anamnesis serve"))
    from anamnesis.cli.console import stdin_is_terminal  # past the hooks' and serve's paths

    if not argv and not stdin_is_terminal():
        code = _serve()  # how Claude Code starts a server registered before `serve` existed
    else:  # a bare `anamnesis` typed in a terminal gets the help, not a silent server
        from anamnesis.cli.app import main  # typer and the commands: never a hook's load

        code = main(argv)
    _flush()
    sys.exit(code)


def _serve(machine_id: str | None = None, command: str = "anamnesis") -> int:
    from anamnesis.cli.agent_config.mcp_registration import mcp_extra_installed  # serve's path only

    if not mcp_extra_installed():
        from anamnesis.cli.commands.entry_points import missing_mcp  # typer: only to say this

        sys.stderr.write(f"{command}: {missing_mcp()}\n")
        return 1
    from anamnesis.mcp import serve  # the MCP extra, checked above: the SDK loads here

    return serve(machine_id=machine_id)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    run()
