"""Work no session waits on yields the CPU to the hooks sessions do wait on: a process
that calls ``yield_to_sessions`` runs at nice 10, and when it leads a session of its own
(a detached worker, a server the MCP SDK starts with ``setsid``) its scheduling group does
too, since Linux weighs each session's group alike whatever nice its processes have. A
process inside someone else's session never touches that session's group."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from anamnesis.store import BACKGROUND_NICE

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists(), reason="a Linux kernel with autogroups"
)
REPORT = (
    "import os; from anamnesis.store import yield_to_sessions; yield_to_sessions(); "
    "print(os.getpriority(os.PRIO_PROCESS, 0)); print(open('/proc/self/autogroup').read())"
)


# Never a raise in priority: a test run already niced past 10 stays where it is.
EXPECTED = max(BACKGROUND_NICE, os.getpriority(os.PRIO_PROCESS, 0))


def run(*, own_session: bool) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-c", REPORT], capture_output=True, text=True, timeout=60,
        check=True, start_new_session=own_session,
    )  # fmt: skip
    nice, group = done.stdout.splitlines()[:2]
    return int(nice), group


def test_a_process_leading_its_own_session_lowers_its_group_too() -> None:
    nice, group = run(own_session=True)
    assert nice == EXPECTED
    assert group.endswith(f"nice {BACKGROUND_NICE}"), group


def test_a_process_in_the_callers_session_lowers_only_itself() -> None:
    ours = Path("/proc/self/autogroup").read_text().strip()
    nice, group = run(own_session=False)
    assert nice == EXPECTED
    assert group == ours  # the session's group (a terminal, Claude Code) is left as it was
    assert Path("/proc/self/autogroup").read_text().strip() == ours
