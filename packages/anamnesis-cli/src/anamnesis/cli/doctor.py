"""`anamnesis doctor`: check every part of the installation and say how to fix each problem.

The checks of the home itself (store, index, clock, remote, sync) are ops' table
(``anamnesis.ops.home_check_table``), which a dashboard started on its own shows too; this
module adds the installation's (install, config, hooks, captures, MCP, vectors) between
them, in the order doctor has always shown them. ``anamnesis dashboard`` hands
:func:`run_checks` to the dashboard, so its status panel shows all of them.
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

from anamnesis.cli import installation
from anamnesis.cli.agent_config import (
    codex_config,
    hooks_settings,
    mcp_registration,
    plugin_install,
)
from anamnesis.cli.agent_config.claude_paths import claude_json_path, settings_path
from anamnesis.cli.agent_config.codex_doctor import check_codex
from anamnesis.cli.config_file import (
    ConfigUnreadable,
    check_machine_id,
    check_setting,
    config_keys,
    load_config,
)
from anamnesis.cli.doctor_vectors import vectors_check
from anamnesis.cli.errors import CliError, backquoted, suggest
from anamnesis.cli.locations import anamnesis_command
from anamnesis.cli.setup import add_mcp_extra, read_settings
from anamnesis.hooks import queued_captures, refused_captures
from anamnesis.ops import (
    FAIL,
    OK,
    WARN,
    Check,
    CheckTable,
    Home,
    HomeCheck,
    home_check_table,
    run_check_table,
)

# A session's capture is filed a moment after the session ends; one still queued this long
# after is waiting for a worker that died (the machine slept, the process was killed).
STALE_CAPTURE_S = 300.0


__all__ = ["FAIL", "OK", "WARN", "Check", "run_checks"]


def run_checks(home: Home, *, check_remote: bool = True) -> list[Check]:
    """Every check; ``check_remote=False`` (``--offline``) contacts nothing on the network:
    neither the remote nor a model download. A check that raises is a FAIL finding."""
    ops = home_check_table(offline=not check_remote)
    table: CheckTable = [
        ("install", _installation),
        *((name, ops[name]) for name in ("store", "index", "clock")),
        ("config", _config),
        ("hooks", _claude_code("hooks", _hooks)),
        ("captures", _captures),
        ("mcp", _claude_code("mcp", _mcp)),
        ("codex", check_codex),
        *((name, ops[name]) for name in ("remote", "sync")),
        ("vectors", lambda at: vectors_check(at.root, offline=not check_remote)),
    ]
    return run_check_table(home, table)


def _claude_code(name: str, check: HomeCheck) -> HomeCheck:
    """One of Claude Code's checks; where only Codex is set up (`init --agent codex`),
    Claude Code not being set up is no problem, and is said as a tip."""

    def run(home: Home) -> Check:
        if codex_config.set_up() and not _claude_code_set_up():
            return Check(
                name, OK, "Claude Code not set up (Codex is)", "set it up: `anamnesis init`"
            )
        return check(home)

    return run


def _claude_code_set_up() -> bool:
    """Any of ours in Claude Code: the plugin, a hook in settings.json, the MCP server."""
    try:
        _text, settings = read_settings(settings_path())
    except CliError:
        return True  # a settings.json we cannot read: its own check says so
    return (
        bool(hooks_settings.our_hooks(settings))
        or mcp_registration.registered_entry() is not None
        or plugin_install.user_plugin() is not None
    )


def _installation(home: Home) -> Check:
    inst = installation.detect()
    return Check("install", OK, inst.describe(), f"update: {installation.update_hint(inst)}")


def _config(home: Home) -> Check:
    path = home.layout.config_path
    if not path.exists():
        return Check("config", WARN, f"no {path}", "run `anamnesis init` to write it")
    try:
        config = load_config(home)  # `{}` is a valid, empty config: the defaults apply
    except ConfigUnreadable as exc:
        return Check(
            "config", FAIL, f"{exc.path} {exc.problem} (its settings are being ignored)",
            "fix it by hand, or move it aside and run `anamnesis init`",
        )  # fmt: skip
    machine_id = config.get("machine_id")
    if machine_id is not None:
        try:
            check_machine_id(str(machine_id), source=f"machine_id in {path}")
        except CliError as exc:
            return Check(
                "config", FAIL, exc.message, suggest("config", "set", "machine_id", "NAME")
            )
    # The settings whose bad value is ignored where they are read: searches, vectors and
    # prompt recall quietly use the default, so doctor is where it is said.
    lenient = [key for key, declared in config_keys().items() if declared.lenient]
    for key in lenient:
        if config.get(key) is not None:
            try:
                check_setting(key, str(config[key]), source=f"{key} in {path}")
            except CliError as exc:  # the store ignores it: searches quietly use the default
                return Check(
                    "config", WARN, f"{exc.message} (it is ignored)",
                    f"{suggest('config', 'set', key, 'VALUE')} or "
                    f"{suggest('config', 'unset', key)}",
                )  # fmt: skip
    if os.name == "posix" and path.stat().st_mode & 0o077:
        return Check(
            "config", WARN, f"{path} is readable by others (it may hold a remote's credentials)",
            backquoted(f"chmod 600 {shlex.quote(str(path))}"),
        )  # fmt: skip
    return Check("config", OK, f"machine_id = {config.get('machine_id', '(hostname)')}")


def _hooks(home: Home) -> Check:
    """Which way the hooks are installed (the Claude Code plugin, settings.json, or none),
    and both at once: then every hook runs twice."""
    plugin = plugin_install.user_plugin()
    path = settings_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if plugin is not None:
            return plugin_hooks_check(home, plugin)
        return Check("hooks", FAIL, f"none: no {path}, and no Claude Code plugin", INSTALL_HOOKS)
    try:
        settings = hooks_settings.parse_settings(text, path)
    except hooks_settings.InvalidSettings as exc:
        return Check("hooks", FAIL, str(exc), "Claude Code cannot read it either: fix the JSON")
    ours = hooks_settings.our_hooks(settings)
    if plugin is not None:
        if ours:
            return Check(
                "hooks", WARN,
                f"installed twice, so each runs twice: by the Claude Code plugin "
                f"{plugin.plugin_id} and in {path} ({len(ours)} hooks)",
                "run `anamnesis init`, which leaves them to the plugin (or disable the "
                f"plugin: {backquoted(f'claude plugin disable {plugin.plugin_id}')})",
            )  # fmt: skip
        return plugin_hooks_check(home, plugin)
    if not ours:
        return Check(
            "hooks", FAIL, f"none: not in {path}, and no Claude Code plugin", INSTALL_HOOKS
        )
    missing = hooks_settings.missing_hooks(settings)
    if missing:
        wanted = len(hooks_settings.hook_entries())
        named = ", ".join(f"{spec.event} ({' '.join(spec.args)})" for spec in missing)
        return Check(
            "hooks", FAIL,
            f"{wanted - len(missing)} of {wanted} Anamnesis hooks in {path}; missing: {named}",
            "run `anamnesis init`",
        )  # fmt: skip
    for _event, command in ours:
        read = hooks_settings.read_command(command)
        assert read is not None  # our_hooks lists only commands it reads as ours
        env, program = read.env, read.program
        if not Path(program).exists():
            return Check(
                "hooks", FAIL, f"the hooks run {program}, which no longer exists",
                "run `anamnesis init` again from the installed `anamnesis`",
            )  # fmt: skip
        if env.get("ANAMNESIS_HOME") and Path(env["ANAMNESIS_HOME"]) != home.root:
            return Check(
                "hooks", WARN,
                f"the hooks use the store at {env['ANAMNESIS_HOME']}, not {home.root}",
                "run `anamnesis init` to point them here",
            )  # fmt: skip
    return Check("hooks", OK, f"{len(ours)} hooks in {path}")


INSTALL_HOOKS = (
    "install the Claude Code plugin (`claude plugin marketplace add CHECKOUT`, then "
    "`claude plugin install anamnesis@anamnesis`) or run `anamnesis init`"
)


def plugin_hooks_check(home: Home, plugin: plugin_install.PluginInstall) -> Check:
    """The plugin's hooks, and the `anamnesis` its launcher finds for them."""
    where = f"plugin: {plugin.describe()}"
    found = plugin_install.launcher_finds(plugin, home.root)
    if found is None:
        return Check("hooks", OK, where)  # no copy to ask (Claude Code fetches it again)
    if not found.ok:
        return Check(
            "hooks", FAIL,
            f"{where}; its hooks find no `anamnesis` {plugin.version} or newer "
            "(the next session start installs it)",
            f"or install it now: {backquoted(found.install_line)}",
        )  # fmt: skip
    return Check("hooks", OK, f"{where}; they run {found.answer}")


