"""Running `anamnesis` against an isolated environment: in this process by default (the
same entry point, environment, working folder and standard streams a process would get,
without a new interpreter's start-up per command), or as the real console script where
the process boundary is what a test checks (``run_process``, ``run_on_terminal``)."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import pty
import stat
import struct
import subprocess
import sys
import termios
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis_testsupport.repos import bare_remote as bare_remote

BIN = Path(sys.executable).parent
DATA = Path(__file__).parent / "data"


def anamnesis_script() -> list[str]:
    script = BIN / "anamnesis"
    return [str(script)] if script.exists() else [sys.executable, "-m", "anamnesis.cli"]


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)

    @property
    def err_lines(self) -> list[str]:
        return self.err.strip().splitlines()


@dataclass
class Env:
    """One machine: a store, a Claude Code folder, a Codex folder, a HOME, a PATH with fake
    tools."""

    root: Path
    variables: dict[str, str] = field(default_factory=dict)

    @classmethod
    def make(cls, root: Path, name: str = "laptop") -> Env:
        base = root / name
        (base / "bin").mkdir(parents=True)
        (base / "user").mkdir()
        variables = {
            "ANAMNESIS_HOME": str(base / "anamnesis"),
            "CLAUDE_CONFIG_DIR": str(base / "claude"),
            "CODEX_HOME": str(base / "codex"),
            "HOME": str(base / "user"),
            "PATH": f"{base / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
            "ANAMNESIS_MACHINE_ID": name,
            # Keyword search and no embedding model unless a test asks for vectors: results
            # stay exact and no process loads (or tries to download) a model.
            "ANAMNESIS_SEARCH_MODE": "keyword",
            "ANAMNESIS_EMBED_MODEL_PATH": str(base / "no-model-here"),
        }
        return cls(base, variables)

    @property
    def home(self) -> Path:
        return Path(self.variables["ANAMNESIS_HOME"])

    @property
    def claude(self) -> Path:
        return Path(self.variables["CLAUDE_CONFIG_DIR"])

    @property
    def settings(self) -> Path:
        return self.claude / "settings.json"

    @property
    def codex(self) -> Path:
        return Path(self.variables["CODEX_HOME"])

    def environment(self) -> dict[str, str]:
        environment = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ANAMNESIS_", "CLAUDE_", "CODEX_", "GEMINI_", "COPILOT_"))
        }
        environment.update(self.variables)
        return environment

    def create_store(self) -> None:
        """An empty store, as a command that creates one leaves it (`init` without its
        hooks, MCP entry and first sync): what most tests start from. `write` never
        creates one (it says to run `anamnesis init` first, as every command does)."""
        from anamnesis.store import MemoryStore

        MemoryStore(self.home).close()

    def run(self, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Result:
        """One command, run in this process as the console script would run it."""
        with _as_process(self.environment(), cwd or self.root, (stdin or "").encode()) as out:
            code = _entry_point(list(args))
        return Result(code, out.stdout(), out.stderr())

    def run_process(self, *args: str, stdin: str | None = None, cwd: Path | None = None) -> Result:
        """One command as a real process of the installed console script."""
        done = subprocess.run(
            [*anamnesis_script(), *args],
            input=(stdin or "").encode(),
            capture_output=True,
            env=self.environment(),
            cwd=cwd or self.root,
            timeout=120,
            check=False,
        )
        return Result(done.returncode, done.stdout.decode(), done.stderr.decode())

    def use_vectors(self, model: Path) -> None:
        """Vectors on, with the model in ``model``: the store's own default mode (hybrid
        where the extra can run) and a local model, never a download."""
        del self.variables["ANAMNESIS_SEARCH_MODE"]
        self.variables["ANAMNESIS_EMBED_MODEL_PATH"] = str(model)

    def run_on_terminal(self, *args: str) -> Result:
        """Run with stderr on a pseudo-terminal (as in an interactive shell) and stdout on a
        pipe (as in ``anamnesis ... > file``); ``err`` is what the terminal received."""
        with pseudo_terminal() as (terminal, received):
            done = subprocess.run(
                [*anamnesis_script(), *args],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=terminal,
                env={**self.environment(), "TERM": "xterm-256color", "COLUMNS": "100"},
                cwd=self.root,
                timeout=120,
                check=False,
            )
        err = b"".join(received).decode("utf-8", "replace")
        return Result(done.returncode, done.stdout.decode(), err)

    def fake_claude(self, *, fail: bool = False) -> Path:
        """A `claude` on PATH that records each argv as one JSON line and, like the real
        one, keeps user-scope MCP servers in ``<CLAUDE_CONFIG_DIR>/.claude.json``."""
        log = self.root / "claude-calls.jsonl"
        script = self.root / "bin" / "claude"
        store = self.claude / ".claude.json"
        script.write_text(
            f"#!{sys.executable}\n"
            "import json, pathlib, sys\n"
            f"log, store, fail = {str(log)!r}, pathlib.Path({str(store)!r}), {fail!r}\n"
            "args = sys.argv[1:]\n"
            "with open(log, 'a') as f: f.write(json.dumps(args) + '\\n')\n"
            "if fail: sys.exit(1)\n"
            "data = json.loads(store.read_text()) if store.exists() else {}\n"
            "servers = data.setdefault('mcpServers', {})\n"
            "if args[:2] == ['mcp', 'add']:\n"
            "    cut = args.index('--')\n"
            "    env = dict(a.split('=', 1) for a in args[:cut] if '=' in a)\n"
            "    servers[args[cut - 1 - 2 * len(env)]] = {'type': 'stdio',\n"
            "        'command': args[cut + 1], 'args': args[cut + 2:], 'env': env}\n"
            "elif args[:2] == ['mcp', 'remove']:\n"
            "    if servers.pop(args[-1], None) is None:\n"
            "        print(f'No MCP server found with name: {args[-1]}', file=sys.stderr)\n"
            "        sys.exit(1)\n"
            "store.parent.mkdir(parents=True, exist_ok=True)\n"
            "store.write_text(json.dumps(data))\n"
        )
        script.chmod(script.stat().st_mode | stat.S_IEXEC)
        return log


@contextlib.contextmanager
def pseudo_terminal(columns: int | None = None) -> Iterator[tuple[int, list[bytes]]]:
    """A pseudo-terminal (``columns`` wide, when given) for a child process: its terminal
    side to hand the child, and the list of what the child wrote to it, complete once the
    block ends (the terminal side is closed there: run the child to its end inside)."""
    controller, terminal = pty.openpty()
    if columns is not None:
        fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    received: list[bytes] = []

    def drain() -> None:  # a full terminal buffer would block the child
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # EIO: every copy of the terminal side is closed
                return
            if not chunk:
                return
            received.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        yield terminal, received
    finally:
        os.close(terminal)
        reader.join(timeout=10)
        os.close(controller)


def in_process(capsys: Any, *args: str) -> Result:
    """Run one command in this process (``capsys``: pytest's fixture), for tests where a new
    process adds nothing but its start-up time (an embedding model costs seconds per start)."""
    from anamnesis.cli.app import main

    capsys.readouterr()  # start from empty buffers
    code = main(list(args))
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)


class _Streams:
    """What a command wrote to its standard output and error."""

    def __init__(self) -> None:
        self.out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
        self.err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)

    def stdout(self) -> str:
        return _written(self.out)

    def stderr(self) -> str:
        return _written(self.err)


def _written(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8", "replace")


@contextlib.contextmanager
def _as_process(environment: dict[str, str], cwd: Path, stdin: bytes) -> Iterator[_Streams]:
    """This process made to look like a fresh one: the environment, working folder and
    standard streams replaced for the duration, and all of them restored afterwards."""
    saved_environ = dict(os.environ)
    saved_cwd = Path.cwd()
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    streams = _Streams()
    os.environ.clear()
    os.environ.update(environment)
    os.chdir(cwd)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    sys.stdout, sys.stderr = streams.out, streams.err
    try:
        yield streams
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_environ)


def _entry_point(argv: list[str]) -> int:
    """What ``anamnesis.cli.__main__.run`` does with ``argv``, returning the exit status
    instead of ending the process."""
    from anamnesis.cli.__main__ import is_hook_call

    try:
        if is_hook_call(argv):
            from anamnesis.hooks.__main__ import main as hook_main

            return hook_main(argv)
        from anamnesis.cli.app import main

        return main(argv)
    except SystemExit as exc:  # what the real process would have exited with
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()


def write(env: Env, title: str, body: str, *extra: str) -> str:
    """Write a note with `anamnesis write ... --json`; its id."""
    result = env.run("write", "--title", title, *extra, body, "--json")
    assert result.code == 0, result.err
    note_id: str = result.json()["id"]
    return note_id


def note_bytes(env: Env) -> dict[str, bytes]:
    """Every synced note file of ``env``'s store and its bytes: what a command that may
    change no note is checked against, before and after."""
    return {str(p): p.read_bytes() for p in sorted((env.home / "memory").rglob("*.md"))}


def claude_calls(log: Path) -> list[list[str]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines()]


def machines(tmp_path: Path) -> tuple[Env, Env, Path]:
    """Two machines, "laptop" and "desktop", set up with `init` on one bare remote."""
    remote = bare_remote(tmp_path / "remote.git")
    laptop, desktop = Env.make(tmp_path, "laptop"), Env.make(tmp_path, "desktop")
    for machine in (laptop, desktop):
        assert machine.run("init", "--yes", "--remote", str(remote)).code == 0
    return laptop, desktop, remote


def edited_on_both(tmp_path: Path) -> tuple[Env, Env, str]:
    """:func:`machines` that both edited one note (its id last) since they last synced, the
    laptop's edit pushed: the desktop's next sync reports the conflict."""
    laptop, desktop, _ = machines(tmp_path)
    note_id = laptop.run("write", "--title", "Port", "8080", "--json").json()["id"]
    assert laptop.run("sync").code == 0 and desktop.run("sync").code == 0
    for machine, port in ((laptop, "9090"), (desktop, "7070")):
        path = Path(machine.run("show", note_id, "--json").json()["path"])
        path.write_text(path.read_text().replace("8080", port))
    assert laptop.run("sync").code == 0
    return laptop, desktop, note_id
