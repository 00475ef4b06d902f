"""``python -m anamnesis.hooks inject|prompt|capture|sync``: the hook entry points.

The dispatcher: it finds the hook in the table (:data:`.registry.HOOKS`), parses its flags,
and runs the hook's runner, which only then is imported. Each hook never raises and exits 0;
failures go to ``<home>/logs/hooks.log``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from anamnesis.hooks.failopen import log, run_failing_open
from anamnesis.hooks.flags import FlagError, parse_flags
from anamnesis.hooks.registry import HOOKS, commands, resolve
from anamnesis.store import REFLECTION_ENV_GUARD, resolve_home


def main(argv: Sequence[str] | None = None) -> int:
    # Even a misconfigured hook command exits 0: for Claude Code, exit 2 blocks the session
    # (PreCompact would stop compacting). The mistake is logged and shown on stderr.

    args = list(sys.argv[1:] if argv is None else argv)
    spec = HOOKS.get(args[0]) if args else None
    if spec is None:
        problem = f"unknown hook {args[0]!r}" if args else "no hook named"
        usage = f"usage: anamnesis-hook {{{','.join(commands())}}} [options] ({problem})"
        print(usage, file=sys.stderr)
        run_failing_open("hook", resolve_home, lambda: log(resolve_home(), "hook", problem))
        return 0
    hook, rest = spec.name, args[1:]
    if spec.background:
        from anamnesis.store import yield_to_sessions  # threading, typing: not for every hook

        yield_to_sessions()

    if os.environ.get(REFLECTION_ENV_GUARD):
        # A session that reflection started (the claude-code provider): capturing it
        # would file the reflection itself as a session; injecting or recalling would feed
        # it notes it was not sent. Stand aside.
        return 0
    try:
        options = parse_flags(rest, values=spec.values, switches=spec.switches)
        if spec.check is not None:
            resolve(spec.check)(options)  # a bad value is a bad command line, said at once
    except FlagError as exc:
        message = f"bad command line: {exc}"
        print(f"anamnesis {hook}: {message}", file=sys.stderr)
        run_failing_open(hook, resolve_home, lambda: log(resolve_home(), hook, message))
        return 0
    return run_failing_open(hook, resolve_home, lambda: resolve(spec.runner)(options))


def run() -> None:
    """Process entry point (console script, ``python -m``): run a hook, then leave at once.

    Everything is written and closed when ``main`` returns, so interpreter shutdown (module
    teardown, ~10 ms here) is skipped: session hooks wait on this process.
    """
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
