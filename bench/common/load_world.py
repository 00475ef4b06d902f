"""The world of ``bench.scale.load``: two machines on one bare remote, and Claude Code's side of a
session (its hooks run from settings.json as it runs them, its MCP server over stdio).

A machine is set up by `anamnesis init` of the checkout under test (its ``packages/*/src``
first on the path, :func:`bench.common.processes.running`), so the hooks are exactly the
commands `init` wrote into that machine's ``settings.json``, run through ``/bin/sh`` with
the hook JSON on stdin, and killed, as Claude Code kills them, when they outlast their
``timeout``.

Each session runs in a process of its own session (``setsid``), as each Claude Code runs
in its own terminal, and its hooks run in that session: where the kernel groups processes
by session for CPU shares (Linux's autogroup), the load is shared out as it would be. One
difference, which makes the load harsher on the hooks than Claude Code's: the MCP SDK's
stdio client starts each server in a session of its own, where Claude Code keeps its
servers in its own session, so each server's start-up (about a second of CPU, most of it
the SDK's imports) competes as a session of its own.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis_testsupport.repos import bare_remote as bare_remote
from anamnesis_testsupport.repos import project_checkout as project_checkout
from mcp.client.stdio import StdioServerParameters

from bench.common.processes import running

# Writes the notes of a JSONL file (corpus.write_jsonl) through the store under test.
SEED = """
import json, sys
from anamnesis.store import MemoryStore
with MemoryStore(sys.argv[1]) as store:
    for line in open(sys.argv[2], encoding="utf-8"):
        n = json.loads(line)
        store.write(type=n["type"], title=n["title"], body=n["body"], project=n["project"],
                    tags=n["tags"], machine_id=sys.argv[3])
"""
# Claude Code sends SIGTERM to a hook past its timeout; what is still alive a moment
# later is killed outright.
KILL_GRACE_S = 2.0


@dataclass(frozen=True, slots=True)
class HookRun:
    """One hook process as Claude Code saw it: how long it held the session up, and
    whether its timeout killed it."""

    hook: str
    seconds: float
    killed: bool
    code: int
    err: str


@dataclass(frozen=True, slots=True)
class Machine:
    """One computer: its own home, Claude Code folder and machine id, running ``code``.
    What `init` printed and wrote is read back from its files, so a session process can
    stand for the machine too (:meth:`spec`, :meth:`from_spec`)."""

    name: str
    root: Path
    code: Path

    def spec(self) -> dict[str, str]:
        return {"name": self.name, "root": str(self.root), "code": str(self.code)}

    @classmethod
    def from_spec(cls, spec: dict[str, str]) -> Machine:
        return cls(spec["name"], Path(spec["root"]), Path(spec["code"]))

    @property
    def home(self) -> Path:
        return self.root / "anamnesis"

    @property
    def claude(self) -> Path:
        return self.root / "claude"

    @property
    def user(self) -> Path:
        return self.root / "user"

    def env(self) -> dict[str, str]:
        base = {k: v for k, v in running(self.code).items() if not k.startswith("ANAMNESIS_")}
        return {
            **base,
            "HOME": str(self.user),
            "ANAMNESIS_HOME": str(self.home),
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "LANG": "C.UTF-8",
            # No embedding model loads anywhere: vectors are not what is measured.
            "ANAMNESIS_SEARCH_MODE": "keyword",
        }

    def cli(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [str(Path(sys.executable).parent / "anamnesis"), *args],
            capture_output=True, text=True, env=self.env(), cwd=self.user, check=False,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if check and done.returncode != 0:
            raise RuntimeError(f"{self.name}: anamnesis {' '.join(args)}: {done.stderr.strip()}")
        return done

    def init(self, remote: Path) -> None:
        self.user.mkdir(parents=True)
        done = self.cli("init", "--yes", "--remote", str(remote), "--machine-id", self.name)
        (self.root / "init-output.txt").write_text(done.stdout + done.stderr, encoding="utf-8")
        self.cli("config", "set", "search_mode", "keyword")  # the MCP server's env is filtered

    def seed(self, notes: Path) -> None:
        args = [sys.executable, "-c", SEED, str(self.home), str(notes), self.name]
        subprocess.run(args, env=self.env(), check=True)

    # -- Claude Code's side -----------------------------------------------------------

    def hooks(self, event: str, wanted: str = "") -> list[tuple[str, float, bool]]:
        """(command, timeout in seconds, async) of each hook ``event`` runs for ``wanted``
        (a SessionStart source), as settings.json says."""
        settings = json.loads((self.claude / "settings.json").read_text(encoding="utf-8"))
        found = []
        for group in settings.get("hooks", {}).get(event, []):
            matcher = group.get("matcher") or ""
            if matcher and matcher != "*" and not re.fullmatch(matcher, wanted):
                continue
            for hook in group.get("hooks", []):
                if hook.get("type") == "command":
                    found.append(
                        (hook["command"], float(hook.get("timeout", 600)), bool(hook.get("async")))
                    )
        return found

    def mcp_server(self) -> StdioServerParameters:
        """The MCP server as `init` asked for it to be registered: Claude Code starts it with
        only the entry's ``-e`` variables (plus basics, and here the checkout's path)."""
        printed = (self.root / "init-output.txt").read_text(encoding="utf-8")
        line = next(row for row in printed.splitlines() if "claude mcp add" in row)
        words = shlex.split(line.strip())
        cut = words.index("--")
        env = {key: self.env()[key] for key in ("PATH", "HOME", "LANG", "PYTHONPATH")}
        for flag, value in itertools.pairwise(words[: cut + 1]):
            if flag in ("-e", "--env"):
                key, _, val = value.partition("=")
                env[key] = val
        command = words[cut + 1 :]
        return StdioServerParameters(command=command[0], args=command[1:], env=env)


def run_hook(
    machine: Machine, hook: str, command: str, timeout: float, payload: dict[str, Any]
) -> HookRun:
    """Run one hook command as Claude Code does and wait for it, killing it (and its process
    group: the hook runs in a group of its own, in the caller's session) past ``timeout``."""
    started = time.perf_counter()
    process = subprocess.Popen(
        ["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=machine.env(), cwd=payload.get("cwd") or machine.user,
        process_group=0,
    )  # fmt: skip
    killed = False
    try:
        _out, err = process.communicate(json.dumps(payload).encode(), timeout=timeout)
    except subprocess.TimeoutExpired:
        killed = True
        _signal_group(process.pid, signal.SIGTERM)
        try:
            _out, err = process.communicate(timeout=KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            _out, err = process.communicate()
    seconds = time.perf_counter() - started
    return HookRun(hook, seconds, killed, process.returncode, err.decode(errors="replace"))


def start_async_hook(
    machine: Machine, command: str, payload: dict[str, Any]
) -> subprocess.Popen[bytes]:
    """Start an ``async`` hook: Claude Code does not wait for it."""
    process = subprocess.Popen(
        ["/bin/sh", "-c", command], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env=machine.env(), cwd=payload.get("cwd") or machine.user,
        process_group=0,
    )  # fmt: skip
    assert process.stdin is not None
    process.stdin.write(json.dumps(payload).encode())
    process.stdin.close()
    return process


def _signal_group(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
