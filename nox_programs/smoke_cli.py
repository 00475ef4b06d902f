"""Isolation smoke test of `anamnesis-memory` (the CLI) installed alone, without its `mcp`
extra (the `isolation` session): init, write and search work; `serve` fails with the hint
to install `anamnesis-memory[mcp]`.

Runs as a plain script in the isolated venv: stdlib and `anamnesis-memory` only.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

root = pathlib.Path(tempfile.mkdtemp())
env = {**os.environ, "ANAMNESIS_HOME": str(root / "home"), "CLAUDE_CONFIG_DIR": str(root / "c")}
found = shutil.which("anamnesis", path=str(pathlib.Path(sys.executable).parent))
assert found is not None  # for the type checker: the wheel installs this script
tool = found


def run(*args: str, stdin: str = "") -> str:
    done = subprocess.run([tool, *args], input=stdin, capture_output=True, text=True, env=env)
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


run("init", "--yes", "--local-only")
run("write", "--title", "CLI smoke", "installed alone")
assert json.loads(run("search", "smoke", "--json"))[0]["title"] == "CLI smoke"
served = subprocess.run([tool, "serve"], capture_output=True, text=True, env=env)
assert served.returncode == 1 and "anamnesis-memory[mcp]" in served.stderr, served
print("cli smoke ok")
