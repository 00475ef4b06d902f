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

Its output is read as it comes, at most ``llm.max_reply_bytes`` of stdout (and the start of
stderr, for messages): a `claude` that prints without end is stopped as soon as it passes
the bound, not at the timeout with everything it printed in memory.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any

from anamnesis.reflect.prompting import redact_prompt
from anamnesis.reflect.providers.protocol import (
    DEFAULT_MAX_REPLY_BYTES,
    REFLECTION_ENV_GUARD,
    ProviderFailed,
    ProviderTimeout,
    ProviderUnavailable,
    UnusableReply,
    excerpt,
    over_max_reply,
)
from anamnesis.store import load_json

NOT_ON_PATH = (
    "the claude-code provider runs the `claude` CLI, and `{exe}` is not on PATH: install "
    "Claude Code (https://docs.anthropic.com/en/docs/claude-code) and log in, or choose "
    "another provider: `anamnesis config set llm.provider openai`"
)
_REAP_S = 5.0  # after a kill, how long to wait for the child's pipes to close
# Only quoted in an error message (its first 200 characters): no need to hold more of stderr.
STDERR_BYTES = 64 * 1024
_CHUNK = 64 * 1024


class ClaudeCodeProvider:
    """Completions through ``claude --print``. ``max_tokens`` cannot be passed on (the CLI
    has no such flag): the system text has to ask for a short reply."""

    name = "claude-code"

    def __init__(
        self,
        model: str = "",
        *,
        executable: str = "claude",
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    ) -> None:
        self.model = model
        self.executable = executable
        self.max_reply_bytes = max_reply_bytes

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
        ProviderTimeout (the child and its process group are killed), ProviderFailed,
        UnusableReply (over ``max_reply_bytes`` of stdout: the child is killed too)."""
        exe = shutil.which(self.executable)
        if exe is None:
            raise ProviderUnavailable(NOT_ON_PATH.format(exe=self.executable))
        env = dict(os.environ)
        env[REFLECTION_ENV_GUARD] = "1"
        env.pop("CLAUDECODE", None)
        child = _start([exe, *self.command(system)], env)
        try:
            out, err = _exchange(
                child, redact_prompt(user).encode("utf-8"), timeout_s, self.max_reply_bytes
            )
        except BaseException:  # Ctrl-C included: never leave a session running behind us
            _kill(child)
            raise
        return _result(child.returncode, _text(out), _text(err))


class _Reader(threading.Thread):
    """Reads a pipe to its end in the background, keeping its first ``keep`` bytes;
    ``over`` is set when more than ``limit`` came, and then reading stops (the child is
    about to be killed). Without a limit the rest is read and dropped, so that the child
    never blocks on a full pipe."""

    def __init__(self, pipe: IO[bytes], keep: int, limit: int | None = None) -> None:
        super().__init__(name="anamnesis-claude-pipe", daemon=True)
        self.pipe, self.keep, self.limit = pipe, keep, limit
        self.chunks: list[bytes] = []
        self.over = False

    def run(self) -> None:
        kept = read = 0
        while chunk := _read(self.pipe):
            read += len(chunk)
            if self.limit is not None and read > self.limit:
                self.over = True
                return
            if kept < self.keep:
                self.chunks.append(chunk[: self.keep - kept])
                kept += len(self.chunks[-1])

    @property
    def data(self) -> bytes:
        return b"".join(self.chunks)


def _exchange(
    child: subprocess.Popen[bytes], prompt: bytes, timeout_s: float, max_bytes: int
) -> tuple[bytes, bytes]:
    """Send ``prompt`` to the child's stdin and read its output until it exits: its stdout
    (at most ``max_bytes``) and the start of its stderr. Raises ProviderTimeout after
    ``timeout_s``, UnusableReply past ``max_bytes``; the caller kills the child then."""
    stdin, stdout, stderr = child.stdin, child.stdout, child.stderr
    assert stdin is not None  # _start opens all three pipes
    assert stdout is not None
    assert stderr is not None
    deadline = time.monotonic() + timeout_s
    out = _Reader(stdout, max_bytes, max_bytes)
    err = _Reader(stderr, STDERR_BYTES)
    writer = threading.Thread(target=_feed, args=(stdin, prompt), daemon=True)
    for thread in (out, err, writer):
        thread.start()
    out.join(timeout_s)  # ends at the end of stdout, or past the bound
    if out.over:
        raise over_max_reply("claude", max_bytes)
    if out.is_alive():
        raise _too_slow(timeout_s)
    try:
        child.wait(max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        raise _too_slow(timeout_s) from None
    err.join(_REAP_S)  # a grandchild may still hold stderr: its start is enough
    return out.data, err.data


def _too_slow(timeout_s: float) -> ProviderTimeout:
    return ProviderTimeout(
        f"claude did not answer within {timeout_s:g} s and was stopped: try again, "
        "or allow longer (`anamnesis config set llm.timeout_s 180`)"
    )


def _read(pipe: IO[bytes]) -> bytes:
    """What the pipe holds now (up to a chunk), waiting for something; b"" at its end."""
    try:
        return os.read(pipe.fileno(), _CHUNK)
    except OSError:  # closed under us: the end as far as we are concerned
        return b""


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        pipe.write(data)
        pipe.close()
    except OSError:  # the child exited (or was killed) without reading it all
        pass


def _start(argv: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    # Its own session (process group), so that a timeout kills claude and whatever it
    # started (node workers, hooks, MCP servers), not only the first process. Windows
    # ignores start_new_session; there the kill reaches claude alone.
    return subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,
    )


def _kill(child: subprocess.Popen[bytes]) -> None:
    if sys.platform == "win32":
        child.kill()
    else:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            child.kill()  # the group is gone already; the leader may still need reaping
    # Reaped, not read: the reader threads see the pipes close (or, if something outside
    # the group holds them, are daemons that end with the process).
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
        raise UnusableReply(
            "unusable reply: claude printed no JSON result (is it an old version without "
            "--output-format "
            f"json?): {excerpt(out) or '(nothing)'}"
        )
    return result


def _parse(out: str) -> dict[str, Any] | None:
    """The JSON object on stdout; also found as the last line when something printed a
    line before it."""
    text = out.strip()
    for candidate in (text, text.rsplit("\n", 1)[-1]):
        try:
            data = load_json(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None