def _captures(home: Home) -> Check:
    """Session captures still waiting to be filed, or refused by the store."""
    refused = refused_captures(home.root)
    if refused:
        return Check(
            "captures", WARN,
            f"{len(refused)} session capture(s) the store refused, kept in {refused[0].parent}",
            "hooks.log says why; each file holds the session's title and summary as JSON",
        )  # fmt: skip
    ages = []
    for path in queued_captures(home.root):
        try:
            ages.append(time.time() - path.stat().st_mtime)
        except OSError:
            continue  # filed meanwhile
    stale = [age for age in ages if age > STALE_CAPTURE_S]
    if stale:
        return Check(
            "captures", WARN,
            f"{len(stale)} session capture(s) not filed yet, the oldest queued"
            f" {max(stale) / 60:.0f} min ago",
            "run `anamnesis sync`, which files them (so does the next session's start)",
        )  # fmt: skip
    return Check("captures", OK, f"{len(ages)} session capture(s) waiting to be filed")


def _mcp(home: Home) -> Check:
    if not mcp_registration.mcp_extra_installed():
        return Check(
            "mcp", WARN, "the MCP server is not installed (the memory_* tools are unavailable)",
            backquoted(add_mcp_extra()),
        )  # fmt: skip
    entry = mcp_registration.registered_entry()
    plugin = plugin_install.user_plugin()
    if plugin is not None:
        if entry is None:
            return Check("mcp", OK, f"the plugin's own server ({plugin.plugin_id})")
        line = mcp_registration.shell_line(mcp_registration.remove_argv())
        return Check(
            "mcp", WARN,
            f"registered twice: the plugin {plugin.plugin_id} has its own server, and "
            f"{claude_json_path()} a user-scope one (every memory_* tool is listed twice)",
            f"run `anamnesis init`, which removes the user-scope one, or {backquoted(line)}",
        )  # fmt: skip
    command = anamnesis_command()
    env = {"ANAMNESIS_HOME": str(home.root)}
    if mcp_registration.is_current(entry, command, env):
        return Check("mcp", OK, "registered at user scope")
    if mcp_registration.find_claude() is None:
        # Nothing to fix here yet: Claude Code is not installed (or not on PATH). The line
        # to run once it is, exactly as `init` would have run it.
        line = mcp_registration.shell_line(mcp_registration.add_argv(command, env))
        return Check(
            "mcp", WARN,
            "Claude Code's `claude` command is not on PATH, so the MCP server is not "
            "registered yet (the hooks are installed and work once Claude Code is)",
            f"once Claude Code is installed, run: {backquoted(line)}",
        )  # fmt: skip
    if entry is None:
        return Check(
            "mcp", FAIL, f"no user-scope `anamnesis` server in {claude_json_path()}",
            "run `anamnesis init` (or `claude mcp list` to look for it in another scope)",
        )  # fmt: skip
    return Check(
        "mcp", WARN, f"registered, but as {entry.get('command')} {entry.get('args')}",
        "run `anamnesis init` to register this installation",
    )  # fmt: skip
