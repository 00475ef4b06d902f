"""The hooks, declared once (:data:`HOOKS`): each hook's name, the function that runs it and
its flags. Everything else derives from this table: the dispatcher (``python -m
anamnesis.hooks NAME``) and the CLI's entry points (``anamnesis NAME``, and which command
lines go to the hooks before the CLI's own parser loads). Where each coding agent runs a
hook (event, matcher, timeout, async) is the table of agents' (:mod:`.agents.table`), from
which ``anamnesis init`` writes each agent's hook configuration.

The table names its runners as ``"module:function"`` text, imported only when that hook
runs (:func:`resolve`): reading the table loads no hook's code, so a session start's hook
process pays for its own hook alone.
"""

from __future__ import annotations

from importlib import import_module

from anamnesis.hooks.agents.table import AGENTS
from anamnesis.store import Record

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping
    from typing import Any


class HookSpec(Record):
    """One hook.

    ``runner`` (``"module:function"``) runs it with the parsed flags; ``check``, when set,
    checks them first (a bad value is a bad command line, said at once rather than
    logged as a failure). ``values`` maps each flag taking a value to its allowed values
    (None: any); ``switches`` are the flags without one. ``help`` is what ``anamnesis NAME
    --help`` says; where each agent runs it is the table of agents' (:mod:`.agents.table`).
    ``background``: no session
    waits on it, so it yields the CPU to the hooks sessions do wait on (and its installed
    command starts with ``nice``). ``internal``: only the hooks start it, as a process of
    their own; it is no command. ``hook_form``: the flag that marks the hook form of a CLI
    command with the hook's name (``sync --quiet``; the person's ``anamnesis sync`` is the
    CLI's); None: ``anamnesis NAME`` is always the hook.
    """

    __slots__ = (
        "name", "runner", "values", "switches", "check", "help", "background", "internal",
        "hook_form",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        runner: str,
        *,
        values: Mapping[str, Collection[str] | None],
        switches: tuple[str, ...],
        check: str | None = None,
        help: str = "",
        background: bool = False,
        internal: bool = False,
        hook_form: str | None = None,
    ) -> None:
        self.name = name
        self.runner = runner
        self.values = values
        self.switches = switches
        self.check = check
        self.help = help
        self.background = background
        self.internal = internal
        self.hook_form = hook_form


def resolve(target: str) -> Callable[..., Any]:
    """The function a ``"module:function"`` text names, its module imported now."""
    module, _, name = target.partition(":")
    function: Callable[..., Any] = getattr(import_module(module), name)
    return function


_RUNNERS = "anamnesis.hooks.runners"
# What `anamnesis NAME --help` says of each hook.
_INJECT_HELP = """SessionStart hook: print the notes that matter for this project.

Options: --cwd DIR, --project KEY, --format text|json, --k N, --budget CHARS, --agent NAME.
Reads the agent's hook JSON on stdin; always exits 0 (problems go to <home>/logs/hooks.log)."""
_PROMPT_HELP = """UserPromptSubmit hook: add up to 3 of this project's notes related to the prompt.

Options: --cwd DIR, --project KEY, --format text|json, --budget CHARS, --session-id ID,
--agent NAME. Leaves out notes the session was already shown; nothing for short prompts and
slash commands; off with `anamnesis config set prompt_recall.enabled false`. Reads the
agent's hook JSON on stdin; always exits 0 (problems go to <home>/logs/hooks.log)."""
_CAPTURE_HELP = """SessionEnd / PreCompact hook: turn the session transcript into one episodic note.

Options: --transcript FILE, --session-id ID, --cwd DIR, --source session-end|precompact,
--agent NAME (whose session file it is: claude-code unless named), --no-sync. Reads the
agent's hook JSON on stdin; always exits 0."""


# The agent a hook runs for (claude-code unless named): its output's event names, its
# session reader, the note's provenance. A live view: an agent added to the table is taken.
_AGENT = AGENTS.keys()
# In the order the usage line and `anamnesis --help` list them. A new hook is one entry here
# (and, for each agent that runs it, one in the table of agents).
HOOKS: dict[str, HookSpec] = {
    spec.name: spec
    for spec in (
        HookSpec(
            "inject", f"{_RUNNERS}:run_inject", check=f"{_RUNNERS}:check_inject",
            values={"cwd": None, "project": None, "format": ("text", "json"), "k": None,
                    "budget": None, "source": None, "session-id": None, "agent": _AGENT},
            switches=("no-stdin",),
            help=_INJECT_HELP,
        ),
        HookSpec(
            "prompt", f"{_RUNNERS}:run_prompt", check=f"{_RUNNERS}:check_prompt",
            values={"cwd": None, "project": None, "format": ("text", "json"), "budget": None,
                    "session-id": None, "agent": _AGENT},
            switches=("no-stdin",),
            help=_PROMPT_HELP,
        ),
        HookSpec(
            "capture", f"{_RUNNERS}:run_capture",
            values={"transcript": None, "session-id": None, "cwd": None,
                    "source": ("session-end", "precompact"), "agent": _AGENT},
            switches=("no-stdin", "no-sync"),
            help=_CAPTURE_HELP,
        ),
        HookSpec(
            "sync", f"{_RUNNERS}:run_sync",
            values={"agent": _AGENT}, switches=("no-stdin", "quiet", "no-import", "detach"),
            background=True, hook_form="--quiet",
        ),
        # The worker a capture starts (background.start_worker): it files the queued
        # captures, and syncs when asked.
        HookSpec(
            "worker", f"{_RUNNERS}:run_background", values={}, switches=(),
            background=True, internal=True,
        ),
    )
}  # fmt: skip


def commands() -> list[str]:
    """The hooks a command line may name (not the internal ones), in the table's order."""
    return [name for name, spec in HOOKS.items() if not spec.internal]
