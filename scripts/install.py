#!/usr/bin/env python3
"""Install (or update) this checkout's `anamnesis` command with `uv tool install`.

    python3 scripts/install.py            # install or update; prints each command it runs
    python3 scripts/install.py --print    # only print the command
    python3 scripts/install.py --python /usr/bin/python3.12 --extras mcp

Until this version is published, the package index's `anamnesis-memory` is the older,
incompatible 0.1.3 release of this design: install from this checkout (this script) or
from wheels (see README.md), never by the bare name.

It picks a Python whose sqlite3 can load extensions when this machine has one, and then
adds the vectors extra (search by meaning); otherwise it installs without it and says so.
Run it again after `git pull` to update: it always rebuilds from the checkout (uv would
otherwise reuse its cached build of an unchanged version number).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = ROOT / "packages" / "anamnesis-cli"
sys.path.insert(0, str(CLI / "src"))
# Standard library only: usable before anything is installed.
from anamnesis.cli.capable_python import can_load_extensions, find_capable_python  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--python", help="the Python to install with (default: a capable one)")
    parser.add_argument("--extras", help="comma-separated extras (default: mcp, dashboard, "
                        "and vectors where the Python can load SQLite extensions)")  # fmt: skip
    parser.add_argument("--print", dest="print_only", action="store_true",
                        help="print the command; run nothing")  # fmt: skip
    args = parser.parse_args()
    uv = shutil.which("uv")
    if uv is None:
        print(
            "install.py: uv is not installed. Install it first: `pip install uv` (or, where "
            "pip refuses, `python3 -m venv ~/.local/uv && ~/.local/uv/bin/pip install uv` and "
            "put ~/.local/uv/bin on PATH), then run this again.",
            file=sys.stderr,
        )
        return 1
    python = args.python or find_capable_python()
    capable = python is not None and can_load_extensions(python)
    if python is None:
        python = sys.executable if sys.version_info >= (3, 11) else "3.11"
    default = "mcp,dashboard,vectors" if capable else "mcp,dashboard"
    extras = args.extras if args.extras is not None else default
    requirement = f"{CLI}[{extras}]" if extras else str(CLI)
    command = [uv, "tool", "install", "--reinstall", "--python", python, requirement]
    print(f"$ {shlex.join(command)}", flush=True)
    if args.print_only:
        return 0
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        print(f"install.py: uv failed (exit {done.returncode}); nothing else was changed",
              file=sys.stderr)  # fmt: skip
        return done.returncode
    if "vectors" not in extras.split(","):
        print(
            "install.py: no Python here can load SQLite extensions, so search by meaning "
            "(the vectors extra) is left out and search is keyword-only. With such a Python "
            "(Debian/Ubuntu: apt install python3), run this again; `anamnesis doctor` says more.",
        )
    _say_where(uv)
    return 0


def _say_where(uv: str) -> None:
    found = subprocess.run([uv, "tool", "dir", "--bin"], capture_output=True, text=True,
                           check=False)  # fmt: skip
    bin_dir = found.stdout.strip()
    if not bin_dir:
        return
    on_path = any(
        Path(entry).resolve() == Path(bin_dir).resolve()
        for entry in os.environ.get("PATH", "").split(os.pathsep)
        if entry
    )
    print(f"installed: {Path(bin_dir) / 'anamnesis'}")
    if not on_path:
        print(
            f'{bin_dir} is not on PATH: run `export PATH="{bin_dir}:$PATH"` now, and '
            "`uv tool update-shell` once to make it permanent"
        )


if __name__ == "__main__":
    sys.exit(main())
