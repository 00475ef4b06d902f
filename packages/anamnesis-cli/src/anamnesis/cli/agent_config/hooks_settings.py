"""Anamnesis' hooks in Claude Code's settings.json: which entries are ours, merge, remove.

A user's settings hold their own hooks, possibly next to ours in one group. Ours are found
by the exact shape of the commands we write (optional ``ANAMNESIS_*=...`` assignments, an
optional ``nice -n N``, an executable named ``anamnesis``, then the arguments of one of
:func:`hook_entries`), never by a substring that someone else's command could also contain.
Which entries there are comes from the hooks package's table of agents
(:data:`anamnesis.hooks.AGENTS`, Claude Code's entry), read each time: nothing about a hook
is written here.
"""

from __future__ import annotations

import copy
import json
import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from anamnesis.hooks import AGENTS, DEFAULT_AGENT, HOOKS
from anamnesis.store import BACKGROUND_NICE


class InvalidSettings(ValueError):
    """settings.json cannot be read as Claude Code settings: nothing was changed."""


@dataclass(frozen=True, slots=True)
class HookEntry:
    """One hook group Anamnesis installs: an agent's entry of a hook in the table of agents,
    with the arguments after the executable (the hook's name, then its flags)."""

    event: str
    matcher: str | None
    args: tuple[str, ...]
    timeout: int
    run_async: bool = False
    # Work no session waits on, started at a lower CPU priority than the hooks sessions do
    # wait on (``nice``, from the first instruction: see store.yield_to_sessions).
    background: bool = False


def hook_entries(agent: str = DEFAULT_AGENT) -> list[HookEntry]:
    """Every hook group Anamnesis installs for ``agent``, as the table of agents has them
    now (in its order)."""
    spec = AGENTS[agent]
    return [
        HookEntry(
            entry.event,
            entry.matcher,
            spec.command_args(entry),
            entry.timeout,
            entry.run_async,
            HOOKS[entry.hook].background,
        )
        for entry in spec.hooks
    ]


def hook_command(executable: Sequence[str], spec: HookEntry, env: dict[str, str]) -> str:
    """The shell command for one hook: env assignments, ``nice`` for a background hook
    (where there is one), the executable, its arguments."""
    assignments = [f"{name}={shlex.quote(value)}" for name, value in sorted(env.items())]
    words = [shlex.quote(word) for word in (*niced(spec), *executable, *spec.args)]
    return " ".join([*assignments, *words])


def niced(spec: HookEntry, *, posix: bool = os.name == "posix") -> tuple[str, ...]:
    """``nice -n 10`` for a hook no session waits on: it starts below the hooks that sessions
    do wait on, Python's own start-up included (twenty sessions starting together otherwise
    share each session's CPU between its inject hook and this one). POSIX only."""
    return ("nice", "-n", str(BACKGROUND_NICE)) if spec.background and posix else ()


@dataclass(frozen=True, slots=True)
class OurCommand:
    """One of our hooks' commands, read back: its ``ANAMNESIS_*`` variables, the program it
    runs (the ``anamnesis`` script, or a Python running ``-m anamnesis.cli``) and the
    hook's arguments."""

    env: dict[str, str]
    program: str
    args: tuple[str, ...]


def is_our_command(command: object) -> bool:
    """True only for a command with exactly the shape :func:`hook_command` writes."""
    return read_command(command) is not None


def _our_args(command: object) -> tuple[str, ...] | None:
    ours = read_command(command)
    return None if ours is None else ours.args


def read_command(command: object) -> OurCommand | None:
    """One of our hooks' commands read back, or None for any other command."""
    if not isinstance(command, str):
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    env: dict[str, str] = {}
    while words and _is_our_assignment(words[0]):
        name, _, value = words[0].partition("=")
        env[name] = value
        words = words[1:]
    if len(words) > 3 and Path(words[0]).name == "nice" and words[1] == "-n":
        words = words[3:]  # a background hook's priority (older commands have none)
    if not words:
        return None
    program = Path(words[0]).name
    if program in ("anamnesis", "anamnesis.exe"):
        rest = tuple(words[1:])
    elif program.startswith("python") and words[1:3] == ["-m", "anamnesis.cli"]:
        rest = tuple(words[3:])
    else:
        return None
    ours = {entry.args for agent in AGENTS for entry in hook_entries(agent)}
    return OurCommand(env, words[0], rest) if rest in ours else None


def _is_our_assignment(word: str) -> bool:
    name, equals, _value = word.partition("=")
    return bool(equals) and name.startswith("ANAMNESIS_") and name.replace("_", "").isalnum()


def parse_settings(text: str, path: Path) -> dict[str, Any]:
    """Settings as a dict, or :class:`InvalidSettings` saying where and how to fix it."""
    data = json_object(text, path, "is not valid JSON")
    check_hooks_shape(data, path)
    return data


