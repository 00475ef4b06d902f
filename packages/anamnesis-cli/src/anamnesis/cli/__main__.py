"""The `anamnesis` process: hook entry points first, then everything else.

Session hooks start a fresh process each time and wait for it, so `inject`, `prompt`,
`capture` and the hook form of `sync` are handed to the hooks package before typer (and rich, and
pydantic) would load: the MCP server's start-up skips typer too.
"""

from __future__ import annotations

import os
import sys

HOOK_COMMANDS = ("inject", "prompt", "capture")
HELP_FLAGS = ("--help", "-h")


def is_hook_call(argv: list[str]) -> bool:
    if not argv or any(arg in HELP_FLAGS for arg in argv):
        return False
    if argv[0] in HOOK_COMMANDS:
        return True
    return argv[0] == "sync" and "--quiet" in argv[1:]


def run() -> None:
    argv = sys.argv[1:]
    if is_hook_call(argv):
        from anamnesis.hooks import main as hook_main

        code = hook_main(argv)
        _flush()
        os._exit(code)  # skip interpreter teardown: the session waits on this process
    from anamnesis.cli.console import stdin_is_terminal  # json and sys only: cheap

    if not argv and not stdin_is_terminal():
        code = _serve()  # how Claude Code starts a server registered before `serve` existed
    else:  # a bare `anamnesis` typed in a terminal gets the help, not a silent server
        from anamnesis.cli.app import main

        code = main(argv)
    _flush()
    sys.exit(code)


def _serve() -> int:
    from anamnesis.cli.commands.entry_points import missing_mcp
    from anamnesis.cli.mcp_registration import mcp_extra_installed

    if not mcp_extra_installed():
        sys.stderr.write(f"anamnesis: {missing_mcp()}\n")
        return 1
    from anamnesis.mcp import serve

    return serve()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    run()
