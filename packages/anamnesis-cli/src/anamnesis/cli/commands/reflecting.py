"""`anamnesis reflect`, `anamnesis merge` and `anamnesis llm test`: the LLM layer's commands.

Each is a dry run unless `--apply` is given: the plan (calls, an input-token estimate) is
printed before anything is paid for. Whatever an apply writes lands in one batch and is
committed to the sync repository at once, so a concurrent sync cannot half-send it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.context import (
    HereFlag,
    JsonFlag,
    ProjectOption,
    current_home,
    open_home,
    project_filter,
)
from anamnesis.cli.display import lines, review_view
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.ops import commit_for_sync
from anamnesis.sync import SyncError

if TYPE_CHECKING:
    from anamnesis.ops import Home
    from anamnesis.reflect import LlmSettings, Provider
    from anamnesis.store import MemoryStore

ApplyFlag = Annotated[
    bool, typer.Option("--apply", help="Call the provider and write (default: a dry run).")
]
# A project key and the reason give way to the terminal's width, the reason first.
REFLECT_COLUMNS = [
    Column("project", cut=1, comfort=12),
    Column("episodes"),
    Column("status"),
    Column("why", cut=2),
]
MaxCalls = Annotated[
    int | None,
    typer.Option("--max-calls", min=0, help="Stop after this many provider calls."),
]


def register(app: typer.Typer) -> None:
    app.command()(reflect)
    app.command()(merge)
    llm = typer.Typer(help="The LLM provider reflection uses (llm.* settings).")

    @llm.callback(invoke_without_command=True)
    def llm_root(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            raise UsageError("missing a command: test (see `anamnesis llm --help`)")

    llm.command(name="test")(llm_test)
    app.add_typer(llm, name="llm")


@contextmanager
def llm_errors(label: str) -> Iterator[None]:
    """A spinner while the provider works; a provider's error, a bad setting or another
    run holding the lock become one line (the message says what to do)."""
    # reflect (~20 modules, ~30 ms): loaded by the commands that use it, not every command
    from anamnesis.reflect import ProviderError, ReflectionBusy

    try:
        with console.spinner(label):
            yield
    except (ProviderError, ReflectionBusy) as exc:
        raise CliError(str(exc)) from None


def provider_from_settings() -> tuple[LlmSettings, Provider]:
    """The configured provider; a bad setting or a missing model or key is one line."""
    from anamnesis.reflect import ProviderError, load_settings, make_provider  # see llm_errors

    try:
        settings = load_settings(current_home().root)
        return settings, make_provider(settings)
    except ProviderError as exc:
        raise CliError(str(exc)) from None


def reflect(
    project: ProjectOption = None,
    here: HereFlag = False,
    all_projects: Annotated[
        bool, typer.Option("--all", help="Every project with enough episodes.")
    ] = False,
    min_episodes: Annotated[
        int, typer.Option("--min-episodes", min=1, help="Episodes a project needs.")
    ] = 5,
    apply: ApplyFlag = False,
    max_calls: MaxCalls = None,
    as_json: JsonFlag = False,
) -> None:
    """Distil a project's session notes into durable notes (the reflected episodes are
    tagged `reflected`; the new notes carry prov_source reflection). A durable note is
    superseded only if its facts and searches are kept, as merge's gate checks."""
    from anamnesis.reflect import approved_cases, run_reflection  # reflect: see llm_errors

    project = project_filter(project, here)
    if (project is None) == (not all_projects):
        raise UsageError("name one project with --project (or --here), or use --all")
    settings, provider = provider_from_settings()
    with open_home() as (home, store):
        with llm_errors("Reflecting" if apply else "Planning"):
            report = run_reflection(
                store,
                provider,
                settings,
                project=project,
                all_projects=all_projects,
                min_episodes=min_episodes,
                apply=apply,
                max_calls=max_calls,
                cases=approved_cases(store.root) if apply else (),
            )
        data = {"provider": provider.name, "model": provider.model, **report.to_dict()}
        written = [n for p in data["projects"] for n in p.get("written", [])]
        retagged = [n for p in data["projects"] for n in p.get("retagged", [])]
        if written or retagged:
            data["commit"] = commit_to_sync(
                home, store, f"anamnesis reflect: {len(written)} note(s), {len(retagged)} reflected"
            )
    if as_json:
        console.print_json(data)
    else:
        _say_reflection(data)
    if not report.ok:
        raise typer.Exit(1)


def _say_reflection(data: dict[str, Any]) -> None:
    if not data["projects"]:
        lines.say_wrapped("nothing to reflect: ", _waiting(data), 2)
        return
    rows = [
        [_named(p), len(p.get("episodes", [])), p.get("status", ""), p.get("reason", "")]
        for p in data["projects"]
    ]
    show(REFLECT_COLUMNS, rows)
    for p in data["projects"]:
        name = _named(p)
        if data["dry_run"]:
            _say_sent(name, p)
        tagged = f"tagged {len(p.get('retagged', []))} episode(s) reflected"
        if p.get("written"):
            lines.say_wrapped(f"{name}: wrote ", f"{', '.join(p['written'])}; {tagged}", 2)
        elif p.get("status") == "applied":
            console.say(f"{name}: nothing worth keeping, the model said; {tagged}")
        for refused in p.get("refused", []):
            console.warn(f"{name}: refused {refused}")
        for kept_back in p.get("refused_supersedes", []):
            console.warn(f"{name}: {kept_back}")
        review_view.warn_batch_contradicted(f"{name}: ", p.get("possible_contradictions", []))
    if data["waiting"]:
        lines.say_wrapped("not reflected yet: ", _waiting(data), 2)
    say_cost(data, "reflect")


