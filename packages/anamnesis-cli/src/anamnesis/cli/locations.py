"""Where this installation's `anamnesis` is (Claude Code's files: ``agent_config.claude_paths``;
the store's paths are the home's layout)."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def anamnesis_command() -> list[str]:
    """The absolute command that runs this installation's `anamnesis`.

    The console script next to the running interpreter is the installed one (for `uv tool
    install`, inside the tool's own environment), whatever PATH says. Without it (running
    from a source tree), the interpreter runs the module.
    """
    bin_dir = Path(sys.executable).parent
    for name in ("anamnesis", "anamnesis.exe"):
        script = bin_dir / name
        if script.is_file() and os.access(script, os.X_OK):
            return [str(script)]
    return [sys.executable, "-m", "anamnesis.cli"]
