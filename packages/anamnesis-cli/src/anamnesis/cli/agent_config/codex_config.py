"""Codex CLI's configuration as `anamnesis init --agent codex` writes it, and takes back.

Two files in Codex's folder (``$CODEX_HOME``, else ``~/.codex``; docs/agents/codex.md has
the sources):

* ``config.toml``: the MCP server, as the table ``[mcp_servers.anamnesis]`` (command, args
  and env, the shape `codex mcp add` writes). The person's comments and layout are theirs:
  only that table's lines are added or removed (:mod:`.toml_tables`, every edit checked
  with tomllib), so removing it gives the file back byte for byte. A server of that name
  that is not ours (another command) is left alone and said.
* ``hooks.json``: the hooks, Claude Code's shape, written by the same code as Claude Code's
  settings (:mod:`.hooks_settings`, from the table of agents' Codex entry).

No feature flag is written: Codex 0.171.0 runs hooks unless ``[features] hooks = false``
(or its older name ``codex_hooks = false``) says otherwise, and that is the person's choice,
which `init` and `doctor` report rather than overrule. Codex runs a hook only once the person
has trusted it (``/hooks`` in Codex): `init` says so, `doctor` asks Codex which of ours are
trusted (:mod:`.codex_trust`).
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anamnesis.cli.agent_config import hooks_settings, toml_tables
from anamnesis.cli.agent_config.files import remove_with_backup, write_with_backup
from anamnesis.hooks import AGENTS

AGENT = "codex"
SERVER_NAME = "anamnesis"
SERVER_KEY = ("mcp_servers", SERVER_NAME)
CONFIG_TOML = "config.toml"
# The switch that turns Codex's hooks off, under its current name and its older one.
HOOK_FLAGS = ("hooks", "codex_hooks")
TRUST_HINT = "Codex runs new hooks only once you trust them: start `codex` and type /hooks"


class CodexConfigError(ValueError):
    """Codex's configuration cannot be read or edited without guessing: nothing changed."""


def codex_home() -> Path:
    """Codex's folder: ``$CODEX_HOME``, else ``~/.codex`` (the table of agents says)."""
    return AGENTS[AGENT].config_home()


def config_path() -> Path:
    return codex_home() / CONFIG_TOML


def hooks_path() -> Path:
    return AGENTS[AGENT].hooks_path()


def server_table(command: list[str], env: dict[str, str]) -> dict[str, Any]:
    """Our ``[mcp_servers.anamnesis]``: what `codex mcp add anamnesis --env K=V -- CMD
    serve` writes."""
    return {"command": command[0], "args": [*command[1:], "serve"], "env": dict(env)}


def add_argv(command: list[str], env: dict[str, str]) -> list[str]:
    """The `codex mcp add` line that registers the same server (said where we cannot)."""
    argv = ["codex", "mcp", "add", SERVER_NAME]
    for name, value in sorted(env.items()):
        argv += ["--env", f"{name}={value}"]
    return [*argv, "--", *command, "serve"]


def is_our_server(entry: object) -> bool:
    """A server we wrote: this or another installation's `anamnesis ... serve`."""
    if not isinstance(entry, dict):
        return False
    command, args = entry.get("command"), entry.get("args") or []
    if not isinstance(command, str) or not isinstance(args, list) or args[-1:] != ["serve"]:
        return False
    program = Path(command).name
    if program in ("anamnesis", "anamnesis.exe"):
        return args == ["serve"]
    return program.startswith("python") and args == ["-m", "anamnesis.cli", "serve"]


def read_text(path: Path) -> str | None:
    """The file's text, newlines as they are (None when there is no file)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise CodexConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CodexConfigError(f"{path} is not UTF-8 text; Codex cannot read it either") from None


def read_config(path: Path) -> tuple[str | None, dict[str, Any]]:
    """config.toml's text and data; :class:`CodexConfigError` when it is not TOML."""
    text = read_text(path)
    if text is None:
        return None, {}
    try:
        return text, toml_tables.parse(text, str(path))
    except toml_tables.TomlEditError as exc:
        raise CodexConfigError(f"{exc}; fix it, then run this again") from None


def hooks_turned_off(data: dict[str, Any]) -> str | None:
    """The setting of config.toml that turns Codex's hooks off, if one does."""
    features = data.get("features")
    if not isinstance(features, dict):
        return None
    for flag in HOOK_FLAGS:
        if features.get(flag) is False:
            return f"[features] {flag} = false"
    return None


