"""Every hooks test runs against its own store and Claude Code folder, never the real ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests-support"))
from anamnesis_testsupport import make_unwritable as make_unwritable


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "anamnesis-home"
    monkeypatch.setenv("ANAMNESIS_HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    monkeypatch.setenv("ANAMNESIS_MACHINE_ID", "laptop")
    # Exact keyword results, and no embedding model is ever loaded by these tests.
    monkeypatch.setenv("ANAMNESIS_SEARCH_MODE", "keyword")
    monkeypatch.delenv("ANAMNESIS_GIT_REMOTE", raising=False)
    # Project keys read URL shortcuts from the user's git config: never the real one.
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "no-global-gitconfig"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    return home
