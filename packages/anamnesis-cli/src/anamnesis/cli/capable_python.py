"""Finding a Python whose sqlite3 can load extensions (what the vectors extra needs).

Many Python builds cannot (pyenv's by default, some macOS ones); the system's usually can.
uv picks the first Python it finds, so the installer, `anamnesis doctor` and the
developers' `uv sync` ask this module for a capable one instead.

Standard library only, and runnable as a script before anything is installed:

    python3 packages/anamnesis-cli/src/anamnesis/cli/capable_python.py   # prints a path

prints the best capable Python 3.11+ and exits 0, or prints nothing and exits 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

MINIMUM = (3, 11)
VERSIONS = ("3.14", "3.13", "3.12", "3.11")
# Where systems put their own Pythons; PATH is searched after these, since the first
# Python on PATH is often a version manager's build without extension loading.
SYSTEM_DIRS = ("/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin")
PROBE = (
    "import sqlite3, sys; c = sqlite3.connect(':memory:'); c.enable_load_extension(True);"
    f" sys.exit(0 if sys.version_info >= {MINIMUM!r} else 3)"
)
PROBE_TIMEOUT_S = 20


def can_load_extensions(python: str) -> bool:
    """True when ``python`` is 3.11+ and its sqlite3 can load extensions."""
    try:
        done = subprocess.run(
            [python, "-c", PROBE],
            capture_output=True,
            timeout=PROBE_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


def candidates() -> list[str]:
    """Pythons worth probing, best first: newest version first, system folders first."""
    found: list[str] = []
    for version in VERSIONS:
        for folder in SYSTEM_DIRS:
            found.append(str(Path(folder) / f"python{version}"))
        on_path = shutil.which(f"python{version}")
        if on_path:
            found.append(on_path)
    for folder in SYSTEM_DIRS:
        found.append(str(Path(folder) / "python3"))
    on_path = shutil.which("python3")
    if on_path:
        found.append(on_path)
    unique: list[str] = []
    seen: set[str] = set()
    for path in found:
        if not os.access(path, os.X_OK) or Path(path).is_dir():
            continue
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique


def find_capable_python() -> str | None:
    """The first candidate that can load SQLite extensions, or None."""
    for python in candidates():
        if can_load_extensions(python):
            return python
    return None


def main() -> int:
    found = find_capable_python()
    if found is None:
        return 1
    print(found)
    return 0


if __name__ == "__main__":
    sys.exit(main())
