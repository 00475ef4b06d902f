"""The agents, declared once (:data:`AGENTS`): for each coding agent the hooks serve, where
its configuration lives, which of its events runs which hook (with the flags, matcher and
timeout it gets), the shape of output it reads back, and the reader of its session files.

The table of hooks (:data:`~anamnesis.hooks.registry.HOOKS`) says what a hook does; this
table says where each agent runs it. A new agent is one :class:`AgentSpec` here plus the
reader of its session files (a module of this folder); everything else derives from the
entry: the hook commands ``anamnesis init --agent NAME`` writes (every command of an agent
other than :data:`DEFAULT_AGENT` carries ``--agent NAME``), the event name each hook's
output names, and which reader capture uses.

Readers are named as ``"module:function"`` text, imported only when a capture runs, like
the hooks' runners: reading the table loads no agent's code.
"""

from __future__ import annotations

import os
from pathlib import Path

from anamnesis.store import Record

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from collections.abc import Callable

    from anamnesis.hooks.agents.session_lines import ParsedSession

# The agent a hook command without ``--agent`` serves: Claude Code, whose commands were
# written before there was a table of agents and stay as they were.
DEFAULT_AGENT = "claude-code"
# Output shapes a hook's stdout can take (:func:`~anamnesis.hooks.hookio.hook_output`):
# ``hook-specific-output`` is ``{"hookSpecificOutput": {"hookEventName": EVENT,
# "additionalContext": TEXT}}`` (Claude Code, Codex, Gemini CLI); ``additional-context`` is
# ``{"additionalContext": TEXT}`` (GitHub Copilot CLI); ``text`` is the text alone.
OUTPUT_SHAPES = ("hook-specific-output", "additional-context", "text")


class AgentHook(Record):
    """One entry an agent's hook configuration gets: the hook it runs (a name in ``HOOKS``),
    the agent's event and matcher, the flags after the hook's name, its timeout in seconds,
    and whether the agent runs it without waiting (``run_async``)."""

    __slots__ = ("hook", "event", "matcher", "flags", "timeout", "run_async")

    def __init__(
        self,
        hook: str,
        event: str,
        matcher: str | None,
        flags: tuple[str, ...],
        timeout: int,
        run_async: bool = False,
    ) -> None:
        self.hook = hook
        self.event = event
        self.matcher = matcher
        self.flags = flags
        self.timeout = timeout
        self.run_async = run_async


class AgentSpec(Record):
    """One coding agent.

    ``name`` is what ``--agent`` and ``init --agent`` take, and what a note records as the
    agent that wrote it; ``label`` is what a person reads; ``command`` is the program the
    agent is started with (how a machine is seen to have it). ``hooks`` are the entries its
    hook configuration gets. ``reader`` (``"module:function"``) turns one of its session
    files into a :class:`~.session_lines.ParsedSession`. ``config_env`` names the variable
    that moves its configuration folder, ``config_dir`` the folder under the home directory
    otherwise, ``hooks_file`` the file in it that holds the hooks; ``timeout_scale`` turns
    the table's seconds into the unit that file counts in (1000 for milliseconds).
    ``output`` is the shape of what a hook prints for it (:data:`OUTPUT_SHAPES`).
    ``env_names_home``: the variable names a home directory that ``config_dir`` is under
    (Gemini CLI's ``GEMINI_CLI_HOME``), not the folder itself. ``prompt_additions``: the tag
    the agent wraps around what hooks added to a prompt before a later hook reads it (Gemini
    CLI puts SessionStart's context in the first prompt as
    ``<hook_context>...</hook_context>``): prompt recall looks past it.
    """

    __slots__ = (
        "name", "label", "command", "hooks", "reader", "config_env", "config_dir", "hooks_file",
        "timeout_scale", "output", "env_names_home", "prompt_additions",
    )  # fmt: skip

    def __init__(
        self,
        name: str,
        label: str,
        *,
        command: str,
        hooks: tuple[AgentHook, ...],
        reader: str,
        config_env: str,
        config_dir: str,
        hooks_file: str,
        timeout_scale: int = 1,
        output: str = "hook-specific-output",
        env_names_home: bool = False,
        prompt_additions: str | None = None,
    ) -> None:
        self.name = name
        self.label = label
        self.command = command
        self.hooks = hooks
        self.reader = reader
        self.config_env = config_env
        self.config_dir = config_dir
        self.hooks_file = hooks_file
        self.timeout_scale = timeout_scale
        self.output = output
        self.env_names_home = env_names_home
        self.prompt_additions = prompt_additions

    def config_home(self) -> Path:
        """The agent's configuration folder on this machine: its variable, else the
        folder under the home directory (read now: a test or a person may move it)."""
        raw = os.environ.get(self.config_env)
        if raw and self.env_names_home:
            return Path(raw).expanduser() / self.config_dir
        return Path(raw).expanduser() if raw else Path.home() / self.config_dir

    def hooks_path(self) -> Path:
        """The file the agent reads its hooks from."""
        return self.config_home() / self.hooks_file

    def command_args(self, entry: AgentHook) -> tuple[str, ...]:
        """The arguments after the executable in the command of ``entry``: the hook's
        name, ``--agent NAME`` (for every agent but :data:`DEFAULT_AGENT`), its flags."""
        agent = () if self.name == DEFAULT_AGENT else ("--agent", self.name)
        return (entry.hook, *agent, *entry.flags)

    def event_for(self, hook: str) -> str | None:
        """The event this agent runs ``hook`` on (its first entry's), for the output that
        names it; None when the agent does not run it."""
        return next((entry.event for entry in self.hooks if entry.hook == hook), None)

    def read_session(self) -> Callable[[str | Path], ParsedSession]:
        """The reader of this agent's session files, its module imported now."""
        from importlib import import_module  # capture's alone

        module, _, name = self.reader.partition(":")
        reader: Callable[[str | Path], ParsedSession] = getattr(import_module(module), name)
        return reader


