"""The hooks, declared once (:data:`HOOKS`): each hook's name, the function that runs it, its
flags, and where Claude Code runs it (event, matcher, timeout, async). Everything else
derives from this table: the dispatcher (``python -m anamnesis.hooks NAME``), the CLI's
entry points (``anamnesis NAME``, and which command lines go to the hooks before the CLI's
own parser loads) and the settings ``anamnesis init`` writes into Claude Code.

The table names its runners as ``"module:function"`` text, imported only when that hook
runs (:func:`resolve`): reading the table loads no hook's code, so a session start's hook
process pays for its own hook alone.
"""

from __future__ import annotations

from importlib import import_module

from anamnesis.store import Record

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any


class ClaudeCodeHook(Record):
    """One entry ``anamnesis init`` writes into Claude Code's settings for a hook: the event
    and matcher it runs on, the flags after the hook's name, its timeout in seconds, and
    whether Claude Code runs it without waiting (``run_async``)."""

    __slots__ = ("event", "matcher", "flags", "timeout", "run_async")

    def __init__(
        self,
        event: str,
        matcher: str | None,
        flags: tuple[str, ...],
        timeout: int,
        run_async: bool = False,
    ) -> None:
        self.event = event
        self.matcher = matcher
        self.flags = flags
        self.timeout = timeout
        self.run_async = run_async


class HookSpec(Record):
    """One hook.

    ``runner`` (``"module:function"``) runs it with the parsed flags; ``check``, when set,
    checks them first (a bad value is a bad command line, said at once rather than
    logged as a failure). ``values`` maps each flag taking a value to its allowed values
    (None: any); ``switches`` are the flags without one. ``help`` is what ``anamnesis NAME
    --help`` says. ``claude_code`` is what ``init`` installs. ``background``: no session
    waits on it, so it yields the CPU to the hooks sessions do wait on (and its installed
    command starts with ``nice``). ``internal``: only the hooks start it, as a process of
    their own; it is no command. ``hook_form``: the flag that marks the hook form of a CLI
    command with the hook's name (``sync --quiet``; the person's ``anamnesis sync`` is the
    CLI's); None: ``anamnesis NAME`` is always the hook.
    """

    __slots__ = (
        "name", "runner", "values", "switches", "check", "help", "claude_code", "background",
        "internal", "hook_form",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        runner: str,
        *,
        values: Mapping[str, tuple[str, ...] | None],
        switches: tuple[str, ...],
        check: str | None = None,
        help: str = "",
        claude_code: tuple[ClaudeCodeHook, ...] = (),
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
        self.claude_code = claude_code
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

Options: --cwd DIR, --project KEY, --format text|json, --k N, --budget CHARS. Reads
Claude Code's hook JSON on stdin; always exits 0 (problems go to <home>/logs/hooks.log)."""
_PROMPT_HELP = """UserPromptSubmit hook: add up to 3 of this project's notes related to the prompt.

Options: --cwd DIR, --project KEY, --format text|json, --budget CHARS, --session-id ID.
Leaves out notes the session was already shown; nothing for short prompts and slash
commands; off with `anamnesis config set prompt_recall.enabled false`. Reads Claude
Code's hook JSON on stdin; always exits 0 (problems go to <home>/logs/hooks.log)."""
_CAPTURE_HELP = """SessionEnd / PreCompact hook: turn the session transcript into one episodic note.

Options: --transcript FILE, --session-id ID, --cwd DIR, --source session-end|precompact,
--no-sync. Reads Claude Code's hook JSON on stdin; always exits 0."""


# Timeouts are seconds. SessionEnd hooks share a 1.5 s budget unless a hook asks for more (at
# most 60 s): capture queues its note in well under a second, taking no lock, and leaves
# filing it and the sync to a background process. The prompt hook holds up every prompt: it
# takes tens of milliseconds, and a short timeout lets the prompt go on should it ever hang.
# In the order the usage line and `anamnesis --help` list them. A new hook is one entry here.
HOOKS: dict[str, HookSpec] = {
    spec.name: spec
    for spec in (
        HookSpec(
            "inject", f"{_RUNNERS}:run_inject", check=f"{_RUNNERS}:check_inject",
            values={"cwd": None, "project": None, "format": ("text", "json"), "k": None,
                    "budget": None, "source": None, "session-id": None},
            switches=("no-stdin",),
            help=_INJECT_HELP,
            claude_code=(
                ClaudeCodeHook("SessionStart", "startup|resume|clear|compact",
                               ("--format", "json"), 15),
            ),
        ),
        HookSpec(
            "prompt", f"{_RUNNERS}:run_prompt", check=f"{_RUNNERS}:check_prompt",
            values={"cwd": None, "project": None, "format": ("text", "json"), "budget": None,
                    "session-id": None},
            switches=("no-stdin",),
            help=_PROMPT_HELP,
            claude_code=(ClaudeCodeHook("UserPromptSubmit", None, ("--format", "json"), 5),),
        ),
        HookSpec(
            "capture", f"{_RUNNERS}:run_capture",
            values={"transcript": None, "session-id": None, "cwd": None,
                    "source": ("session-end", "precompact")},
            switches=("no-stdin", "no-sync"),
            help=_CAPTURE_HELP,
            claude_code=(
                ClaudeCodeHook("SessionEnd", None, (), 10),
                ClaudeCodeHook("PreCompact", None, ("--source", "precompact", "--no-sync"), 60),
            ),
        ),
        HookSpec(
            "sync", f"{_RUNNERS}:run_sync",
            values={}, switches=("no-stdin", "quiet", "no-import"),
            claude_code=(
                ClaudeCodeHook("SessionStart", "startup|resume", ("--quiet",), 120,
                               run_async=True),
            ),
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
