"""Fixtures for the end-to-end suite: two fresh machines and one bare remote per test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from e2e_support import TRANSCRIPTS, World, make_world


@pytest.fixture
def world(tmp_path: Path) -> World:
    """laptop and desktop, each set up with `anamnesis init --remote <bare remote>`."""
    return make_world(tmp_path)


@pytest.fixture
def transcripts() -> Path:
    """The real Claude Code transcripts beside the project (never copied into it)."""
    if not TRANSCRIPTS.is_dir():
        pytest.skip(f"{TRANSCRIPTS} is absent: the shared fixtures are not beside the project")
    return TRANSCRIPTS
