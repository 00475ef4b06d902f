"""`anamnesis init`: config, hooks, MCP registration and a first sync, planned then applied,
for Claude Code (the default), Codex (``--agent codex``: :mod:`.agent_config.codex_config`)
or both (``--agent all``).

Planning reads everything and changes nothing, so `--print` shows the plan and an invalid
settings.json stops the command before any side effect. Applying is idempotent: a second
run with the same choices changes nothing.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.cli import installation
from anamnesis.cli.agent_config import (
    codex_config,
    hooks_settings,
    mcp_registration,
    plugin_install,
)
from anamnesis.cli.agent_config.claude_paths import claude_json_path, settings_path
from anamnesis.cli.agent_config.files import write_with_backup
from anamnesis.cli.config_file import (
    check_machine_id,
    check_model_path,
    load_config,
    normalize_remote,
)
from anamnesis.cli.errors import FAILURE, USAGE, CliError
from anamnesis.cli.locations import anamnesis_command
from anamnesis.hooks import DEFAULT_AGENT, sync_store
from anamnesis.ops import Home, claude_home
from anamnesis.store import StoreError, default_machine_id, write_config
from anamnesis.sync import DiskFull, SyncBusy, redact_url


@dataclass(slots=True)
class McpPlan:
    """What to do about the MCP registration."""

    # "add" | "current" | "no-extra" | "no-claude" | "remove" | "absent" | "unseen", and
    # with the plugin: "plugin" (its server alone), "duplicate" (a user-scope one to remove)
    action: str
    argv: list[str] = field(default_factory=list)
    remove_first: bool = False


# The agents `init --agent` sets up: each has a hooks file and an MCP registration written
# here; "all" is every one of them.
INIT_AGENTS = (DEFAULT_AGENT, codex_config.AGENT)


def chosen_agents(agent: str) -> tuple[str, ...]:
    """The agents ``--agent`` names: one of :data:`INIT_AGENTS`, or all of them."""
    if agent == "all":
        return INIT_AGENTS
    if agent not in INIT_AGENTS:
        names = ", ".join((*INIT_AGENTS, "all"))
        raise CliError(f"--agent must be one of {names}, got {agent!r}", code=USAGE)
    return (agent,)


@dataclass(slots=True)
class InitPlan:
    home: Home
    config_before: dict[str, Any]
    config_after: dict[str, Any]
    settings_file: Path
    settings_before: str | None
    settings_after: dict[str, Any]
    mcp: McpPlan
    command: list[str]
    env: dict[str, str]
    # Where machine_id and remote came from, when not from a flag or config.json: the plan
    # says so, since an environment variable is easy to forget about.
    sources: dict[str, str] = field(default_factory=dict)
    # Claude Code's plugin, installed and enabled for every session: its hooks and server
    # are the ones that run, so settings.json gets none (and loses any it held: twice is
    # every note injected and every session captured twice).
    plugin: plugin_install.PluginInstall | None = None
    # Whether Claude Code is set up (its settings and MCP registration), and Codex's part.
    claude: bool = True
    codex: codex_config.CodexPlan | None = None

    @property
    def settings_changed(self) -> bool:
        if not self.claude:
            return False
        return self.settings_before is None or _parsed(self.settings_before) != self.settings_after

    @property
    def config_changed(self) -> bool:
        return self.config_before != self.config_after


@dataclass(slots=True)
class Outcome:
    """What applying did, line by line, and the problems that make the exit status 1."""

    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def read_settings(path: Path) -> tuple[str | None, dict[str, Any]]:
    """The file's text (None when missing) and its parsed content; raises on bad JSON."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None
    try:
        return text, hooks_settings.parse_settings(text, path)
    except hooks_settings.InvalidSettings as exc:
        raise CliError(str(exc)) from None


