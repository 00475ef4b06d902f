"""The user's own Claude Code, run once non-interactively: no API key, their login and plan.

The command line (flags from Claude Code's CLI reference, docs.anthropic.com/en/docs/
claude-code/cli-reference)::

    claude --print --output-format json --max-turns 1 --system-prompt <system> [--model <m>]

with the prompt on stdin, so a long prompt never meets the argv limits. ``--system-prompt``
replaces Claude Code's own coding-agent prompt: reflection wants a plain completion, not an
agent. The reply is the ``result`` field of the one JSON object printed on stdout.

The child is a whole Claude Code session, with the user's hooks: its environment carries
:data:`REFLECTION_ENV_GUARD` so that Anamnesis's hooks stand aside. ``CLAUDECODE`` is removed
from it, since Claude Code (2.1.39 and later) refuses to start when it finds that variable,
which it sets in every session: reflecting from a Claude Code terminal would always fail.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from typing import Any

from anamnesis.reflect.prompting import redact_prompt
from anamnesis.reflect.providers.protocol import (
    REFLECTION_ENV_GUARD,
    ProviderFailed,
    ProviderTimeout,
    ProviderUnavailable,
    excerpt,
)

NOT_ON_PATH = (
    "the claude-code provider runs the `claude` CLI, and `{exe}` is not on PATH: install "
    "Claude Code (https://docs.anthropic.com/en/docs/claude-code) and log in, or choose "
    "another provider: anamnesis config set llm.provider openai"
)
_REAP_S = 5.0  # after a kill, how long to wait for the child's pipes to close


class ClaudeCodeProvider:
    """Completions through ``claude --print``. ``max_tokens`` cannot be passed on (the CLI
    has no such flag): the system text has to ask for a short reply."""

    name = "claude-code"

    def __init__(self, model: str = "", *, executable: str = "claude") -> None:
        self.model = model
        self.executable = executable

    def __repr__(self) -> str:
        return f"ClaudeCodeProvider(model={self.model!r}, executable={self.executable!r})"

    def command(self, system: str) -> list[str]:
        """The argv after the executable (the prompt goes to stdin, not here)."""
        args = ["--print", "--output-format", "json", "--max-turns", "1"]
        args += ["--system-prompt", redact_prompt(system)]
        if self.model:
            args += ["--model", self.model]
        return args

    def complete(self, system: str, user: str, *, max_tokens: int, timeout_s: float) -> str:
        """The ``result`` of one print-mode turn. Raises ProviderUnavailable (no `claude`),
        ProviderTimeout (the child and its process group are killed), ProviderFailed."""
        exe = shutil.which(self.executable)
        if exe is None:
            raise ProviderUnavailable(NOT_ON_PATH.format(exe=self.executable))
        env = dict(os.environ)
        env[REFLECTION_ENV_GUARD] = "1"
        env.pop("CLAUDECODE", None)
        child = _start([exe, *self.command(system)], env)
        try:
            out, err = child.communicate(redact_prompt(user), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill(child)
            raise ProviderTimeout(
                f"claude did not answer within {timeout_s:g} s and was stopped: try again, "
                "or allow longer (anamnesis config set llm.timeout_s 180)"
            ) from None
        except BaseException:  # Ctrl-C included: never leave a session running behind us
            _kill(child)
            raise
        return _result(child.returncode, out, err)


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    # Its own session (process group), so that a timeout kills claude and whatever it
    # started (node workers, hooks, MCP servers), not only the first process. Windows
    # ignores start_new_session; there the kill reaches claude alone.
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        text=True,
        encoding="utf-8",
        errors="replace",
        start_new_session=True,
    )


def _kill(child: subprocess.Popen[str]) -> None:
    if sys.platform == "win32":
        child.kill()
    else:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            child.kill()  # the group is gone already; the leader may still need reaping
    try:
        child.communicate(timeout=_REAP_S)
    except subprocess.TimeoutExpired:
        # Something outside the group still holds the pipes; do not wait on it.
        for pipe in (child.stdin, child.stdout, child.stderr):
            if pipe is not None:
                pipe.close()
        child.wait(timeout=_REAP_S)


def _result(code: int, out: str, err: str) -> str:
    data = _parse(out)
    if data is not None and data.get("is_error"):
        subtype = data.get("subtype")
        what = f" ({subtype})" if isinstance(subtype, str) and subtype else ""
        said = data.get("result")
        detail = said if isinstance(said, str) and said.strip() else err or out
        raise ProviderFailed(f"claude reported an error{what}: {excerpt(detail)}")
    if code != 0:
        detail = excerpt(err or out) or "(no output)"
        raise ProviderFailed(f"claude exited with status {code}: {detail}")
    result = data.get("result") if data is not None else None
    if not isinstance(result, str):
        raise ProviderFailed(
            "claude printed no JSON result (is it an old version without --output-format "
            f"json?): {excerpt(out) or '(nothing)'}"
        )
    return result


def _parse(out: str) -> dict[str, Any] | None:
    """The JSON object on stdout; also found as the last line when something printed a
    line before it."""
    text = out.strip()
    for candidate in (text, text.rsplit("\n", 1)[-1]):
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None
