"""Real repositories in temp dirs, made with dulwich; no git binary on PATH by default."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from anamnesis_testsupport.fixtures import make_unwritable as make_unwritable
from anamnesis_testsupport.repos import bare_remote

from anamnesis.sync import GitSyncBackend

# Test helpers live in sync_testing.py beside this file (tests import it by name).
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def no_git_on_path(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Sync must never need the git binary: hide it, except from interoperability tests."""
    if "needs_git" in request.keywords:
        return
    kept = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not (Path(d) / "git").exists()
    ]
    monkeypatch.setenv("PATH", os.pathsep.join(kept))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_git: uses the git binary to check interoperability")


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    """An empty bare repository, made with dulwich."""
    return bare_remote(tmp_path / "remote.git")


from sync_testing import Machine  # noqa: E402


@pytest.fixture
def machine(tmp_path: Path, remote: Path) -> Machine:
    """Make a machine: a notes folder with its own backend, sharing ``remote`` by default."""

    def make(name: str, *, remote_url: str | Path | None = remote) -> GitSyncBackend:
        return GitSyncBackend(
            tmp_path / name / "memory",
            remote=str(remote_url) if remote_url is not None else None,
            machine_id=name,
            lock_wait_s=2.0,
        )

    return make