def set_up() -> bool:
    """Whether Codex has any of ours: a hook in hooks.json or the server in config.toml
    (a file that cannot be read counts as not)."""
    try:
        _text, data = read_config(config_path())
        hooks_text = read_text(hooks_path())
        hooks = hooks_settings.parse_settings(hooks_text, hooks_path()) if hooks_text else {}
    except (CodexConfigError, hooks_settings.InvalidSettings):
        return False
    return bool(hooks_settings.our_hooks(hooks)) or is_our_server(
        toml_tables.lookup(data, SERVER_KEY)
    )


@dataclass(slots=True)
class CodexPlan:
    """What `init --agent codex` changes in Codex's folder (computed, nothing written)."""

    config_file: Path
    config_before: str | None
    config_after: str | None  # None: config.toml stays as it is
    # "add" | "replace" | "current" | "foreign" (a server of our name that is not ours)
    # | "no-extra" (the MCP server is not installed)
    server: str
    hooks_file: Path
    hooks_before: str | None
    hooks_after: dict[str, Any]
    command: list[str]
    env: dict[str, str]
    hooks_off: str | None = None

    @property
    def hooks_changed(self) -> bool:
        return self.hooks_before is None or _json(self.hooks_before) != self.hooks_after


@dataclass(slots=True)
class CodexUninstallPlan:
    config_file: Path
    config_before: str | None
    config_after: str | None  # None: nothing of ours in config.toml
    hooks_file: Path
    hooks_before: str | None
    hooks_after: dict[str, Any]
    removed_hooks: list[tuple[str, str]] = field(default_factory=list)
    foreign_server: bool = False


def plan_codex(command: list[str], env: dict[str, str], *, mcp_extra: bool) -> CodexPlan:
    """Everything `init --agent codex` would change; raises :class:`CodexConfigError` on a
    file it cannot edit safely, before anything is written."""
    config_file, hooks_file = config_path(), hooks_path()
    text, data = read_config(config_file)
    hooks_before, hooks_data = _read_hooks(hooks_file)
    wanted = server_table(command, env)
    existing = toml_tables.lookup(data, SERVER_KEY)
    after: str | None = None
    if not mcp_extra:
        server = "no-extra"
    elif existing is None:
        server, after = "add", _edit(text or "", wanted, config_file, command, env)
    elif not is_our_server(existing):
        server = "foreign"
    elif existing == wanted:
        server = "current"
    else:
        server, after = "replace", _edit(text or "", wanted, config_file, command, env)
    return CodexPlan(
        config_file=config_file,
        config_before=text,
        config_after=after,
        server=server,
        hooks_file=hooks_file,
        hooks_before=hooks_before,
        hooks_after=hooks_settings.with_ours(hooks_data, command, env, agent=AGENT),
        command=command,
        env=env,
        hooks_off=hooks_turned_off(data),
    )


def _edit(
    text: str, table: dict[str, Any], path: Path, command: list[str], env: dict[str, str]
) -> str:
    try:
        return toml_tables.with_table(text, SERVER_KEY, table, str(path))
    except toml_tables.TomlEditError as exc:
        raise CodexConfigError(
            f"{exc}; or register the server with Codex's own command: "
            f"{shlex.join(add_argv(command, env))}"
        ) from None


def _read_hooks(path: Path) -> tuple[str | None, dict[str, Any]]:
    text = read_text(path)
    if text is None:
        return None, {}
    try:
        return text, hooks_settings.parse_settings(text, path)
    except hooks_settings.InvalidSettings as exc:
        raise CodexConfigError(str(exc)) from None


def describe_codex(plan: CodexPlan) -> list[str]:
    """The plan in words, for `--print` and the confirmation prompt."""
    lines = []
    if plan.hooks_changed:
        lines.append(f"codex:   {plan.hooks_file} will hold these hooks:")
    else:
        lines.append(f"codex:   {plan.hooks_file} already holds these hooks:")
    for spec in hooks_settings.hook_entries(AGENT):
        matcher = f" [{spec.matcher}]" if spec.matcher else ""
        mode = ", async" if spec.run_async else ""
        lines.append(f"         {spec.event}{matcher} (timeout {spec.timeout}s{mode}):")
        lines.append(f"           {hooks_settings.hook_command(plan.command, spec, plan.env)}")
    lines.append("         Codex runs them once you trust them: `codex`, then /hooks")
    lines += _describe_server(plan)
    if plan.hooks_off:
        lines.append(f"         {plan.config_file} has {plan.hooks_off}: Codex runs no hooks")
    return lines


