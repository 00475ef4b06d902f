"""The plugin's launcher (plugin/anamnesis.sh), run by sh as Claude Code runs the plugin's
hooks, on a PATH holding only the few tools a Unix has and the fakes each test puts there:
which `anamnesis` it runs (never the index's 0.1.3), installing this checkout with uv when
there is none (never the bare distribution name), and saying so once when it cannot."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from anamnesis.cli.agent_config import plugin_files

ROOT = Path(__file__).resolve().parents[3]
# What the launcher runs besides sh's builtins (and python3, for scripts/install.py).
TOOLS = ("sh", "mkdir", "cat", "rm", "rmdir", "mv", "find", "date", "sed", "setsid", "nohup")
HOOKS = (("prompt", "--format", "json"), ("capture",), ("sync", "--quiet"))
ENDS = ("== installed", "== failed")  # the last line of an install's log
SESSION = json.dumps({"session_id": "s1", "cwd": "/tmp", "hook_event_name": "SessionStart"})

pytestmark = pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX sh here")


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@dataclass
class Machine:
    """A HOME, a store folder, a bin folder that is the whole PATH, uv's tool folder."""

    root: Path
    bin: Path
    tool_bin: Path
    launcher: Path = ROOT / plugin_files.LAUNCHER

    @property
    def home(self) -> Path:
        return self.root / "store"

    @property
    def log(self) -> Path:
        return self.home / "logs" / "plugin-install.log"

    def environment(self) -> dict[str, str]:
        return {
            "HOME": str(self.root / "user"),
            "PATH": str(self.bin),
            "ANAMNESIS_HOME": str(self.home),
            "LANG": "C.UTF-8",
        }

    def run(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", str(self.launcher), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.environment(),
            timeout=120,
            check=False,
        )

    def anamnesis(self, folder: Path, version: str) -> Path:
        """A fake `anamnesis` that answers ``--version`` and records every call (and the
        hook JSON it was given) in ``calls`` beside it; a hook exits 3, as a broken one
        might."""
        calls = folder / "calls"
        return executable(
            folder / "anamnesis",
            "#!/bin/sh\n"
            f'echo "$*" >>"{calls}"\n'
            f'[ "$1" = --version ] && {{ echo "anamnesis {version} (store {version})"; exit 0; }}\n'
            f'cat >>"{calls}"\n'
            "exit 3\n",
        )

    def uv(self, *, install_fails: bool = False) -> Path:
        """A fake `uv` that records each call in ``uv-calls``: `tool dir --bin` names the
        tool folder, `python find` finds nothing (python3 on PATH is used), `tool install`
        does nothing (or fails)."""
        record = self.root / "uv-calls"
        return executable(
            self.bin / "uv",
            "#!/bin/sh\n"
            f'printf "%s\\n" "$*" >>"{record}"\n'
            'case "$1 $2" in\n'
            f'    "tool dir") echo "{self.tool_bin}" ;;\n'
            '    "python find") exit 1 ;;\n'
            f'    "tool install") exit {1 if install_fails else 0} ;;\n'
            "esac\n",
        )

    def uv_calls(self) -> list[str]:
        record = self.root / "uv-calls"
        return record.read_text().splitlines() if record.exists() else []

    def wait_for_install(self) -> None:
        """Until the background install is over (its lock released and its log closed)."""
        lock = self.home / "cache" / "claude-plugin" / "install.lock"
        deadline = time.monotonic() + 120
        while lock.exists() or not any(end in self.logged() for end in ENDS):
            assert time.monotonic() < deadline, self.logged()
            time.sleep(0.1)

    def logged(self) -> str:
        return self.log.read_text() if self.log.exists() else ""


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in TOOLS:
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    (tmp_path / "user").mkdir()
    tool_bin = tmp_path / "uv-tools-bin"
    tool_bin.mkdir()
    return Machine(tmp_path, bin_dir, tool_bin)


