"""`doctor`'s check of Codex, where Codex is found: our hooks in its hooks.json, current,
running a program that exists, for this store; our MCP server in its config.toml; its hooks
not turned off; and, asking Codex itself (:mod:`.codex_trust`), each of ours trusted.

Codex not found (no ``$CODEX_HOME`` folder, no `codex` on PATH) is fine: nothing to check.
Codex found but not set up is fine too, with the command that sets it up as a tip.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from anamnesis.cli.agent_config import codex_config, hooks_settings, toml_tables
from anamnesis.cli.agent_config.agent_doctor import (
    hooks_problem,
    not_found,
    not_set_up,
    server_problem,
)
from anamnesis.cli.agent_config.codex_trust import CodexUnreachable, list_hooks
from anamnesis.cli.agent_config.found import found
from anamnesis.hooks import AGENTS
from anamnesis.ops import FAIL, OK, WARN, Check, Home

NAME = "codex"
SET_UP = "`anamnesis init --agent codex`"


def check_codex(home: Home) -> Check:
    folder = codex_config.codex_home()
    codex = shutil.which(AGENTS[NAME].command)
    if not found(NAME):
        return not_found(NAME)
    try:
        _text, data = codex_config.read_config(codex_config.config_path())
        hooks_text = codex_config.read_text(codex_config.hooks_path())
        hooks = (
            hooks_settings.parse_settings(hooks_text, codex_config.hooks_path())
            if hooks_text is not None
            else {}
        )
    except (codex_config.CodexConfigError, hooks_settings.InvalidSettings) as exc:
        return Check(NAME, FAIL, str(exc), "Codex cannot read it either: fix it")
    ours = hooks_settings.our_hooks(hooks)
    server = toml_tables.lookup(data, codex_config.SERVER_KEY)
    if not ours and not codex_config.is_our_server(server):
        return not_set_up(NAME)
    problem = hooks_problem(home, NAME, codex_config.hooks_path(), ours) or server_problem(
        home, NAME, str(codex_config.config_path()),
        server, ours=codex_config.is_our_server(server), remove="`codex mcp remove anamnesis`",
    )  # fmt: skip
    if problem is not None:
        return problem
    if off := codex_config.hooks_turned_off(data):
        return Check(
            NAME, FAIL, f"{codex_config.config_path()} has {off}: Codex runs no hooks",
            "remove that line",
        )  # fmt: skip
    if codex is not None:
        return _trust(codex, ours)
    return Check(NAME, OK, f"{len(ours)} hooks and the MCP server in {folder}")


def _trust(codex: str, ours: list[tuple[str, str]]) -> Check:
    """What Codex says of our hooks: all trusted, or which it will skip."""
    mine = {command for _event, command in ours}
    try:
        listing = list_hooks(codex, Path.home())
    except CodexUnreachable as exc:
        return Check(
            NAME, WARN, f"{len(ours)} hooks installed; could not ask Codex which it trusts: {exc}",
            codex_config.TRUST_HINT,
        )  # fmt: skip
    listed = [hook for hook in listing.hooks if hook.command in mine]
    if listing.errors or len(listed) < len(mine):
        said = "; ".join([*listing.errors, *listing.warnings]) or "no reason given"
        return Check(
            NAME, FAIL, f"Codex lists {len(listed)} of our {len(mine)} hooks ({said})",
            f"run {SET_UP}",
        )  # fmt: skip
    # Codex names events sessionStart; its hooks.json (and Claude Code) SessionStart.
    untrusted = sorted(
        {h.event[:1].upper() + h.event[1:] for h in listed if h.trust not in ("trusted", "managed")}
    )
    if untrusted:
        return Check(
            NAME, WARN,
            f"Codex skips our hooks until you trust them (not trusted: {', '.join(untrusted)})",
            codex_config.TRUST_HINT,
        )  # fmt: skip
    return Check(NAME, OK, f"{len(ours)} hooks, trusted, and the MCP server")