def plan_init(
    home: Home,
    *,
    machine_id: str | None,
    remote: str | None,
    local_only: bool,
    embed_model_path: str | None = None,
    agents: tuple[str, ...] = (DEFAULT_AGENT,),
) -> InitPlan:
    """Everything init would change, computed without changing anything.

    The remote comes from --remote, else --local-only (none), else ``ANAMNESIS_GIT_REMOTE``,
    else what config.json holds; the machine id from --machine-id, else
    ``ANAMNESIS_MACHINE_ID``, else config.json, else the hostname. Both end up in
    config.json, which is all the MCP server sees (Claude Code starts it with its own
    environment).
    """
    if remote is not None and local_only:
        raise CliError("--remote and --local-only contradict each other; pick one", code=USAGE)
    claude = DEFAULT_AGENT in agents
    settings_file = settings_path()
    # Bad settings are refused first; Claude Code's are not read unless it is set up.
    settings_text, settings = read_settings(settings_file) if claude else (None, {})
    before = load_config(home)  # and a broken config.json: rewriting it would lose settings
    after = dict(before)
    sources: dict[str, str] = {}
    after["machine_id"], sources["machine_id"] = _choose_machine_id(home, machine_id, before)
    if remote is not None:
        after["remote"] = normalize_remote(remote)
    elif local_only:
        after.pop("remote", None)
    elif from_env := os.environ.get("ANAMNESIS_GIT_REMOTE", "").strip():
        try:
            after["remote"] = normalize_remote(from_env)
        except CliError as exc:
            raise CliError(f"ANAMNESIS_GIT_REMOTE: {exc.message}", code=FAILURE) from None
        sources["remote"] = "ANAMNESIS_GIT_REMOTE"
    if embed_model_path is not None:
        after["embed_model_path"] = check_model_path(embed_model_path, source="--embed-model-path")
    command = anamnesis_command()
    env = {"ANAMNESIS_HOME": str(home.root)}
    plugin = plugin_install.user_plugin() if claude else None
    codex = None
    if codex_config.AGENT in agents:
        try:
            codex = codex_config.plan_codex(
                command, env, mcp_extra=mcp_registration.mcp_extra_installed()
            )
        except codex_config.CodexConfigError as exc:
            raise CliError(str(exc)) from None
    return InitPlan(
        home=home,
        config_before=before,
        config_after=after,
        settings_file=settings_file,
        settings_before=settings_text,
        settings_after=(
            hooks_settings.without_ours(settings)
            if plugin or not claude
            else hooks_settings.with_ours(settings, command, env)
        ),
        mcp=_plan_mcp(command, env, plugin=plugin is not None) if claude else McpPlan("skipped"),
        command=command,
        env=env,
        sources={key: where for key, where in sources.items() if where},
        plugin=plugin,
        claude=claude,
        codex=codex,
    )


def _choose_machine_id(home: Home, flag: str | None, before: dict[str, Any]) -> tuple[str, str]:
    """The machine id init writes, checked, and where it came from ("" for a flag or the
    config file, which need no mention)."""
    if flag is not None:
        return check_machine_id(flag, source="--machine-id"), ""
    from_env = os.environ.get("ANAMNESIS_MACHINE_ID", "")
    if from_env.strip():
        variable = "ANAMNESIS_MACHINE_ID"
        return check_machine_id(from_env, source=variable, code=FAILURE), variable
    current = before.get("machine_id")
    if current is not None:
        where = f"machine_id in {home.layout.config_path}"
        if not isinstance(current, str):
            raise CliError(f"{where} must be text, not {json.dumps(current)}")
        return check_machine_id(current, source=where, code=FAILURE), ""
    return default_machine_id(), "the hostname"


def _plan_mcp(command: list[str], env: dict[str, str], *, plugin: bool = False) -> McpPlan:
    if plugin:  # the plugin has its server: a user-scope one beside it is a duplicate
        registered = mcp_registration.registered_entry() is not None
        return (
            McpPlan("duplicate", mcp_registration.remove_argv())
            if registered
            else McpPlan("plugin")
        )
    if not mcp_registration.mcp_extra_installed():
        return McpPlan("no-extra")
    argv = mcp_registration.add_argv(command, env)
    entry = mcp_registration.registered_entry()
    if mcp_registration.is_current(entry, command, env):
        return McpPlan("current", argv)
    if mcp_registration.find_claude() is None:
        return McpPlan("no-claude", argv)
    return McpPlan("add", argv, remove_first=True)


def describe_init(plan: InitPlan) -> list[str]:
    """The plan in words, for `--print` and the confirmation prompt."""
    remote = plan.config_after.get("remote")
    shown_remote = redact_url(remote) if remote else "(none: this machine only)"
    lines = [
        f"store:   {plan.home.root}",
        f"config:  {plan.home.layout.config_path} "
        + ("(unchanged)" if not plan.config_changed else "(will be written, mode 0600)"),
        f"         machine_id = {plan.config_after['machine_id']}{_source(plan, 'machine_id')}",
        f"         remote     = {shown_remote}{_source(plan, 'remote')}",
    ]
    if plan.config_after.get("embed_model_path"):
        lines.append(f"         embed_model_path = {plan.config_after['embed_model_path']}")
    if plan.claude:
        lines += _describe_claude(plan)
    if plan.codex is not None:
        lines += codex_config.describe_codex(plan.codex)
    target = redact_url(remote) if remote else "no remote: commit locally"
    lines.append(f"sync:    import Claude Code's own memory, then a first sync ({target})")
    return lines


