"""A real dashboard process for tests and benchmarks: started with ``python -m
anamnesis.dashboard`` on a free port, its one-time link read from the line it prints."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

LINK = re.compile(r"(http://127\.0\.0\.1:(\d+)/)\?token=([A-Za-z0-9_-]+)")
CHECK = re.compile(
    r'<li class="check s-(\w+)"><span class="mark">\w+</span> <strong>(\w+)</strong>'
)
START_TIMEOUT_S = 30.0


@dataclass
class DashboardProcess:
    process: subprocess.Popen[str]
    base: str  # http://127.0.0.1:PORT/
    port: int
    token: str
    started_s: float  # from spawning the process to the printed link

    @property
    def link(self) -> str:
        return f"{self.base}?token={self.token}"

    @property
    def host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


def start_dashboard(
    home: Path, *, env: dict[str, str] | None = None, args: tuple[str, ...] = ()
) -> DashboardProcess:
    """Start the dashboard over ``home`` and wait for its link; raise with its output if it
    does not come up."""
    full_env = {**os.environ, "ANAMNESIS_HOME": str(home), **(env or {})}
    command = [sys.executable, "-m", "anamnesis.dashboard", "--home", str(home), "--port", "0",
               "--no-open", *args]  # fmt: skip
    started = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=full_env,
    )
    assert process.stdout is not None
    seen: list[str] = []
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        seen.append(line)
        found = LINK.search(line)
        if found:
            elapsed = time.perf_counter() - started
            return DashboardProcess(
                process, found.group(1), int(found.group(2)), found.group(3), elapsed
            )
    process.kill()
    process.wait()
    raise RuntimeError("the dashboard did not start:\n" + "".join(seen))


def csrf_of(html: str) -> str:
    """The CSRF token a page's forms carry."""
    marker = 'name="csrf" value="'
    start = html.index(marker) + len(marker)
    return html[start : html.index('"', start)]


def checks_shown(panel: str) -> dict[str, str]:
    """The status panel's checks, name to verdict, in the order shown."""
    return {name: status for status, name in CHECK.findall(panel)}


def outside_address() -> str | None:
    """This machine's address on its default route, if it has one (not loopback): what a
    test binds to, or tries to reach, from outside loopback."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks a route
        address = str(probe.getsockname()[0])
    except OSError:
        return None
    finally:
        probe.close()
    return None if address.startswith("127.") else address