def _describe_server(plan: CodexPlan) -> list[str]:
    table = f"[mcp_servers.{SERVER_NAME}]"
    if plan.server == "no-extra":
        return ["         MCP server: skipped (not installed)"]
    if plan.server == "current":
        return [
            f"         MCP server: {table} already current in",
            f"           {plan.config_file}",
        ]
    if plan.server == "foreign":
        return [
            f"         MCP server: {table} in {plan.config_file}",
            "           runs another command: left as it is",
        ]
    verb = "added to" if plan.server == "add" else "updated in"
    return [
        f"         MCP server: {table} will be {verb}",
        f"           {plan.config_file} (its other lines stay as they are)",
    ]


def apply_codex(plan: CodexPlan) -> tuple[list[str], list[str]]:
    """Write the plan; the lines to say and the problems (which make init's status 1)."""
    lines: list[str] = []
    problems: list[str] = []
    if plan.hooks_changed:
        backup = write_with_backup(
            plan.hooks_file, plan.hooks_before, hooks_settings.render(plan.hooks_after)
        )
        saved = f" (previous version: {backup})" if backup else ""
        lines.append(f"installed the Codex hooks in {plan.hooks_file}{saved}")
    else:
        lines.append(f"Codex hooks already installed in {plan.hooks_file}")
    lines.append(TRUST_HINT)
    if plan.config_after is not None:
        backup = write_with_backup(plan.config_file, plan.config_before, plan.config_after)
        saved = f" (previous version: {backup})" if backup else ""
        lines.append(f"registered the MCP server in {plan.config_file}{saved}")
    elif plan.server == "current":
        lines.append(f"MCP server already registered in {plan.config_file}")
    elif plan.server == "foreign":
        problems.append(
            f"{plan.config_file} has an MCP server named {SERVER_NAME} that runs another "
            "command; remove it with `codex mcp remove anamnesis`, then run this again"
        )
    if plan.hooks_off:
        problems.append(
            f"{plan.config_file} has {plan.hooks_off}, so Codex runs none of its hooks; "
            "remove that line to let them run"
        )
    return lines, problems


def plan_codex_uninstall() -> CodexUninstallPlan:
    config_file, hooks_file = config_path(), hooks_path()
    text, data = read_config(config_file)
    hooks_before, hooks_data = _read_hooks(hooks_file)
    existing = toml_tables.lookup(data, SERVER_KEY)
    after = None
    if existing is not None and is_our_server(existing):
        try:
            after = toml_tables.without_table(text or "", SERVER_KEY, str(config_file))
        except toml_tables.TomlEditError as exc:
            raise CodexConfigError(str(exc)) from None
    return CodexUninstallPlan(
        config_file=config_file,
        config_before=text,
        config_after=after,
        hooks_file=hooks_file,
        hooks_before=hooks_before,
        hooks_after=hooks_settings.without_ours(hooks_data),
        removed_hooks=hooks_settings.our_hooks(hooks_data),
        foreign_server=existing is not None and after is None,
    )


def describe_codex_uninstall(plan: CodexUninstallPlan) -> list[str]:
    lines = []
    if plan.removed_hooks:
        lines.append(f"codex:   remove {len(plan.removed_hooks)} hooks from {plan.hooks_file}:")
        lines += [f"         {event}: {command}" for event, command in plan.removed_hooks]
    else:
        lines.append(f"codex:   none of our hooks in {plan.hooks_file}")
    if plan.config_after is not None:
        lines.append(f"         remove [mcp_servers.{SERVER_NAME}] from {plan.config_file}")
    elif plan.foreign_server:
        lines.append(f"         [mcp_servers.{SERVER_NAME}] runs another command: left as it is")
    else:
        lines.append(f"         no MCP server of ours in {plan.config_file}")
    return lines


def apply_codex_uninstall(plan: CodexUninstallPlan) -> list[str]:
    lines = []
    if plan.removed_hooks and plan.hooks_before is not None:
        if plan.hooks_after:
            rendered = hooks_settings.render(plan.hooks_after)
            backup = write_with_backup(plan.hooks_file, plan.hooks_before, rendered)
        else:  # nothing but ours was in it
            backup = remove_with_backup(plan.hooks_file, plan.hooks_before)
        lines.append(
            f"removed {len(plan.removed_hooks)} hook(s) from {plan.hooks_file} "
            f"(previous version: {backup})"
        )
    else:
        lines.append(f"no Anamnesis hooks in {plan.hooks_file}")
    if plan.config_after is not None and plan.config_before is not None:
        if plan.config_after:
            backup = write_with_backup(plan.config_file, plan.config_before, plan.config_after)
        else:
            backup = remove_with_backup(plan.config_file, plan.config_before)
        lines.append(f"removed the MCP server from {plan.config_file} (previous version: {backup})")
    return lines


def _json(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return None
