"""Shared fixtures: every test gets its own store and never touches the real home."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "anamnesis-home"
    monkeypatch.setenv("ANAMNESIS_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    for name in ("ANAMNESIS_MACHINE_ID", "ANAMNESIS_GIT_REMOTE"):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        yield opened


@pytest.fixture
def make_unwritable() -> Iterator[Callable[[Path], None]]:
    """Make folders refuse new files for real, even for root (which ignores chmod):
    ``chattr +i`` sets the immutable attribute that binds root too."""
    locked: list[Path] = []

    def lock(path: Path) -> None:
        if os.geteuid() != 0:
            path.chmod(0o500)
        elif (
            shutil.which("chattr") is None
            or subprocess.run(
                ["chattr", "+i", str(path)], capture_output=True, check=False
            ).returncode
            != 0
        ):
            pytest.skip("cannot make a folder unwritable as root here (no chattr +i)")
        locked.append(path)

    yield lock
    for path in locked:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
        else:
            path.chmod(0o700)
