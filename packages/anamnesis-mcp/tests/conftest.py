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
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    for name in ("ANAMNESIS_GIT_REMOTE", "ANAMNESIS_EMBED_MODEL"):
        monkeypatch.delenv(name, raising=False)
    # Keyword search unless a test asks for vectors (test_vectors.py): results stay exact,
    # no server starts the embedding thread and no model loads, in this process or in the
    # servers started as subprocesses (they inherit this environment). A model path with
    # no model in it means nothing is ever downloaded, even by a test that forgets to pin.
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "keyword")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(tmp_path / "no-model-here"))
    return home


@pytest.fixture
def store(isolated_home: Path) -> Iterator[MemoryStore]:
    with MemoryStore(isolated_home) as opened:
        yield opened
