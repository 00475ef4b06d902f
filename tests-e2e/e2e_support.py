"""Two machines and one remote, driven only as a user and Claude Code drive them.

Every machine is a separate ``ANAMNESIS_HOME``, ``CLAUDE_CONFIG_DIR`` and ``HOME``; every
command is the installed ``anamnesis`` console script in a real subprocess whose PATH holds
the virtualenv's ``bin`` folder and nothing else, so no ``git`` (and no ``claude``) can be
found: whatever passes here passes on a machine without git.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis_testsupport.repos import bare_remote as bare_remote
from anamnesis_testsupport.repos import project_checkout as project_checkout
from mcp.client.stdio import StdioServerParameters
from mcp_types import CallToolResult, TextContent

BIN = Path(sys.executable).parent
ANAMNESIS = BIN / "anamnesis"
# PATH for every anamnesis process: python and anamnesis, no git, no claude.
ISOLATED_PATH = str(BIN)
SHARED = Path(__file__).resolve().parents[2] / "shared"
TRANSCRIPTS = SHARED / "fixtures" / "transcripts"
# Generous: the machine has 2 cores shared with other work; a hang still fails the test.
TIMEOUT_S = 180.0


@dataclass(frozen=True, slots=True)
class Done:
    """One finished process: its argv, exit code and output."""

    args: tuple[str, ...]
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    def describe(self) -> str:
        return f"{' '.join(self.args)} -> exit {self.code}\nstdout: {self.out}\nstderr: {self.err}"


def check(done: Done) -> Done:
    """The process succeeded and printed no traceback anywhere."""
    assert done.code == 0, done.describe()
    assert "Traceback" not in done.out + done.err, done.describe()
    return done


class Machine:
    """One computer with Anamnesis set up by ``anamnesis init``."""

    def __init__(self, root: Path, name: str) -> None:
        self.name = name
        self.root = root / name
        self.home = self.root / "anamnesis"
        self.claude = self.root / "claude"
        self.user = self.root / "user"
        self.user.mkdir(parents=True)
        self.env: dict[str, str] = {
            "PATH": ISOLATED_PATH,
            "HOME": str(self.user),
            "ANAMNESIS_HOME": str(self.home),
            "ANAMNESIS_MACHINE_ID": name,
            "CLAUDE_CONFIG_DIR": str(self.claude),
            "LANG": "C.UTF-8",
        }
        if "TMPDIR" in os.environ:
            self.env["TMPDIR"] = os.environ["TMPDIR"]
        self.init_output = ""

    @property
    def memory(self) -> Path:
        return self.home / "memory"

    # -- the command ------------------------------------------------------------------

    def run(self, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Done:
        """``anamnesis <args>`` on this machine; the caller checks the outcome."""
        completed = subprocess.run(
            [str(ANAMNESIS), *args],
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            env=self.env,
            cwd=cwd or self.user,
            timeout=TIMEOUT_S,
            check=False,
        )
        return Done(("anamnesis", *args), completed.returncode, completed.stdout, completed.stderr)

    def ok(self, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Done:
        return check(self.run(*args, stdin=stdin, cwd=cwd))

    def init(self, remote: Path) -> Done:
        done = self.ok("init", "--yes", "--remote", str(remote), "--machine-id", self.name)
        self.init_output = done.out + done.err
        # Keyword search, as a user may choose: results here are exact, and no process
        # loads an embedding model where the vectors extra is installed (its own tests
        # cover hybrid search). In config.json, so the MCP server's filtered env sees it.
        self.ok("config", "set", "search_mode", "keyword")
        return done

    def write(self, title: str, body: str, *options: str, cwd: Path | None = None) -> Any:
        """Write a note with ``anamnesis write``; return the note as JSON."""
        return self.ok("write", "--title", title, *options, "--json", body, cwd=cwd).json()

    def sync(self) -> Any:
        """``anamnesis sync --json``, which must succeed; return its report."""
        return self.ok("sync", "--json").json()

    def search(self, query: str, *options: str, cwd: Path | None = None) -> list[Any]:
        hits: list[Any] = self.ok("search", query, "--json", *options, cwd=cwd).json()
        return hits

    def listed(self) -> list[Any]:
        notes: list[Any] = self.ok("list", "--json", "--limit", "0").json()
        return notes

    # -- what is on disk --------------------------------------------------------------

    def notes(self) -> dict[str, bytes]:
        """Every synced note file, by path relative to the memory folder."""
        return {
            path.relative_to(self.memory).as_posix(): path.read_bytes()
            for path in sorted(self.memory.rglob("*.md"))
            if ".git" not in path.relative_to(self.memory).parts
        }

    def note_file(self, note: Any) -> Path:
        return self.memory / str(note["type"]) / f"{note['id']}.md"

    def log_lines(self) -> list[str]:
        path = self.home / "logs" / "hooks.log"
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []

    def wait_for_log(self, hook: str, *, after: int, timeout_s: float = TIMEOUT_S) -> str:
        """The first line ``hook`` logged after line ``after``: how a detached hook
        process (the background sync) says it has finished."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for line in self.log_lines()[after:]:
                if re.match(rf"^\S+ {re.escape(hook)}: ", line):
                    return line
            time.sleep(0.2)
        raise AssertionError(f"no {hook!r} line in {self.name}'s hooks.log: {self.log_lines()}")

    # -- Claude Code's side -----------------------------------------------------------

    def hook_commands(self, event: str, payload: dict[str, Any]) -> list[str]:
        """The commands Claude Code would run for ``event`` from this machine's settings.

        Hooks marked ``async`` are left out: Claude Code runs them in the background and
        their output cannot reach this turn, so the tests sync explicitly instead of racing
        a background process.
        """
        settings = json.loads((self.claude / "settings.json").read_text(encoding="utf-8"))
        wanted = payload.get("source") or payload.get("trigger") or payload.get("reason") or ""
        commands: list[str] = []
        for group in settings.get("hooks", {}).get(event, []):
            matcher = group.get("matcher") or ""
            if matcher and matcher != "*" and not re.fullmatch(matcher, str(wanted)):
                continue
            for hook in group.get("hooks", []):
                if hook.get("type") == "command" and not hook.get("async"):
                    commands.append(hook["command"])
        return commands

    def hook(self, event: str, payload: dict[str, Any]) -> list[Done]:
        """Run this event's hooks as Claude Code does: the settings' command through a
        shell, the hook JSON on stdin, in the session's working directory."""
        commands = self.hook_commands(event, payload)
        assert commands, f"no {event} hook in {self.claude / 'settings.json'}"
        results = []
        for command in commands:
            completed = subprocess.run(
                ["/bin/sh", "-c", command],
                input=json.dumps(payload),
                capture_output=True,
                text=True,
                env=self.env,
                cwd=payload.get("cwd") or self.user,
                timeout=TIMEOUT_S,
                check=False,
            )
            results.append(
                check(Done((command,), completed.returncode, completed.stdout, completed.stderr))
            )
        return results

    def inject(self, cwd: Path) -> str:
        """What the SessionStart hook adds to Claude's context in ``cwd``."""
        payload = {
            "session_id": f"start-{self.name}",
            "transcript_path": str(self.claude / "projects" / "none.jsonl"),
            "cwd": str(cwd),
            "hook_event_name": "SessionStart",
            "source": "startup",
        }
        (done,) = self.hook("SessionStart", payload)
        if not done.out.strip():
            return ""
        output = json.loads(done.out)["hookSpecificOutput"]
        assert output["hookEventName"] == "SessionStart", output
        context: str = output["additionalContext"]
        return context

    def mcp_server(self) -> StdioServerParameters:
        """The MCP server exactly as `init` asked for it to be registered with Claude Code
        (``claude`` is not on PATH here, so init printed the command instead of running it).

        Claude Code starts MCP servers with a filtered environment: only the entry's ``-e``
        variables (plus basics), so the machine id must come from the store's config.
        """
        line = next((row for row in self.init_output.splitlines() if "claude mcp add" in row), None)
        assert line is not None, f"init printed no MCP registration:\n{self.init_output}"
        words = shlex.split(line.strip())
        cut = words.index("--")
        env = {"PATH": ISOLATED_PATH, "HOME": str(self.user), "LANG": "C.UTF-8"}
        for flag, value in itertools.pairwise(words[: cut + 1]):
            if flag in ("-e", "--env"):
                key, _, val = value.partition("=")
                env[key] = val
        command = words[cut + 1 :]
        return StdioServerParameters(command=command[0], args=command[1:], env=env)


