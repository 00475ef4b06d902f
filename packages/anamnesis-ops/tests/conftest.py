"""Every ops test runs against its own store and Claude Code folder, never the real ones."""

from __future__ import annotations

import pytest

# isolated_home (autouse): its own ANAMNESIS_HOME and environment for every test.
from anamnesis_testsupport.fixtures import isolated_home as isolated_home


@pytest.fixture
def anamnesis_machine_id() -> str | None:
    """No machine id from the environment: each test names its machines."""
    return None
