"""``--host``: every address at once is refused with the way that works (ssh -L to the
default 127.0.0.1); one named address is served under exactly that address. Real
processes, as a person starts them."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.dashboard_server import outside_address

from anamnesis.store import MemoryStore

WILDCARDS = ["0.0.0.0", "0", ""] + (["::"] if socket.has_ipv6 else [])


@pytest.mark.parametrize("host", WILDCARDS)
def test_every_address_is_refused_with_the_ssh_way(isolated_home: Path, host: str) -> None:
    MemoryStore(isolated_home).close()
    done = subprocess.run(
        [sys.executable, "-m", "anamnesis.dashboard", "--home", str(isolated_home),
         "--port", "0", "--no-open", "--host", host],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout == ""  # no link: nothing listens
    assert f"refusing --host {host or repr(host)}" in done.stderr
    assert "ssh -L 8765:127.0.0.1:8765 THIS-MACHINE" in done.stderr
    assert "--host 192.168.1.20" in done.stderr  # or one address, named
    assert "Traceback" not in done.stderr


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


def _served_under(address: str, home: Path) -> None:
    """Start the dashboard on ``address``; its printed link opens the page under that
    address, and another name for the same socket is refused (the Host check)."""
    MemoryStore(home).close()
    command = [sys.executable, "-m", "anamnesis.dashboard", "--home", str(home), "--port",
               "0", "--no-open", "--host", address]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        shown = f"[{address}]" if ":" in address else address
        assert f"http://{shown}:" in line, line
        link = line.split()[-1]
        port = int(link.split("]:" if ":" in address else f"{address}:")[1].split("/")[0])
        with httpx.Client(timeout=10) as client:
            assert client.get(link, follow_redirects=True).status_code == 200
            other = client.get(f"http://{shown}:{port}/", headers={"Host": f"evil.example:{port}"})
            assert other.status_code == 421
    finally:
        process.terminate()
        process.communicate(timeout=10)


def test_one_named_address_is_served_under_that_address(isolated_home: Path) -> None:
    outside = outside_address()
    if outside is None:
        pytest.skip("this machine has no non-loopback address to try")
    _served_under(outside, isolated_home)


def test_an_ipv6_address_is_written_in_brackets(isolated_home: Path) -> None:
    if not _ipv6_loopback():
        pytest.skip("no IPv6 loopback here")
    _served_under("::1", isolated_home)