def with_python(machine: Machine) -> None:
    python = shutil.which("python3")
    if python is None:
        pytest.skip("no python3 to run scripts/install.py with")
    (machine.bin / "python3").symlink_to(python)


def cli_version() -> str:
    text = (ROOT / "packages" / "anamnesis-cli" / "pyproject.toml").read_text()
    return text.split('\nversion = "', 1)[1].split('"', 1)[0]


def test_the_index_release_on_path_is_passed_over_for_ours(machine: Machine) -> None:
    machine.uv()
    old = machine.root / "old"
    old.mkdir()
    machine.anamnesis(old, "0.1.3")
    (machine.bin / "anamnesis").symlink_to(old / "anamnesis")
    ours = machine.anamnesis(machine.tool_bin, cli_version())
    which = machine.run("--which")
    assert which.returncode == 0 and which.stdout.split() == [str(ours), cli_version()]
    hook = machine.run("inject", "--format", "json", stdin=SESSION)
    assert (hook.returncode, hook.stdout, hook.stderr) == (0, "", "")  # ours exited 3: open
    calls = (machine.tool_bin / "calls").read_text().splitlines()
    assert calls[-2:] == ["inject --format json", SESSION]  # the hook JSON passed through
    assert "inject --format json" not in (old / "calls").read_text()
    assert not any("tool install" in call for call in machine.uv_calls())


def test_a_version_is_asked_once_per_executable(machine: Machine) -> None:
    ours = machine.anamnesis(machine.bin, cli_version())
    for _ in range(3):
        assert machine.run("--which").stdout.split() == [str(ours), cli_version()]
    calls = machine.bin / "calls"
    assert calls.read_text().splitlines() == ["--version"]
    later = time.time() + 5  # reinstalled: the executable is newer than the memo
    os.utime(ours, (later, later))
    assert machine.run("--which").returncode == 0
    assert calls.read_text().splitlines() == ["--version", "--version"]


def test_without_anamnesis_this_checkout_is_installed_in_the_background(
    machine: Machine,
) -> None:
    with_python(machine)
    machine.uv()
    started = machine.run("inject", "--format", "json", stdin=SESSION)
    assert started.returncode == 0
    message = json.loads(started.stdout)["systemMessage"]
    assert message.startswith("Anamnesis: installing its `anamnesis` command")
    assert str(machine.log) in message
    for hook in HOOKS:  # the session start says so; the other hooks say nothing
        quiet = machine.run(*hook, stdin="{}")
        assert (quiet.returncode, quiet.stdout) == (0, "")
    machine.wait_for_install()
    installs = [call.split() for call in machine.uv_calls() if call.startswith("tool install")]
    assert len(installs) == 1, machine.uv_calls()
    install = installs[0]
    assert install[:3] == ["tool", "install", "--reinstall"] and "--python" in install
    requirement = install[-1]
    assert requirement.startswith(f"{ROOT / 'packages' / 'anamnesis-cli'}[")
    assert "mcp" in requirement and "dashboard" in requirement
    assert not any(word.startswith("anamnesis-memory") for word in install)
    assert "== installed" in machine.logged()


def test_an_install_done_is_not_started_again_when_its_command_is_not_found(
    machine: Machine,
) -> None:
    """The fake uv installs nothing where the launcher looks: every hook after the install
    would start another one without the hour's mark of a done install. A hook that runs
    after the install is over, as on a loaded machine, starts none."""
    with_python(machine)
    machine.uv()
    machine.run("inject", "--format", "json", stdin=SESSION)
    machine.wait_for_install()
    for hook in HOOKS:
        quiet = machine.run(*hook, stdin="{}")
        assert (quiet.returncode, quiet.stdout) == (0, "")
    again = machine.run("inject", "--format", "json", stdin=SESSION)
    message = json.loads(again.stdout)["systemMessage"]
    assert message.startswith("Anamnesis: its `anamnesis` command was installed"), message
    assert "uv tool dir --bin" in message and str(machine.log) in message
    installs = [call for call in machine.uv_calls() if call.startswith("tool install")]
    assert len(installs) == 1, machine.uv_calls()


