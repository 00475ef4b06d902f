#!/usr/bin/env python3
"""Write the Claude Code plugin's files from the CLI's tables (or check them).

    uv run python scripts/plugin_files.py           # write .claude-plugin/*.json, hooks/hooks.json
    uv run python scripts/plugin_files.py --check   # exit 1, naming each file that differs

The hooks are the hooks package's table (the entries `anamnesis init` writes into
settings.json), the MCP server is `init`'s registration, and the version is the CLI's
(packages/anamnesis-cli/pyproject.toml): run this after changing any of them, or bumping the
version. ``anamnesis.cli.agent_config.plugin_files`` says what each file holds; the CLI's
test_plugin_files fails while a committed file says anything else.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

from anamnesis.cli.agent_config.plugin_files import plugin_files

ROOT = Path(__file__).resolve().parent.parent


def cli_version(root: Path = ROOT) -> str:
    """The CLI's version, as its pyproject.toml says (the plugin is the CLI)."""
    with (root / "packages" / "anamnesis-cli" / "pyproject.toml").open("rb") as file:
        return str(tomllib.load(file)["project"]["version"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 on a difference"
    )
    args = parser.parse_args()
    stale = []
    for relative, text in plugin_files(cli_version()).items():
        path = ROOT / relative
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current == text:
            continue
        stale.append(relative)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for relative in stale:
        print(f"{'differs' if args.check else 'wrote'}: {relative}")
    if args.check and stale:
        print("run `uv run python scripts/plugin_files.py` to write them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
