"""Shared fixtures: every test gets its own store and never touches the real home."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test, with no
# ANAMNESIS_MACHINE_ID (anamnesis_machine_id's default).
from anamnesis_testsupport.fixtures import anamnesis_machine_id as anamnesis_machine_id
from anamnesis_testsupport.fixtures import isolated_home as isolated_home
from anamnesis_testsupport.fixtures import make_unwritable as make_unwritable

from anamnesis.store import MemoryStore

# Test helpers live beside this file (store_testing.py, search_testing.py,
# secrets_corpus.py); the tests, in a folder for each room, import them by name.
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        yield opened
