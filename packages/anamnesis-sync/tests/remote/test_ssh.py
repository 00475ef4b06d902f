"""SSH remotes through a stand-in ``ssh`` on PATH that serves the repository locally.

The stand-in parses ssh's command line as OpenSSH would (options, host, remote command)
and serves the path with dulwich's own upload-pack / receive-pack: the client side is the
real dulwich SSH transport, with no git binary anywhere.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from anamnesis.sync import GitSyncBackend, check_remote
from anamnesis.sync.remote.connect import with_ssh_options
from sync_testing import files, remote_files, write_note

FAKE_SSH = """#!{python}
import json, os, shlex, sys, time
args = sys.argv[1:]
with open(os.environ["FAKE_SSH_LOG"], "a") as log:
    log.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_SSH_STALL"):
    time.sleep(600)  # a host that accepts and never answers
with_value = {{"-o", "-p", "-i", "-l", "-F", "-J"}}
i = 0
while i < len(args) and args[i].startswith("-"):
    i += 2 if args[i] in with_value else 1
service, path = shlex.split(" ".join(args[i + 1 :]))
from dulwich.protocol import ReceivableProtocol
from dulwich.server import FileSystemBackend, ReceivePackHandler, UploadPackHandler
out = sys.stdout.buffer
def send(data):
    out.write(data)
    out.flush()
# Reads as a server over a socket does: a pack is read in pieces as they arrive.
proto = ReceivableProtocol(sys.stdin.buffer.raw.read, send)
handler = {{"git-upload-pack": UploadPackHandler, "git-receive-pack": ReceivePackHandler}}
handler[service](FileSystemBackend("/"), [path], proto).handle()
"""


@pytest.fixture
def ssh_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put the stand-in ``ssh`` first on PATH; return the file logging its command lines."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ssh = bin_dir / "ssh"
    ssh.write_text(FAKE_SSH.format(python=sys.executable))
    ssh.chmod(ssh.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "ssh.log"
    log.touch()
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SSH_LOG", str(log))
    for name in ("GIT_SSH_COMMAND", "GIT_SSH", "FAKE_SSH_STALL"):
        monkeypatch.delenv(name, raising=False)
    return log


def _logged(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


@pytest.mark.parametrize("form", ["ssh://me@host.example{path}", "me@host.example:{path}"])
def test_two_machines_sync_over_ssh(tmp_path: Path, remote: Path, ssh_log: Path, form: str) -> None:
    url = form.format(path=remote)
    laptop = GitSyncBackend(tmp_path / "laptop", remote=url, machine_id="laptop")
    desktop = GitSyncBackend(tmp_path / "desktop", remote=url, machine_id="desktop")
    write_note(laptop, "semantic/a.md", "over ssh")
    first = laptop.sync()
    assert first.pushed, first.detail
    assert desktop.sync().pulled == 1
    write_note(desktop, "semantic/b.md", "back over ssh")
    assert desktop.sync().pushed
    assert laptop.sync().pulled == 1
    assert (
        files(laptop)
        == files(desktop)
        == {
            "semantic/a.md": "over ssh",
            "semantic/b.md": "back over ssh",
        }
    )
    assert set(remote_files(remote)) == {"semantic/a.md", "semantic/b.md"}
    calls = _logged(ssh_log)
    assert calls and all("me@host.example" in call for call in calls)
    for call in calls:  # every connection is bounded and never prompts
        options = {call[i + 1] for i, arg in enumerate(call[:-1]) if arg == "-o"}
        assert {"BatchMode=yes", "ConnectTimeout=30", "ServerAliveCountMax=3"} <= options


def test_an_ssh_host_that_never_answers_is_given_up_on_in_time(
    tmp_path: Path, remote: Path, ssh_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_SSH_STALL", "1")  # ignores ConnectTimeout: only the watchdog helps
    lonely = GitSyncBackend(
        tmp_path / "laptop", remote=f"me@host.example:{remote}", machine_id="laptop", timeout_s=1
    )
    write_note(lonely, "semantic/a.md", "x")
    started = time.monotonic()
    result = lonely.sync()
    elapsed = time.monotonic() - started
    assert elapsed < 10, elapsed
    assert not result.pushed and result.committed
    assert "timed out" in result.remote_error and "did not answer" in result.remote_error
    assert _logged(ssh_log)  # it really went through ssh
    started = time.monotonic()
    refused = check_remote(f"ssh://me@host.example{remote}", timeout_s=1)
    assert refused is not None and "timed out" in refused
    assert time.monotonic() - started < 10


def test_ssh_options_respect_the_users_own_command() -> None:
    assert with_ssh_options("ssh", 20).split() == [
        "ssh",
        "-o", "BatchMode=yes",
        "-o", "ConnectTimeout=20",
        "-o", "ServerAliveInterval=7",
        "-o", "ServerAliveCountMax=3",
    ]  # fmt: skip
    # The user's options come first: OpenSSH keeps the first value it sees.
    custom = with_ssh_options("/usr/bin/ssh -i ~/.ssh/memory -o ConnectTimeout=90", 20)
    assert custom.startswith("/usr/bin/ssh -i ~/.ssh/memory -o ConnectTimeout=90 -o BatchMode")
    assert with_ssh_options("plink -batch", 20) == "plink -batch"  # not OpenSSH: untouched


def test_git_ssh_command_is_honoured(
    tmp_path: Path, remote: Path, ssh_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ssh = Path(os.environ["PATH"].split(os.pathsep)[0]) / "ssh"
    monkeypatch.setenv("GIT_SSH_COMMAND", f"{ssh} -o User=chosen")
    laptop = GitSyncBackend(
        tmp_path / "laptop", remote=f"me@host.example:{remote}", machine_id="laptop"
    )
    write_note(laptop, "semantic/a.md", "x")
    assert laptop.sync().pushed
    assert all(call[:2] == ["-o", "User=chosen"] for call in _logged(ssh_log))
