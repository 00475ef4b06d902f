"""The Claude Code plugin this repository is: the files it declares, made from the tables.

`claude plugin marketplace add <checkout>` reads ``.claude-plugin/marketplace.json`` (one
plugin, the repository itself: ``"source": "./"``), and `claude plugin install` copies the
checkout and reads ``.claude-plugin/plugin.json`` (its MCP server, declared inline so that
no ``.mcp.json`` at the root turns into a project MCP config for whoever works in this
repository) and ``hooks/hooks.json``. Each hook and the server run the plugin's launcher,
``plugin/anamnesis.sh``, which finds (or installs) this checkout's `anamnesis`.

The hooks come from the hooks package's table (:func:`hooks_settings.hook_entries`, the
same entries `init` writes into settings.json) and the server from
:func:`mcp_registration.plugin_servers`: ``scripts/plugin_files.py`` writes the three
files from here, and a test fails when the committed ones say anything else.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from anamnesis.cli.agent_config import hooks_settings, mcp_registration

PLUGIN_NAME = "anamnesis"
MARKETPLACE_NAME = "anamnesis"
# Where Claude Code puts the plugin's copy: it substitutes the variable in hook commands
# and MCP arguments, and sets it in their environment too.
PLUGIN_ROOT = "${CLAUDE_PLUGIN_ROOT}"
LAUNCHER = "plugin/anamnesis.sh"  # relative to the plugin's root (the repository's)
AUTHOR = "Anamnesis developers"
LICENSE = "MIT"
DESCRIPTION = (
    "Memory for Claude Code that follows you between machines: the notes that matter are "
    "shown at session start and recalled per prompt, each session is captured as a note, "
    "and notes sync through a git remote; the memory_* MCP tools search and write them."
)
MARKETPLACE_DESCRIPTION = "Anamnesis, cross-machine memory for coding agents, as a plugin."
KEYWORDS = ("memory", "hooks", "mcp", "git", "sync")
# The three files, relative to the repository's root.
PLUGIN_JSON = ".claude-plugin/plugin.json"
MARKETPLACE_JSON = ".claude-plugin/marketplace.json"
HOOKS_JSON = "hooks/hooks.json"


def launcher_command() -> list[str]:
    """The command that runs the launcher, as an MCP server's command and arguments."""
    return ["sh", f"{PLUGIN_ROOT}/{LAUNCHER}"]


def hook_command(spec: hooks_settings.HookEntry) -> str:
    """One hook's command line: ``sh "${CLAUDE_PLUGIN_ROOT}/plugin/anamnesis.sh" ARGS``.

    The path is in double quotes: Claude Code substitutes the variable before the shell
    reads the line, and a copy's path may hold spaces; where it does not substitute, the
    shell expands the variable from the environment, as it does for a person running the
    line by hand. The background hook starts with ``nice``, as in settings.json.
    """
    niced = [shlex.quote(word) for word in hooks_settings.niced(spec, posix=True)]
    launcher = f'"{PLUGIN_ROOT}/{LAUNCHER}"'
    args = [shlex.quote(arg) for arg in spec.args]
    return " ".join([*niced, "sh", launcher, *args])


def hooks_json() -> dict[str, Any]:
    """``hooks/hooks.json``: every hook of the table, run through the launcher."""
    return {
        "description": "Anamnesis: the notes that matter at session start, prompt recall, "
        "session capture at its end and before compaction, sync in the background.",
        "hooks": hooks_settings.hook_groups(hook_command),
    }


def plugin_json(version: str) -> dict[str, Any]:
    """``.claude-plugin/plugin.json``, for the CLI's ``version`` (the plugin is the CLI)."""
    return {
        "name": PLUGIN_NAME,
        "version": version,
        "description": DESCRIPTION,
        "author": {"name": AUTHOR},
        "license": LICENSE,
        "keywords": list(KEYWORDS),
        "mcpServers": mcp_registration.plugin_servers(launcher_command()),
    }


def marketplace_json() -> dict[str, Any]:
    """``.claude-plugin/marketplace.json``: a marketplace of one plugin, this repository."""
    return {
        "name": MARKETPLACE_NAME,
        "description": MARKETPLACE_DESCRIPTION,
        "owner": {"name": AUTHOR},
        "plugins": [
            {
                "name": PLUGIN_NAME,
                "source": "./",
                "description": DESCRIPTION,
                "category": "productivity",
            }
        ],
    }


def plugin_files(version: str) -> dict[str, str]:
    """Each file's path (from the repository's root) and its text, as committed."""
    files = {
        PLUGIN_JSON: plugin_json(version),
        MARKETPLACE_JSON: marketplace_json(),
        HOOKS_JSON: hooks_json(),
    }
    return {path: json.dumps(data, indent=2) + "\n" for path, data in files.items()}


def plugin_id(marketplace: str = MARKETPLACE_NAME) -> str:
    """How Claude Code names the installed plugin (``anamnesis@anamnesis``)."""
    return f"{PLUGIN_NAME}@{marketplace}"
