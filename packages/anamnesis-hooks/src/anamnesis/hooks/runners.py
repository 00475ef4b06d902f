"""What each hook does, given its parsed flags: the runners the table of hooks names
(:mod:`.registry`), imported only when a hook runs.

Each reads Claude Code's JSON from stdin (flags override it); the dispatcher
(:mod:`.__main__`) runs it failing open. What every hook uses is imported at the top; what
one hook alone uses is imported inside its runner (each marked "this hook's"), so ``inject``
loads neither git nor YAML nor anything else it does not use.
"""

from __future__ import annotations

import sys
from pathlib import Path

from anamnesis.hooks.failopen import log
from anamnesis.hooks.flags import FlagError
from anamnesis.hooks.hookio import hook_output, read_hook_input_checked, text_field
from anamnesis.ops import resolve_project_key
from anamnesis.store import StoreLayout, read_config, resolve_home

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from typing import Any

    from anamnesis.hooks.agents.table import AgentSpec
    from anamnesis.ops import Viewpoint
    from anamnesis.store import MemoryStore

Options = dict[str, "str | bool"]


def _home() -> Path:
    return resolve_home()


def _hook_input(options: Options, hook: str, instead: str) -> dict[str, Any]:
    """Claude Code's hook JSON; input that is not JSON is logged, once, with what the hook
    does ``instead``."""
    if options.get("no-stdin"):
        return {}
    payload, problem = read_hook_input_checked()
    if problem is not None:
        log(_home(), hook, f"{problem}; {instead}")
    return payload


def _text(options: Options, name: str) -> str | None:
    value = options.get(name)
    return value if isinstance(value, str) and value else None