@dataclass(frozen=True, slots=True)
class World:
    """Two machines sharing one bare remote."""

    remote: Path
    laptop: Machine
    desktop: Machine
    root: Path


def make_world(root: Path) -> World:
    for tool in ("git", "claude"):
        found = shutil.which(tool, path=ISOLATED_PATH)
        assert found is None, f"{tool} is in {ISOLATED_PATH}: the e2e PATH must not hold it"
    remote = bare_remote(root / "remote.git")
    laptop, desktop = Machine(root, "laptop"), Machine(root, "desktop")
    for machine in (laptop, desktop):
        machine.init(remote)
    return World(remote, laptop, desktop, root)


def quiet_syncs(*machines: Machine, limit: int = 12) -> None:
    """Sync the machines in turn until a whole pass moves nothing and all heads agree."""
    for _ in range(limit):
        reports = [machine.sync() for machine in machines]
        moved = any(r["pushed"] or r["pulled"] or r["indexed"] for r in reports)
        if not moved and len({r["head"] for r in reports}) == 1:
            return
    raise AssertionError(f"the machines did not settle in {limit} passes: {reports}")


# -- Claude Code sessions ------------------------------------------------------------------

# A real transcript from ../shared/fixtures/transcripts/: one ask, one file written.
FIXTURE = "DRMacIver__hello-world-script.jsonl"
SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"  # the fixture's own sessionId
ASK = 'Write a shell script called hello.sh that prints "Hello world" and run it.'