def _describe_claude(plan: InitPlan) -> list[str]:
    lines = []
    if plan.plugin is not None:
        lines += _describe_plugin_hooks(plan)
    elif plan.settings_changed:
        backup = " (backed up first)" if plan.settings_before is not None else ""
        lines.append(f"hooks:   {plan.settings_file} will hold these hooks{backup}:")
    else:
        lines.append(f"hooks:   {plan.settings_file} already holds these hooks:")
    for spec in hooks_settings.hook_entries() if plan.plugin is None else ():
        matcher = f" [{spec.matcher}]" if spec.matcher else ""
        mode = ", async" if spec.run_async else ""
        lines.append(f"         {spec.event}{matcher} (timeout {spec.timeout}s{mode}):")
        lines.append(f"           {hooks_settings.hook_command(plan.command, spec, plan.env)}")
    return lines + _describe_mcp(plan.mcp)


def _describe_plugin_hooks(plan: InitPlan) -> list[str]:
    assert plan.plugin is not None
    lines = [
        f"hooks:   from the Claude Code plugin {plan.plugin.describe()};",
        f"         none written to {plan.settings_file}",
    ]
    if plan.settings_changed:
        count = len(_duplicates(plan))
        lines.append(
            f"         remove the {count} Anamnesis hooks it also holds (they would run twice)"
        )
    return lines


def _duplicates(plan: InitPlan) -> list[tuple[str, str]]:
    """Our hooks settings.json holds beside the plugin's."""
    before = _parsed(plan.settings_before) if plan.settings_before is not None else {}
    return hooks_settings.our_hooks(before) if isinstance(before, dict) else []


def _source(plan: InitPlan, key: str) -> str:
    where = plan.sources.get(key)
    return f"  (from {where})" if where else ""


def _describe_mcp(mcp: McpPlan) -> list[str]:
    line = mcp_registration.shell_line(mcp.argv) if mcp.argv else ""
    if mcp.action == "no-extra":
        return [
            "mcp:     skipped: the MCP server is not installed; for the memory_* tools run",
            f"         {add_mcp_extra()}",
        ]
    if mcp.action == "current":
        return ["mcp:     already registered at user scope"]
    if mcp.action == "plugin":
        return ["mcp:     the plugin's own server; none registered at user scope"]
    if mcp.action == "duplicate":
        return ["mcp:     the plugin has its own server: remove the user-scope one:", f"  {line}"]
    if mcp.action == "no-claude":
        return ["mcp:     `claude` is not on PATH; register the server yourself with:", f"  {line}"]
    return ["mcp:     register the server at user scope:", f"  {line}"]


def apply_init(plan: InitPlan, *, first_sync: bool = True) -> Outcome:
    out = Outcome()
    config = plan.home.layout.config_path
    if plan.config_changed or not config.exists():
        write_config(plan.config_after, plan.home.root)
        out.lines.append(f"wrote {config}")
    _open_store(plan.home)
    if plan.claude:
        _apply_claude(plan, out)
    if plan.codex is not None:
        lines, problems = codex_config.apply_codex(plan.codex)
        out.lines += lines
        out.problems += problems
    if first_sync:
        _first_sync(plan, out)
    return out


def _apply_claude(plan: InitPlan, out: Outcome) -> None:
    if plan.plugin is not None:
        _apply_plugin_hooks(plan, out)
    elif plan.settings_changed:
        backup = write_settings(plan.settings_file, plan.settings_before, plan.settings_after)
        saved = f" (previous version: {backup})" if backup else ""
        out.lines.append(f"installed the hooks in {plan.settings_file}{saved}")
    else:
        out.lines.append(f"hooks already installed in {plan.settings_file}")
    _apply_mcp(plan.mcp, out)


def _apply_plugin_hooks(plan: InitPlan, out: Outcome) -> None:
    assert plan.plugin is not None
    out.lines.append(f"the Claude Code plugin {plan.plugin.plugin_id} runs the hooks")
    if plan.settings_changed:
        count = len(_duplicates(plan))
        backup = write_settings(plan.settings_file, plan.settings_before, plan.settings_after)
        saved = f" (previous version: {backup})" if backup else ""
        out.lines.append(
            f"removed the {count} Anamnesis hooks {plan.settings_file} also held{saved}"
        )


