"""Every CLI test gets its own store, Claude Code folder and HOME: never the user's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests-support"))

from cli_testing import Env


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    environment = Env.make(tmp_path)
    for name, value in environment.variables.items():
        monkeypatch.setenv(name, value)
    for name in ("ANAMNESIS_GIT_REMOTE", "ANAMNESIS_MACHINE_ID"):
        monkeypatch.delenv(name, raising=False)
    return environment
