"""Every MCP test runs against its own store, never the user's."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test, in this
# process and in the servers started as subprocesses (they inherit it).
from anamnesis_testsupport.fixtures import isolated_home as isolated_home
from anamnesis_testsupport.fixtures import make_unwritable as make_unwritable

from anamnesis.store import MemoryStore

# Test helpers live in mcp_testing.py beside this file (tests import it by name).
sys.path.insert(0, str(Path(__file__).parent))


@pytest.fixture
def anamnesis_machine_id() -> str:
    """The machine a server binds when none is given: ANAMNESIS_MACHINE_ID (isolated_home
    sets it), distinct from the ids tests pass explicitly."""
    return "env-machine"


@pytest.fixture
def store(isolated_home: Path) -> Iterator[MemoryStore]:
    with MemoryStore(isolated_home) as opened:
        yield opened
