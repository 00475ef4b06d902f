"""Every CLI test gets its own store, Claude Code folder and HOME: never the user's."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests-support"))

from anamnesis_testsupport import make_unwritable as make_unwritable

from cli_testing import Env


@pytest.fixture(autouse=True)
def keyword_search(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test loads an embedding model unless it asks to (test_vectors.py does): keyword
    search keeps results exact, and a model costs seconds per process."""
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "keyword")
    monkeypatch.setenv("ANAMNESIS_EMBED_MODEL_PATH", str(tmp_path / "no-model-here"))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Env:
    environment = Env.make(tmp_path)
    for name, value in environment.variables.items():
        monkeypatch.setenv(name, value)
    for name in ("ANAMNESIS_GIT_REMOTE", "ANAMNESIS_MACHINE_ID", "ANAMNESIS_EMBED_MODEL"):
        monkeypatch.delenv(name, raising=False)
    return environment
