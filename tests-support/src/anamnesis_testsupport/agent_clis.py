"""The real coding agents' CLIs, for the tests that check our files against them.

`.ci/run` installs them with npm where it can (`AGENT_CLIS` names each package and the
version we test against); a test that needs one and finds none skips, saying which and how
to get it. They run only in a scratch home of the test's (:func:`scratch_agent_env`), never
against the real user's configuration; their config commands work offline.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

# command -> the npm package (at the version the tests were written against) that has it.
AGENT_CLIS = {
    "claude": "@anthropic-ai/claude-code@2.1.197",
    "codex": "@openai/codex@0.171.0",
    "mcp-inspector": "@modelcontextprotocol/inspector@0.15.0",
    "gemini": "@google/gemini-cli@0.61.0",
    "copilot": "@github/copilot@1.0.102",
}


def agent_cli(command: str) -> str:
    """The path of ``command`` on this process's PATH, or the test is skipped with why."""
    found = shutil.which(command)
    if found is None:
        package = AGENT_CLIS[command]
        pytest.skip(
            f"`{command}` is not installed here (npm {package}); `.ci/run` installs it with "
            f"npm where it can: `npm install --prefix DIR {package}`, then put DIR's "
            "node_modules/.bin on PATH"
        )
    return found


def scratch_agent_env(home: Path, *, path: list[Path] | None = None) -> dict[str, str]:
    """An environment whose every agent's configuration lives under ``home``: HOME,
    CLAUDE_CONFIG_DIR and CODEX_HOME there, this process's PATH after ``path``, no
    variables of the real user's agents, no telemetry, no update checks."""
    home.mkdir(parents=True, exist_ok=True)
    keep = ("PATH", "LANG", "LC_ALL", "TMPDIR", "SSL_CERT_FILE", "SSL_CERT_DIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    env["PATH"] = os.pathsep.join([*(str(p) for p in path or []), env.get("PATH", "")])
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        CODEX_HOME=str(home / ".codex"),
        COPILOT_HOME=str(home / ".copilot"),
        COPILOT_AUTO_UPDATE="false",
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_CACHE_HOME=str(home / ".cache"),
        ANAMNESIS_HOME=str(home / ".anamnesis"),
        # The CLIs phone nothing home and look for no updates in a test.
        DISABLE_TELEMETRY="1",
        DISABLE_AUTOUPDATER="1",
        DISABLE_ERROR_REPORTING="1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        NO_UPDATE_NOTIFIER="1",
    )
    return env