def test_an_install_done_for_another_version_does_not_hold_this_one_back(
    machine: Machine,
) -> None:
    """The mark names the version installed: a plugin updated within the hour installs
    its own."""
    with_python(machine)
    machine.uv()
    state = machine.home / "cache" / "claude-plugin"
    state.mkdir(parents=True)
    (state / "install.done").write_text("0.5.0\n")
    started = machine.run("inject", "--format", "json", stdin=SESSION)
    message = json.loads(started.stdout)["systemMessage"]
    assert message.startswith("Anamnesis: installing its `anamnesis` command"), message
    machine.wait_for_install()
    assert (state / "install.done").read_text().strip() == cli_version()


def test_an_install_that_fails_is_said_with_the_line_to_run(machine: Machine) -> None:
    with_python(machine)
    machine.uv(install_fails=True)
    machine.run("inject", "--format", "json", stdin=SESSION)
    machine.wait_for_install()
    again = machine.run("inject", "--format", "json", stdin=SESSION)
    message = json.loads(again.stdout)["systemMessage"]
    assert "could not be installed" in message and str(machine.log) in message
    assert f"python3 {ROOT / 'scripts' / 'install.py'}" in message
    installs = [call for call in machine.uv_calls() if call.startswith("tool install")]
    assert len(installs) == 1  # not tried again at once: an hour after


def test_without_uv_it_says_so_once_and_every_hook_exits_0(machine: Machine) -> None:
    outputs = []
    for hook in (("inject", "--format", "json"), *HOOKS):
        done = machine.run(*hook, stdin=SESSION)
        assert done.returncode == 0 and done.stderr == ""
        outputs += done.stdout.splitlines()
    assert len(outputs) == 1
    message = json.loads(outputs[0])["systemMessage"]
    assert "uv is not installed" in message and "`pip install uv`" in message
    assert "scripts/install.py" in message
    server = machine.run("serve")
    assert server.returncode == 1 and "uv is not installed" in server.stderr
    assert not machine.log.exists()


def test_an_older_one_of_ours_runs_while_this_copy_replaces_it_once(
    machine: Machine, tmp_path: Path
) -> None:
    with_python(machine)
    machine.uv()
    copy = tmp_path / "plugin-copy"  # a copy of the checkout one version ahead
    (copy / "plugin").mkdir(parents=True)
    (copy / "scripts").mkdir()
    cli = Path("packages") / "anamnesis-cli"
    capable = cli / "src" / "anamnesis" / "cli" / "capable_python.py"
    (copy / capable).parent.mkdir(parents=True)
    for needed in (Path(plugin_files.LAUNCHER), Path("scripts") / "install.py", capable):
        shutil.copy(ROOT / needed, copy / needed)
    (copy / cli / "pyproject.toml").write_text(
        '[project]\nname = "anamnesis-memory"\nversion = "9.1.0"\n'
    )
    machine.launcher = copy / "plugin" / "anamnesis.sh"
    older = machine.anamnesis(machine.bin, "0.5.0")
    which = machine.run("--which")
    assert which.stdout.splitlines()[0] == f"{older} 0.5.0" and "9.1.0" in which.stdout
    for _ in range(2):
        hook = machine.run("inject", "--format", "json", stdin=SESSION)
        assert (hook.returncode, hook.stdout) == (0, "")
        machine.wait_for_install()
    assert (machine.bin / "calls").read_text().count("inject --format json") == 2
    installs = [call.split() for call in machine.uv_calls() if call.startswith("tool install")]
    assert len(installs) == 1  # once per version of the plugin
    assert installs[0][-1].startswith(f"{copy / cli}[")
    assert "== installed" in machine.logged()
