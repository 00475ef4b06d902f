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
    for name in ("ANAMNESIS_MACHINE_ID", "ANAMNESIS_GIT_REMOTE", "ANAMNESIS_EMBED_MODEL"):
        monkeypatch.delenv(name, raising=False)
    # Keyword search unless a test asks for vectors: results stay exact and no model loads
    # (test_vectors.py opts in).
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "keyword")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(tmp_path / "no-model-here"))
    return home


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        yield opened