def json_object(text: str, path: Path, problem: str) -> dict[str, Any]:
    """``text`` (the file at ``path``) as a JSON object ({} when blank), or
    :class:`InvalidSettings` saying ``problem`` with where, and how to go on."""
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidSettings(
            f"{path} {problem} (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "fix it or move it aside, then run this again"
        ) from None
    if not isinstance(data, dict):
        raise InvalidSettings(f"{path} must hold a JSON object, not {type(data).__name__}")
    return data


def check_hooks_shape(settings: dict[str, Any], path: Path) -> None:
    """Refuse settings whose ``hooks`` we could not edit without guessing."""
    hooks = settings.get("hooks")
    if hooks is None:
        return
    if not isinstance(hooks, dict):
        raise InvalidSettings(f'{path}: "hooks" must be an object keyed by event name')
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise InvalidSettings(f'{path}: hooks "{event}" must be a list of matcher groups')
        for index, group in enumerate(groups):
            if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
                raise InvalidSettings(
                    f'{path}: hooks "{event}" entry {index} must be an object with a "hooks" list'
                )


def without_ours(settings: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``settings`` with every Anamnesis hook removed and nothing else changed.

    A group is dropped only when removing our entries left it empty; events left with no
    groups are dropped only if we emptied them.
    """
    out = copy.deepcopy(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    for event in list(hooks):
        groups = hooks[event]
        kept_groups = []
        for group in groups:
            entries = group.get("hooks", [])
            kept = [e for e in entries if not (isinstance(e, dict) and _is_ours(e))]
            if len(kept) == len(entries):
                kept_groups.append(group)
            elif kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups or not groups:
            hooks[event] = kept_groups
        else:
            del hooks[event]
    if not hooks and settings["hooks"]:  # we emptied it: leave no trace
        del out["hooks"]
    return out


def with_ours(
    settings: dict[str, Any],
    executable: Sequence[str],
    env: dict[str, str],
    agent: str = DEFAULT_AGENT,
) -> dict[str, Any]:
    """A copy of ``settings`` (the hooks file of ``agent``: Claude Code's settings.json,
    or another agent's file of the same shape) holding exactly one current copy of each
    Anamnesis hook of that agent."""
    out = without_ours(settings)
    hooks = out.setdefault("hooks", {})
    command = lambda spec: hook_command(executable, spec, env)  # noqa: E731
    for event, groups in hook_groups(command, agent).items():
        hooks.setdefault(event, []).extend(groups)
    return out


def hook_groups(
    command: Callable[[HookEntry], str], agent: str = DEFAULT_AGENT
) -> dict[str, list[dict[str, Any]]]:
    """The hook groups of ``agent``, by event, for every entry of :func:`hook_entries`, each
    running ``command(entry)``: what its hooks file holds after `init` (Claude Code's
    settings.json), and what the Claude Code plugin's hooks/hooks.json holds."""
    hooks: dict[str, list[dict[str, Any]]] = {}
    scale = AGENTS[agent].timeout_scale
    for spec in hook_entries(agent):
        entry: dict[str, Any] = {"type": "command", "command": command(spec)}
        entry["timeout"] = spec.timeout * scale
        if spec.run_async:
            entry["async"] = True
        group: dict[str, Any] = {"matcher": spec.matcher} if spec.matcher else {}
        group["hooks"] = [entry]
        hooks.setdefault(spec.event, []).append(group)
    return hooks


def our_hooks(settings: dict[str, Any]) -> list[tuple[str, str]]:
    """(event, command) for every Anamnesis hook present."""
    found = []
    hooks = settings.get("hooks")
    if isinstance(hooks, dict):
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for entry in group.get("hooks", []) if isinstance(group, dict) else []:
                    if isinstance(entry, dict) and _is_ours(entry):
                        found.append((event, entry["command"]))
    return found


def missing_hooks(settings: dict[str, Any], agent: str = DEFAULT_AGENT) -> list[HookEntry]:
    """The hooks of :func:`hook_entries` not installed under their event (a settings.json
    written by an older version lacks the ones added since: `anamnesis init` adds them)."""
    return missing_from(our_hooks(settings), agent)


def missing_from(ours: list[tuple[str, str]], agent: str = DEFAULT_AGENT) -> list[HookEntry]:
    """The hooks of :func:`hook_entries` not among ``ours`` ((event, command) pairs, read
    from a hooks file of any agent's shape)."""
    present = {(event, _our_args(command)) for event, command in ours}
    return [spec for spec in hook_entries(agent) if (spec.event, spec.args) not in present]


def describe_hooks(agent: str, executable: Sequence[str], env: dict[str, str]) -> list[str]:
    """The hooks of ``agent`` in words, two lines each (event, then command), for init's
    plan."""
    lines = []
    for spec in hook_entries(agent):
        matcher = f" [{spec.matcher}]" if spec.matcher else ""
        mode = ", async" if spec.run_async else ""
        lines.append(f"         {spec.event}{matcher} (timeout {spec.timeout}s{mode}):")
        lines.append(f"           {hook_command(executable, spec, env)}")
    return lines


def _is_ours(entry: dict[str, Any]) -> bool:
    return entry.get("type", "command") == "command" and is_our_command(entry.get("command"))


def render(settings: dict[str, Any]) -> str:
    return json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