def end_session(machine: Machine, transcript: Path, cwd: Path) -> tuple[str, str]:
    """Run the SessionEnd hook as Claude Code does; return the captured note's id and the
    line the background sync logged.

    The installed capture hook writes the note, then starts a detached sync (SessionEnd
    hooks get about 1.5 s, a sync may take longer). The test waits for that process to log
    its result rather than racing it with a sync of its own, which also proves the
    background path pushes.
    """
    before = len(machine.log_lines())
    machine.hook("SessionEnd", {
        "session_id": SESSION,
        "transcript_path": str(transcript),
        "cwd": str(cwd),
        "hook_event_name": "SessionEnd",
        "reason": "prompt_input_exit",
    })  # fmt: skip
    captured = machine.wait_for_log("capture", after=before)
    match = re.search(r" captured (\w{26}) ", captured)
    assert match, captured
    synced = machine.wait_for_log("sync", after=before)
    return match.group(1), synced


def place_transcript(machine: Machine, source: Path, cwd: Path) -> Path:
    """Copy a fixture to where Claude Code keeps transcripts for ``cwd``."""
    slug = re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    target = machine.claude / "projects" / slug / f"{SESSION}.jsonl"
    target.parent.mkdir(parents=True)
    shutil.copyfile(source, target)
    return target


# -- MCP tool results ---------------------------------------------------------------------


def tool_data(result: CallToolResult) -> Any:
    """What a successful tool call returned, read from the text the model sees."""
    assert not result.is_error, tool_error(result)
    block = result.content[0]
    assert isinstance(block, TextContent)
    return json.loads(block.text)


def tool_error(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)
