"""What every command needs: the home (its layout and settings, through ``anamnesis.ops``),
the store, shared option types."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from typer.models import OptionInfo

from anamnesis.cli.config_file import config_for_reading
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.ops import Home, resolve_project_key, start_background_embedding
from anamnesis.store import (
    DEFAULT_MODE,
    FROM_TODAY_FORMS,
    KEYWORD_MODE,
    NOTE_TYPES,
    SCOPES,
    SEARCH_MODES,
    InvalidNote,
    MemoryStore,
    is_agent_name,
    read_when,
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
ProjectOption = Annotated[
    str | None, typer.Option("--project", "-p", help="One project key, exactly.")
]
HereFlag = Annotated[bool, typer.Option("--here", help="Use the project of the current directory.")]
TypeOption = Annotated[
    str | None, typer.Option("--type", "-t", help="procedural | semantic | episodic")
]
ScopeOption = Annotated[str | None, typer.Option("--scope", help="portable | machine-local")]
AgentFilterOption = Annotated[
    str | None,
    typer.Option("--agent", metavar="NAME", help="Only notes this agent wrote (e.g. codex)."),
]
# What a date option takes (the store reads it: ``read_when``), said once for every --help.
DATE_FORMS = f"2027-01-31, an ISO-8601 timestamp, or from today: {FROM_TODAY_FORMS}"


def date_option(name: str, help: str) -> OptionInfo:
    """A date option (``--valid-until``, ``--review-after``, ``--as-of``): its help says
    every form it takes; :func:`check_date` reads it."""
    option: OptionInfo = typer.Option(name, metavar="DATE", help=f"{help} DATE: {DATE_FORMS}.")
    return option


# --mode's help names the store's search modes as its table has them when the app is built
# (the command registering it sets it: :func:`mode_help`), so a new mode needs nothing here.
MODE_OPTION = typer.Option("--mode", metavar="MODE")
ModeOption = Annotated[str | None, MODE_OPTION]


def mode_help(*more: str) -> str:
    """The search modes for a ``--mode`` option's help (``more``: choices of its own)."""
    return " | ".join([*SEARCH_MODES, *more])


def search_mode_help() -> str:
    """`search --mode`'s help."""
    return (
        f"{mode_help()} (default: config search_mode, else {DEFAULT_MODE} when the vectors "
        f"extra can run, else {KEYWORD_MODE})."
    )


def current_home() -> Home:
    """The user's home: ``ANAMNESIS_HOME``, else ``~/.anamnesis`` (its settings are read
    on every use)."""
    return Home.resolve()


@contextmanager
def open_home(*, must_exist: bool = True) -> Iterator[tuple[Home, MemoryStore]]:
    """The user's home and its store; a missing store is an error that says how to create
    it, a broken config.json a warning (the defaults then apply: the hostname, no remote)."""
    home = current_home()
    if must_exist and not home.exists():
        raise CliError(f"no memory store at {home.root}; run `anamnesis init` first")
    with home.open_store() as store:
        config_for_reading(home)
        yield home, store


@contextmanager
def open_store(*, must_exist: bool = True) -> Iterator[MemoryStore]:
    """:func:`open_home`, for a command that needs the store alone."""
    with open_home(must_exist=must_exist) as (_home, store):
        yield store


def embed_in_background(store: MemoryStore) -> str:
    """Start embedding the notes that wait for vectors in a process of their own (ops'
    :func:`~anamnesis.ops.start_background_embedding`), as a command that brought notes in
    does (sync, init's first sync, import): the line saying so, or "" when nothing was
    started (no vectors here, nothing waiting)."""
    embedding = start_background_embedding(store)
    if embedding is None:
        return ""
    return (
        f"embedding {embedding.waiting} note(s) for search by meaning, in the background "
        f"(pid {embedding.pid})"
    )


def project_filter(project: str | None, here: bool) -> str | None:
    if project is not None and here:
        raise UsageError("--project and --here contradict each other; pick one")
    if here:
        return resolve_project_key(Path.cwd())
    if project is not None and not project.strip():
        raise UsageError("--project is empty; leave it out to cover every project")
    return project.strip() if project is not None else None


def check_type(value: str | None) -> str | None:
    if value is not None and value not in NOTE_TYPES:
        raise UsageError(f"--type must be one of {', '.join(NOTE_TYPES)}, got {value!r}")
    return value


def check_scope(value: str | None) -> str | None:
    if value is not None and value not in SCOPES:
        raise UsageError(f"--scope must be one of {', '.join(SCOPES)}, got {value!r}")
    return value


def check_agent(value: str | None) -> str | None:
    """An agent's name as notes record it (``prov_agent``); "Codex" is plainly codex."""
    agent = value.strip().lower() if value is not None else None
    if agent is not None and not is_agent_name(agent):
        raise UsageError(
            f"--agent must be an agent's name, such as claude-code or codex, got {value!r}"
        )
    return agent


def check_date(value: str | None, option: str) -> str | None:
    """A date option's value as the store keeps it (a time from today made a date); None
    when it was not given. "" stays "" (``edit``'s way to clear a date)."""
    if value is None:
        return None
    try:
        return read_when(value, option)
    except InvalidNote as exc:
        raise UsageError(f"{option}: {exc.reason}") from None


def check_mode(value: str | None) -> str | None:
    if value is not None and value not in SEARCH_MODES:
        raise UsageError(f"--mode must be one of {', '.join(SEARCH_MODES)}, got {value!r}")
    return value
