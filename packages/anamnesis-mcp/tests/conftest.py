"""Every MCP test runs against its own store, never the user's."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests-support"))
from anamnesis_testsupport import make_unwritable as make_unwritable

from anamnesis.store import MemoryStore


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "anamnesis-home"
    monkeypatch.setenv("ANAMNESIS_HOME", str(home))
    monkeypatch.setenv("ANAMNESIS_MACHINE_ID", "env-machine")
    monkeypatch.delenv("ANAMNESIS_GIT_REMOTE", raising=False)
    return home


@pytest.fixture
def store(isolated_home: Path) -> Iterator[MemoryStore]:
    with MemoryStore(isolated_home) as opened:
        yield opened
