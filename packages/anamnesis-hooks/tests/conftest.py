"""Every hooks test runs against its own store and Claude Code folder, never the real ones."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test.
from anamnesis_testsupport.fixtures import isolated_home as isolated_home
from anamnesis_testsupport.fixtures import make_unwritable as make_unwritable

# Test helpers live in hooks_testing.py beside this file (tests import it by name).
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture(autouse=True)
def no_recall_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own prompt recall settings never reach the tests."""
    monkeypatch.delenv("ANAMNESIS_PROMPT_RECALL", raising=False)
    monkeypatch.delenv("ANAMNESIS_PROMPT_RECALL_BUDGET", raising=False)


@pytest.fixture
def anamnesis_machine_id() -> str:
    """What the hooks record as the machine, from the environment (isolated_home sets it)."""
    return "laptop"
