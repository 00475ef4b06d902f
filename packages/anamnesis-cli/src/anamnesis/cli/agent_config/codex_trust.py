"""Asking Codex itself how it reads the hooks: which it found, which it trusts, what it
warns about. Codex runs a hook only once the person trusted it (``/hooks``), and skips an
untrusted one without a word, so `doctor` asks rather than guesses.

The question goes to ``codex app-server`` (JSON-RPC over stdio, the protocol Codex's own
clients use): ``initialize``, then ``hooks/list`` for a folder, whose answer lists each hook
with its command, event, trust status (``trusted``, ``untrusted``, ``modified``,
``managed``) and the warnings and errors Codex met reading the files. It takes a fraction of
a second; a Codex that does not answer in :data:`TIMEOUT_S` is said to be unreachable.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIMEOUT_S = 20.0
# An answer line longer than this is not the hooks list we asked for.
MAX_LINE_BYTES = 16 * 1024 * 1024


class CodexUnreachable(Exception):
    """Codex could not be asked (not runnable, no answer in time, an error answer)."""


@dataclass(frozen=True, slots=True)
class ListedHook:
    event: str  # Codex's name for it: sessionStart, userPromptSubmit, stop, ...
    command: str
    trust: str
    enabled: bool
    source_path: str
    key: str = ""
    current_hash: str = ""
    matcher: str | None = None
    timeout: int = 0
    run_async: bool = False


@dataclass(frozen=True, slots=True)
class HooksListing:
    hooks: list[ListedHook] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def list_hooks(codex: str, cwd: Path, *, env: dict[str, str] | None = None) -> HooksListing:
    """The hooks Codex finds for ``cwd``, as it reads them; raises :class:`CodexUnreachable`."""
    try:
        process = subprocess.Popen(
            [codex, "app-server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    except OSError as exc:
        raise CodexUnreachable(f"cannot run {codex}: {exc.strerror or exc}") from None
    try:
        deadline = time.monotonic() + TIMEOUT_S
        hello = {"clientInfo": {"name": "anamnesis", "version": "doctor"}}
        _send(process, {"id": 1, "method": "initialize", "params": hello})
        _answer(process, 1, deadline)
        _send(process, {"method": "initialized"})
        _send(process, {"id": 2, "method": "hooks/list", "params": {"cwds": [str(cwd)]}})
        return _listing(_answer(process, 2, deadline))
    finally:
        _stop(process)


def _send(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    try:
        process.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        process.stdin.flush()
    except OSError as exc:
        raise CodexUnreachable(f"`codex app-server` stopped: {exc.strerror or exc}") from None


def _answer(process: subprocess.Popen[bytes], wanted: int, deadline: float) -> dict[str, Any]:
    """The response to request ``wanted`` (notifications before it are skipped)."""
    assert process.stdout is not None
    fd = process.stdout.fileno()
    buffer = b""
    while True:
        while b"\n" not in buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CodexUnreachable(f"`codex app-server` did not answer in {TIMEOUT_S:.0f} s")
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise CodexUnreachable("`codex app-server` stopped before it answered")
            buffer += chunk
            if len(buffer) > MAX_LINE_BYTES:
                raise CodexUnreachable("`codex app-server` answered with an endless line")
        line, _, buffer = buffer.partition(b"\n")
        try:
            message = json.loads(line)
        except ValueError:
            continue  # not a message of the protocol: skipped
        if isinstance(message, dict) and message.get("id") == wanted:
            if "error" in message:
                error = message["error"]
                said = error.get("message") if isinstance(error, dict) else error
                raise CodexUnreachable(f"`codex app-server` answered with an error: {said}")
            result = message.get("result")
            return result if isinstance(result, dict) else {}


def _listing(result: dict[str, Any]) -> HooksListing:
    hooks: list[ListedHook] = []
    warnings: list[str] = []
    errors: list[str] = []
    for entry in result.get("data") or []:
        if not isinstance(entry, dict):
            continue
        warnings += [str(w) for w in entry.get("warnings") or []]
        errors += [
            f"{e.get('path')}: {e.get('message')}" if isinstance(e, dict) else str(e)
            for e in entry.get("errors") or []
        ]
        for hook in entry.get("hooks") or []:
            if isinstance(hook, dict):
                hooks.append(
                    ListedHook(
                        event=str(hook.get("eventName", "")),
                        command=str(hook.get("command") or ""),
                        trust=str(hook.get("trustStatus", "")),
                        enabled=hook.get("enabled") is not False,
                        source_path=str(hook.get("sourcePath", "")),
                        key=str(hook.get("key", "")),
                        current_hash=str(hook.get("currentHash", "")),
                        matcher=hook.get("matcher")
                        if isinstance(hook.get("matcher"), str)
                        else None,
                        timeout=_whole(hook.get("timeoutSec")),
                        run_async=hook.get("async") is True,
                    )
                )
    return HooksListing(hooks, warnings, errors)


def _stop(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _whole(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