def _waiting(data: dict[str, Any]) -> str:
    """Why the projects that were not planned wait: the threshold, and what each has."""
    least = data["min_episodes"]
    if not data["waiting"]:
        return "no unreflected episodes (session notes not tagged `reflected`)"
    having = ", ".join(f"{_named(w)} has {w['episodes']}" for w in data["waiting"])
    return (
        f"a project needs {least} or more unreflected episodes "
        f"(--min-episodes N changes that): {having}"
    )


def _say_sent(name: str, plan: dict[str, Any]) -> None:
    """What a dry run would send for one project: each episode, and the context."""
    later = plan["left_out"]
    wait = f"; {later} more wait for a later run (over llm.max_input_tokens)" if later else ""
    lines.say_wrapped(
        f"{name}: ", f"would send {len(plan['episodes'])} episode(s), oldest first{wait}:", 2
    )
    for note in plan["episodes"]:
        lines.say_note("  ", note["id"], note["title"])
    if plan["durable"] or plan["durable_left_out"]:
        left = plan["durable_left_out"]
        lines.say_wrapped(
            "  ",
            f"and {len(plan['durable'])} of the project's durable notes, so that none is "
            "repeated" + (f" ({left} left out: no room)" if left else ""),
        )


def _named(plan: dict[str, Any]) -> str:
    """A plan's project, and that its episodes are machine-local (reflected apart)."""
    local = " (machine-local)" if plan.get("scope") == "machine-local" else ""
    return f"{plan['project']}{local}"


def say_cost(data: dict[str, Any], command: str, *, calls: bool = True) -> None:
    """The provider calls planned or made, with the input-token estimate (unless
    ``calls`` is false: no provider was asked), and what a dry run did not do."""
    if calls:
        what = "planned" if data["dry_run"] else "made"
        console.say(
            f"{data['calls']} provider call(s) {what} ({data['provider']}), about "
            f"{data['input_tokens']} input tokens"
        )
    if data["dry_run"]:
        console.say(f"dry run: nothing sent, nothing written; add --apply to {command}")


def merge(
    project: ProjectOption = None,
    here: HereFlag = False,
    apply: ApplyFlag = False,
    max_calls: MaxCalls = None,
    as_json: JsonFlag = False,
) -> None:
    """Merge redundant durable notes. Each merge is kept only if no approved eval case
    and no self-probe loses its hit at 8; merged-away notes are superseded, never deleted."""
    from anamnesis.reflect import approved_cases, run_merge  # reflect: see llm_errors

    project = project_filter(project, here)
    settings, provider = provider_from_settings()
    with open_home() as (home, store):
        with llm_errors("Merging" if apply else "Looking for look-alike notes"):
            report = run_merge(
                store,
                provider,
                settings,
                project=project,
                apply=apply,
                cases=approved_cases(store.root),
                **({"max_calls": max_calls} if max_calls is not None else {}),
            )
        data = report.to_dict()
        if report.written:
            data["commit"] = commit_to_sync(
                home, store, f"anamnesis merge: {len(report.written)} note(s)"
            )
    if as_json:
        console.print_json(data)
    else:
        _say_merge(data)
    if not report.ok:
        raise typer.Exit(1)


def _say_merge(data: dict[str, Any]) -> None:
    console.say(f"{len(data['candidates'])} candidate group(s) of look-alike notes")
    if not data["apply"]:  # what the provider would be asked about, note by note
        for number, group in enumerate(data["candidates"], start=1):
            lines.say_wrapped(
                f"  group {number}: ",
                f"{group['project']}, {group['type']} (similarity {group['similarity']:.2f})",
                4,
            )
            for note_id, title in zip(group["ids"], group["titles"], strict=True):
                lines.say_note("    ", note_id, title)
    for group in data["groups"]:
        why = group["reason"] or ", ".join(loss["query"] for loss in group["losses"])
        lines.say_wrapped(
            f"  {group['status']}: ", ", ".join(group["ids"]) + (f" ({why})" if why else ""), 4
        )
    for call in data["calls"]:
        if call["reason"]:
            console.warn(f"{call['project']}: {call['status']}: {call['reason']}")
    review_view.warn_batch_contradicted("", data.get("possible_contradictions", []))
    if not data["apply"]:
        console.say(f"dry run: about {data['tokens']} input tokens; add --apply to merge")


def llm_test(as_json: JsonFlag = False) -> None:
    """Make one tiny call to the configured provider: its name, model and latency, or
    exactly what is wrong."""
    from anamnesis.reflect import test_provider  # reflect: see llm_errors

    settings, provider = provider_from_settings()
    with llm_errors("Asking"):
        probe = test_provider(provider, timeout_s=settings.timeout_s)
    data = {
        "provider": probe.provider,
        "model": probe.model,
        "latency_s": round(probe.latency_s, 3),
        "reply": probe.reply_excerpt,
    }
    if as_json:
        console.print_json(data)
    else:
        model = f", model {probe.model}" if probe.model else ""
        console.say(f"{probe.provider}{model}: answered in {probe.latency_s:.2f} s")


def commit_to_sync(home: Home, store: MemoryStore, message: str) -> str | None:
    """Commit what was just written to the sync repository, if this store syncs, so that
    it travels as one change; None when it does not sync (or cannot commit: said once).
    The commit takes every change in the notes folder, hand edits too: their secrets are
    masked first, as a sync masks them (``commit_for_sync``: the next push sends what is
    committed)."""
    if not home.is_synced():
        return None

    try:
        return commit_for_sync(home, store, message)
    except SyncError as exc:
        console.warn(f"written, but not committed for sync yet ({exc}); the next sync will")
        return None