# Timeouts are seconds. Claude Code: SessionEnd hooks share a 1.5 s budget unless a hook
# asks for more (at most 60 s): capture queues its note in well under a second, taking no
# lock, and leaves filing it and the sync to a background process. The prompt hook holds up
# every prompt: it takes tens of milliseconds, and a short timeout lets the prompt go on
# should it ever hang. In the order `init` writes them.
AGENTS: dict[str, AgentSpec] = {
    spec.name: spec
    for spec in (
        AgentSpec(
            "claude-code", "Claude Code", command="claude",
            hooks=(
                AgentHook("inject", "SessionStart", "startup|resume|clear|compact",
                          ("--format", "json"), 15),
                AgentHook("prompt", "UserPromptSubmit", None, ("--format", "json"), 5),
                AgentHook("capture", "SessionEnd", None, (), 10),
                AgentHook("capture", "PreCompact", None,
                          ("--source", "precompact", "--no-sync"), 60),
                AgentHook("sync", "SessionStart", "startup|resume", ("--quiet",), 120,
                          run_async=True),
            ),
            reader="anamnesis.hooks.transcript:parse_transcript",
            config_env="CLAUDE_CONFIG_DIR", config_dir=".claude", hooks_file="settings.json",
        ),
        # Codex CLI (docs/agents/codex.md has the sources). Its hooks.json has Claude Code's
        # shape, its SessionStart sources are Claude Code's too, and it reads the same
        # hookSpecificOutput. Stop ends each turn, not the session: capturing there keeps the
        # session's one note current (its id comes from the session), without a sync, and
        # Codex does not wait on it (async). SessionEnd, at most 3 s (Codex cuts a longer
        # timeout to that, with a warning at every start), captures the whole session and
        # syncs. PreCompact captures before the earlier turns are summarized away.
        AgentSpec(
            "codex", "Codex CLI", command="codex",
            hooks=(
                AgentHook("inject", "SessionStart", "startup|resume|clear|compact",
                          ("--format", "json"), 15),
                AgentHook("prompt", "UserPromptSubmit", None, ("--format", "json"), 5),
                AgentHook("capture", "Stop", None, ("--no-sync",), 10, run_async=True),
                AgentHook("capture", "PreCompact", None,
                          ("--source", "precompact", "--no-sync"), 60),
                AgentHook("capture", "SessionEnd", None, (), 3),
                AgentHook("sync", "SessionStart", "startup|resume", ("--quiet",), 120,
                          run_async=True),
            ),
            reader="anamnesis.hooks.agents.codex_rollout:parse_rollout",
            config_env="CODEX_HOME", config_dir=".codex", hooks_file="hooks.json",
        ),
        # Gemini CLI (docs/agents/gemini.md): hooks in settings.json, of Claude Code's shape,
        # timeouts in milliseconds; every hook of one event runs in parallel and is waited
        # for (no async), so the sync only starts the background worker (--detach).
        # SessionEnd is awaited at exit; PreCompress is left out: it fires before every
        # turn's compression check, compressing or not, and the chat file keeps every message.
        AgentSpec(
            "gemini", "Gemini CLI", command="gemini",
            hooks=(
                AgentHook("inject", "SessionStart", None, ("--format", "json"), 15),
                AgentHook("prompt", "BeforeAgent", None, ("--format", "json"), 5),
                AgentHook("capture", "SessionEnd", None, (), 10),
                AgentHook("sync", "SessionStart", None, ("--quiet", "--detach"), 10),
            ),
            reader="anamnesis.hooks.agents.gemini_chat:parse_gemini_chat",
            config_env="GEMINI_CLI_HOME", config_dir=".gemini", hooks_file="settings.json",
            timeout_scale=1000, env_names_home=True, prompt_additions="hook_context",
        ),
        # GitHub Copilot CLI (docs/agents/copilot.md): a hooks file of its own in the hooks
        # folder, events in the VS Code-compatible (PascalCase) form, whose input has Claude
        # Code's snake_case fields; context comes back as a top-level additionalContext.
        # SessionEnd carries no transcript path: Stop (the end of every turn, with the
        # session's events file) captures, and SessionEnd starts the sync.
        AgentSpec(
            "copilot", "GitHub Copilot CLI", command="copilot",
            hooks=(
                AgentHook("inject", "SessionStart", None, ("--format", "json"), 15),
                AgentHook("prompt", "UserPromptSubmit", None, ("--format", "json"), 5),
                AgentHook("capture", "Stop", None, ("--no-sync",), 10),
                AgentHook("sync", "SessionStart", None, ("--quiet", "--detach"), 10),
                AgentHook("sync", "SessionEnd", None, ("--quiet", "--detach"), 10),
            ),
            reader="anamnesis.hooks.agents.copilot_events:parse_copilot_events",
            config_env="COPILOT_HOME", config_dir=".copilot",
            hooks_file="hooks/anamnesis.json", output="additional-context",
        ),
    )
}  # fmt: skip