def _open_store(home: Home) -> None:
    try:
        home.open_store().close()
    except StoreError as exc:
        raise CliError(str(exc)) from None


def add_mcp_extra() -> str:
    """The command that adds the MCP server to this installation, then wires it up."""
    inst = installation.detect()
    return f"{installation.install_command(inst, extras=inst.with_extras('mcp'))} && anamnesis init"


def _apply_mcp(mcp: McpPlan, out: Outcome) -> None:
    line = mcp_registration.shell_line(mcp.argv) if mcp.argv else ""
    if mcp.action == "no-extra":
        out.lines.append(f"MCP server not installed: for the memory_* tools run {add_mcp_extra()}")
    elif mcp.action == "current":
        out.lines.append("MCP server already registered")
    elif mcp.action == "plugin":
        out.lines.append("MCP server: the plugin's own")
    elif mcp.action == "duplicate":
        _remove_duplicate_server(line, out)
    elif mcp.action == "no-claude":
        out.lines.append(f"`claude` is not on PATH; register the MCP server with:\n  {line}")
    else:
        claude = mcp_registration.find_claude()
        assert claude is not None
        if mcp.remove_first:  # `claude mcp add` refuses a name that exists: replace it
            mcp_registration.run_claude(claude, mcp_registration.remove_argv())
        ran = mcp_registration.run_claude(claude, mcp.argv)
        if ran.ok:
            out.lines.append("registered the MCP server at user scope")
        else:
            out.problems.append(
                f"`claude mcp add` failed ({ran.output or 'no output'}); run it yourself: {line}"
            )


def _remove_duplicate_server(line: str, out: Outcome) -> None:
    """The user-scope server an earlier `init` registered, beside the plugin's own."""
    claude = mcp_registration.find_claude()
    if claude is None:
        out.lines.append(
            "the plugin has its own MCP server, and a user-scope one is registered too; "
            f"`claude` is not on PATH: remove that one with:\n  {line}"
        )
        return
    ran = mcp_registration.run_claude(claude, mcp_registration.remove_argv())
    if ran.ok:
        out.lines.append("removed the user-scope MCP server (the plugin has its own)")
    else:
        out.problems.append(f"`claude mcp remove` failed ({ran.output or 'no output'}): {line}")


def _first_sync(plan: InitPlan, out: Outcome) -> None:
    # With the settings just chosen, whatever the environment says: `--local-only` under
    # ANAMNESIS_GIT_REMOTE syncs with no remote (config.json, written, says the same).
    home = Home(
        plan.home.root,
        machine_id=plan.config_after["machine_id"],
        remote=plan.config_after.get("remote"),
    )
    with home.open_store() as store:
        try:
            report = sync_store(home, store, claude_dir=claude_home())
        except SyncBusy as exc:
            out.lines.append(f"first sync skipped: {exc}")
            return
        except DiskFull as exc:  # set up all the same: the next sync, with space, pulls
            out.problems.append(f"first sync: {exc}")
            return
    if report.imported and (report.imported.created or report.imported.updated):
        imported = report.imported.created + report.imported.updated
        out.lines.append(f"imported {imported} note(s) from Claude Code's own memory")
    result = report.result
    if result.remote_error or result.conflicted:
        out.problems.append(f"first sync: {result.detail}")
    else:
        out.lines.append(f"first sync: {result.detail}")


@dataclass(slots=True)
class UninstallPlan:
    settings_file: Path
    settings_before: str | None
    settings_after: dict[str, Any]
    removed_hooks: list[tuple[str, str]]
    mcp: McpPlan
    # The Claude Code plugin, which keeps running its hooks and server: Claude Code's to remove.
    plugin: plugin_install.PluginInstall | None = None
    claude: bool = True
    codex: codex_config.CodexUninstallPlan | None = None


def plan_uninstall(agents: tuple[str, ...] = (DEFAULT_AGENT,)) -> UninstallPlan:
    codex = None
    if codex_config.AGENT in agents:
        try:
            codex = codex_config.plan_codex_uninstall()
        except codex_config.CodexConfigError as exc:
            raise CliError(str(exc)) from None
    settings_file = settings_path()
    if DEFAULT_AGENT not in agents:
        return UninstallPlan(
            settings_file, None, {}, [], McpPlan("skipped"), claude=False, codex=codex
        )
    text, settings = read_settings(settings_file)
    entry = mcp_registration.registered_entry()
    if mcp_registration.find_claude() is not None:
        mcp = McpPlan("remove", mcp_registration.remove_argv())
    elif entry is not None:
        mcp = McpPlan("no-claude", mcp_registration.remove_argv())
    else:
        # No `claude` to ask, and no entry where we can read one: Claude Code may still
        # keep one (another config folder, a file we cannot read), so the line is said.
        mcp = McpPlan("unseen", mcp_registration.remove_argv())
    return UninstallPlan(
        settings_file=settings_file,
        settings_before=text,
        settings_after=hooks_settings.without_ours(settings),
        removed_hooks=hooks_settings.our_hooks(settings),
        mcp=mcp,
        plugin=plugin_install.user_plugin(),
        codex=codex,
    )