def _number(options: Options, name: str, default: int, low: int, high: int) -> int:
    value = _text(options, name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise FlagError(f"--{name} must be a whole number, got {value!r}") from None
    if not low <= number <= high:
        raise FlagError(f"--{name} must be from {low} to {high}, got {number}")
    return number


def _agent(options: Options) -> AgentSpec | None:
    """The agent ``--agent`` names (the dispatcher checked the name), or None for the
    default, Claude Code, whose commands carry no ``--agent``: its hooks never load the
    table of agents' readers."""
    name = _text(options, "agent")
    if name is None:
        return None
    from anamnesis.hooks.agents.table import AGENTS  # an agent's hook alone

    return AGENTS[name]


def _viewpoint(options: Options, home: Path, project: str) -> Viewpoint:
    """Where a block of notes is read: ``project``, this machine, the agent the hook runs
    for (``--agent``, else the default's): each note's marker leaves those out as said."""
    from anamnesis.hooks.agents.table import DEFAULT_AGENT  # loaded with the table of hooks
    from anamnesis.ops import Viewpoint
    from anamnesis.store import resolve_machine_id

    agent = _text(options, "agent") or DEFAULT_AGENT
    return Viewpoint(project=project, machine=resolve_machine_id(home), agent=agent)


def _output(text: str, options: Options, hook: str, default_event: str) -> str:
    """What the hook prints: ``text`` in the output shape and under the event name of the
    agent it runs for (:func:`.hookio.hook_output`)."""
    fmt = _text(options, "format") or "text"
    agent = _agent(options)
    if agent is None:
        return hook_output(text, fmt=fmt, event=default_event)
    return hook_output(
        text, fmt=fmt, event=agent.event_for(hook) or default_event, shape=agent.output
    )


def check_inject(options: Options) -> None:
    """A bad number is a bad command line, said at once."""
    _inject_numbers(options)


def check_prompt(options: Options) -> None:
    """A bad budget is a bad command line, said at once."""
    _prompt_budget(options, {})


def _inject_numbers(options: Options) -> tuple[int, int]:
    """``--k`` and ``--budget``, checked (the budget must leave room for a note and stay
    under Claude Code's 10,000-character cap on hook output)."""
    from anamnesis.ops import INJECT_BUDGET, INJECT_K, INJECT_MAX_BUDGET, INJECT_MIN_BUDGET

    k = _number(options, "k", INJECT_K, 0, 100)
    return k, _number(options, "budget", INJECT_BUDGET, INJECT_MIN_BUDGET, INJECT_MAX_BUDGET)


def _prompt_budget(options: Options, config: dict[str, Any]) -> int:
    """``--budget``, checked, else the configured budget (:mod:`.recall_settings`)."""
    from anamnesis.hooks.recall_settings import MAX_BUDGET, MIN_BUDGET, recall_budget  # prompt's

    return _number(options, "budget", recall_budget(config), MIN_BUDGET, MAX_BUDGET)


def run_inject(options: Options) -> None:
    payload = _hook_input(options, "inject", "injected for the current folder instead")
    home = _home()
    if not StoreLayout(home).has_notes():  # the layout, not ops' Home: one module less
        return  # no store yet: nothing to inject, and nothing is created
    # this hook's, and only once there is a store to read
    from anamnesis.ops import injected_ids, render_inject, select_inject
    from anamnesis.store import MemoryStore

    # ``source`` (startup, resume, clear, compact) arrives on stdin and as --source, and is
    # deliberately not used: every source starts a context that needs the same memory (after
    # a compaction or a clear the earlier injection is gone). The flag is accepted so that a
    # hook command written with it never fails.
    cwd = _text(options, "cwd") or text_field(payload, "cwd") or str(Path.cwd())
    project = _text(options, "project") or resolve_project_key(cwd)
    k, budget = _inject_numbers(options)
    viewpoint = _viewpoint(options, home, project)
    with MemoryStore(home) as store:
        selection = select_inject(store, project=project, k=k, budget=budget, viewpoint=viewpoint)
    output = _output(render_inject(selection), options, "inject", "SessionStart")
    if output:
        sys.stdout.write(output + "\n")
        sys.stdout.flush()
    session = _text(options, "session-id") or text_field(payload, "session_id")
    _used(store, "injected", injected_ids(selection), project, options, session)
    if session:
        # What the session now holds, for prompt-time recall to leave out. After a
        # compaction or a clear the earlier notes are gone from the context: start afresh.
        source = _text(options, "source") or text_field(payload, "source")
        _record(home, "inject", session, injected_ids(selection), source in ("clear", "compact"))


def _used(
    store: MemoryStore,
    event: str,
    ids: list[str],
    project: str,
    options: Options,
    session: str | None,
) -> None:
    """Record on this machine which notes the session was given (``anamnesis stats``); a
    usage file that cannot be written drops the run, logged by the store, never failing
    the hook."""
    # The agent the hook runs for: --agent's, else Claude Code's (whose hooks carry none;
    # the table is loaded already: the dispatcher's registry reads it).
    from anamnesis.hooks.agents.table import DEFAULT_AGENT

    agent = _text(options, "agent") or DEFAULT_AGENT
    store.usage.record(event, ids, project=project, agent=agent, session=session or "")


def _record(home: Path, hook: str, session: str, ids: list[str], replace: bool) -> bool:
    """Record what a session was shown; False (logged) when the record cannot be written."""
    from anamnesis.hooks.sessions import record_shown  # inject's and prompt's, not capture's

    try:
        record_shown(home, session, ids, replace=replace)
    except OSError as exc:
        log(home, hook, f"cannot record what session {session[:80]!r} was shown: {exc}")
        return False
    return True


def run_prompt(options: Options) -> None:
    payload = _hook_input(options, "prompt", "recalled nothing")
    home = _home()
    # this hook's; the store's, only once the prompt has terms to look for (below)
    from anamnesis.hooks.recall import recall_terms
    from anamnesis.hooks.recall_settings import recall_enabled

    config = read_config(home)
    if not recall_enabled(config):
        return
    terms = recall_terms(_asked(text_field(payload, "prompt"), _agent(options)))
    if not terms:
        return  # short, a slash command, or only stop words: nothing to look for
    if not StoreLayout(home).has_notes():  # the layout, not ops' Home: one module less
        return  # no store yet: nothing to recall, and nothing is created
    from anamnesis.hooks.recall import render_recall, select_recall
    from anamnesis.hooks.sessions import SessionStateError, load_shown
    from anamnesis.ops import injected_ids
    from anamnesis.store import MemoryStore

    session = _text(options, "session-id") or text_field(payload, "session_id")
    shown: set[str] = set()
    if session:
        try:
            shown = load_shown(home, session)
        except SessionStateError as exc:  # a cache: start it afresh, say so once
            log(home, "prompt", f"{exc}; it is started afresh")
    cwd = _text(options, "cwd") or text_field(payload, "cwd") or str(Path.cwd())
    project = _text(options, "project") or resolve_project_key(cwd)
    budget = _prompt_budget(options, config)
    viewpoint = _viewpoint(options, home, project)
    with MemoryStore(home) as store:
        selection = select_recall(
            store, project=project, terms=terms, shown=shown, budget=budget, viewpoint=viewpoint
        )
    text = render_recall(selection, shown)
    # Recorded before it is printed: what cannot be recorded is not shown, so that no
    # later prompt of this session adds the same notes again.
    if text and session and not _record(home, "prompt", session, injected_ids(selection), False):
        text = ""
    if text:
        sys.stdout.write(_output(text, options, "prompt", "UserPromptSubmit") + "\n")
        sys.stdout.flush()
    # A prompt that recalled nothing counts too: how often recall finds something.
    _used(store, "recalled", injected_ids(selection) if text else [], project, options, session)


def _asked(prompt: str | None, agent: AgentSpec | None) -> str | None:
    """The prompt as the person wrote it: without what hooks added to it before this one
    read it, in the tag the agent wraps such additions in (Gemini CLI's ``hook_context``:
    the session's injected notes are no query)."""
    if prompt is None or agent is None or agent.prompt_additions is None:
        return prompt
    import re  # this hook's, for an agent that adds to prompts

    tag = re.escape(agent.prompt_additions)
    return re.sub(rf"<{tag}>.*?</{tag}>", " ", prompt, flags=re.DOTALL).strip()


def run_capture(options: Options) -> None:
    """Read and summarize the transcript, queue the result (on disk before this returns),
    and leave the rest to the background worker: filing it into the store, which can wait
    on other sessions, and the sync (:mod:`.capture_queue`, :mod:`.worker`)."""
    payload = _hook_input(options, "capture", "captured only what the flags name")
    # this hook's: the transcript's reader, the summary, the queue (and no store)
    from anamnesis.hooks.transcript import TranscriptUnreadable

    home = _home()
    transcript = _text(options, "transcript") or text_field(payload, "transcript_path")
    if not transcript:
        got = ", ".join(sorted(payload)) or "nothing"
        log(
            home,
            "capture",
            f"no transcript to read: the hook input has no transcript_path (it had: {got}) "
            "and no --transcript was given; nothing was captured",
        )
        return
    event = payload.get("hook_event_name")
    source = _text(options, "source") or ("precompact" if event == "PreCompact" else "session-end")
    from anamnesis.hooks.pending import DEFAULT_AGENT, Skipped, prepare_capture

    agent = _agent(options)
    try:
        pending = prepare_capture(
            transcript,
            source=source,
            reader=None if agent is None else agent.read_session(),
            session_id=_text(options, "session-id") or text_field(payload, "session_id"),
            cwd=_text(options, "cwd") or text_field(payload, "cwd"),
            agent=DEFAULT_AGENT if agent is None else agent.name,  # the note's prov_agent
        )
    except TranscriptUnreadable as exc:  # expected: one line, not a traceback
        log(home, "capture", f"{exc}; nothing was captured")
        return
    if pending.skipped_lines:
        log(home, "capture", f"{transcript}: skipped {pending.skipped_lines}; read the rest")
    if isinstance(pending, Skipped):  # a trivial session: no note
        log(home, "capture", f"skipped {transcript}: {pending.reason}")
        return
    from anamnesis.hooks.background import start_worker
    from anamnesis.hooks.capture_queue import enqueue, request_sync

    enqueue(home, pending)
    if not options.get("no-sync"):
        request_sync(home)
    start_worker(home)


def run_sync(options: Options) -> None:
    """The session start's sync (async): file what captures are queued, then sync, unless
    another process is the worker already (it then syncs once more when done:
    :mod:`.worker`)."""
    if not options.get("quiet"):
        _hook_input(options, "sync", "synced anyway")  # consume Claude Code's hook JSON
    from anamnesis.hooks.capture_queue import request_sync  # this hook's

    home = _home()
    request_sync(home)
    if options.get("detach"):
        # For an agent that waits for every hook (Gemini CLI, Copilot CLI): the machine's
        # background worker syncs, and the session goes on at once.
        from anamnesis.hooks.background import start_worker

        start_worker(home)
        return
    if not _work(options) and not options.get("quiet"):
        print("a sync is already running on this machine; it syncs once more when done")


def run_background(options: Options) -> None:
    """The worker a capture starts (:func:`.background.start_worker`): it files the
    queued captures, and syncs when asked, quietly."""
    _work({**options, "quiet": True})


def _work(options: Options) -> bool:
    """Be the machine's background worker (:func:`.worker.work`), opening the store only
    once there is work; False when another process is the worker."""
    from anamnesis.hooks.worker import work  # the background's alone

    home = _home()
    opened: list[MemoryStore] = []

    def store() -> MemoryStore:
        if not opened:  # imported and opened only by the process that is the worker
            from anamnesis.store import MemoryStore

            opened.append(MemoryStore(home))
        return opened[0]

    def file(tried: set[str]) -> bool:
        # the worker's (the store's writer and ops' home load with them)
        from anamnesis.hooks.capture_queue import file_queued, queued_captures
        from anamnesis.ops import Home

        if not any(path.name not in tried for path in queued_captures(home)):
            return True
        return file_queued(store(), machine_id=Home(home).machine_id, tried=tried)

    try:
        return work(home, file=file, sync=lambda: _sync_once(store(), options))
    finally:
        for each in opened:
            each.close()


def _sync_once(store: MemoryStore, options: Options) -> None:
    # the sync's alone: ops' cycle, git
    from anamnesis.hooks.syncing import sync_store
    from anamnesis.ops import Home, claude_home
    from anamnesis.sync import SyncError

    try:
        report = sync_store(
            Home(store.root),
            store,
            claude_dir=None if options.get("no-import") else claude_home(),
        )
    except SyncError as exc:  # busy, a full disk, ...: one line, and the next sync
        log(store.root, "sync", str(exc))
        return
    log(store.root, "sync", report.result.detail)
    for named in report.remotes:  # each named remote's outcome, or why it failed
        log(store.root, "sync", f"{named.name}: {named.as_dict()['detail']}")
    if not options.get("quiet"):
        print(report.result.detail)
