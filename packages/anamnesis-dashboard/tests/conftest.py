"""Every dashboard test runs a real dashboard process over its own real store (markdown
files, SQLite index, git history made by the sync package), and talks to it over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from anamnesis_testsupport.dashboard_server import DashboardProcess, start_dashboard

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test.
from anamnesis_testsupport.fixtures import isolated_home as isolated_home
from anamnesis_testsupport.repos import bare_remote

from anamnesis.store import MemoryStore

MACHINE = "laptop"


@pytest.fixture
def anamnesis_machine_id() -> str:
    return MACHINE


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """An empty bare repository (made with dulwich): the machines' shared remote."""
    return bare_remote(tmp_path / "remote.git")


@pytest.fixture
def store(isolated_home: Path) -> Iterator[MemoryStore]:
    with MemoryStore(isolated_home) as opened:
        yield opened


@pytest.fixture
def dashboard(store: MemoryStore) -> Iterator[DashboardProcess]:
    """The dashboard over ``store`` (write notes first: the server reads the same files)."""
    running = start_dashboard(store.root)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def client(dashboard: DashboardProcess) -> Iterator[httpx.Client]:
    """A browser-like client that opened the printed link (so it holds the session cookie)
    and sends this server's Origin on every request, as a browser's form posts do."""
    with httpx.Client(
        base_url=dashboard.base, headers={"Origin": dashboard.origin}, timeout=30
    ) as opened:
        answer = opened.get(dashboard.link, follow_redirects=True)
        assert answer.status_code == 200, answer.text
        yield opened