def describe_uninstall(plan: UninstallPlan) -> list[str]:
    lines = _describe_claude_uninstall(plan) if plan.claude else []
    if plan.codex is not None:
        lines += codex_config.describe_codex_uninstall(plan.codex)
    lines.append("notes:   kept (the store and its config are not touched)")
    return lines


def _describe_claude_uninstall(plan: UninstallPlan) -> list[str]:
    lines = []
    if plan.removed_hooks:
        lines.append(f"hooks:   remove {len(plan.removed_hooks)} from {plan.settings_file}:")
        lines += [f"         {event}: {command}" for event, command in plan.removed_hooks]
    else:
        lines.append(f"hooks:   none of ours in {plan.settings_file}")
    line = mcp_registration.shell_line(plan.mcp.argv) if plan.mcp.argv else ""
    if plan.mcp.action == "remove":
        lines.append(f"mcp:     {line}")
    elif plan.mcp.action == "no-claude":
        lines.append(f"mcp:     `claude` is not on PATH; remove the server yourself with: {line}")
    elif plan.mcp.action == "unseen":
        lines.append(f"mcp:     {_unseen_mcp(line)}")
    else:
        lines.append("mcp:     not registered")
    if plan.plugin is not None:
        lines.append(f"plugin:  {_plugin_stays(plan.plugin)}")
    return lines


def _plugin_stays(plugin: plugin_install.PluginInstall) -> str:
    remove = shlex.join(["claude", "plugin", "uninstall", plugin.plugin_id])
    return f"the Claude Code plugin still runs its hooks and server: `{remove}` removes it"


def apply_uninstall(plan: UninstallPlan) -> Outcome:
    out = Outcome()
    if plan.claude:
        _apply_claude_uninstall(plan, out)
    if plan.codex is not None:
        out.lines += codex_config.apply_codex_uninstall(plan.codex)
    out.lines.append("your notes are untouched")
    return out


def _apply_claude_uninstall(plan: UninstallPlan, out: Outcome) -> None:
    if plan.removed_hooks:
        backup = write_settings(plan.settings_file, plan.settings_before, plan.settings_after)
        out.lines.append(
            f"removed {len(plan.removed_hooks)} hook(s) from {plan.settings_file}"
            + (f" (previous version: {backup})" if backup else "")
        )
    else:
        out.lines.append(f"no Anamnesis hooks in {plan.settings_file}")
    if plan.mcp.action == "remove":
        claude = mcp_registration.find_claude()
        assert claude is not None
        ran = mcp_registration.run_claude(claude, plan.mcp.argv)
        if ran.ok:
            out.lines.append("removed the MCP server registration")
        elif "not found" in ran.output.lower() or "no mcp server" in ran.output.lower():
            out.lines.append("the MCP server was not registered")
        else:
            out.problems.append(f"`claude mcp remove` failed: {ran.output or 'no output'}")
    elif plan.mcp.action == "no-claude":
        line = mcp_registration.shell_line(plan.mcp.argv)
        out.lines.append(f"`claude` is not on PATH; remove the MCP server with:\n  {line}")
    elif plan.mcp.action == "unseen":
        line = mcp_registration.shell_line(plan.mcp.argv)
        out.lines.append(_unseen_mcp(line, before="\n  "))
    if plan.plugin is not None:
        out.lines.append(_plugin_stays(plan.plugin))


def _unseen_mcp(line: str, *, before: str = " ") -> str:
    """The MCP registration nobody could check: how to remove it if it is there
    (``before``: what goes before the command line)."""
    return (
        f"`claude` is not on PATH and {claude_json_path()} lists no `anamnesis` MCP server; "
        f"if Claude Code has one, remove it with:{before}{line}"
    )


def write_settings(path: Path, before: str | None, settings: dict[str, Any]) -> Path | None:
    """Write settings.json atomically, after saving the previous version; return the backup.

    A symlinked settings.json (dotfile managers do that) is written through the link.
    """
    return write_with_backup(path, before, hooks_settings.render(settings))


def _parsed(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return None
