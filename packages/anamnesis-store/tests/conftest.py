"""Shared fixtures: every test gets its own store and never touches the real home."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests-support"))
from anamnesis_testsupport import make_unwritable as make_unwritable


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
