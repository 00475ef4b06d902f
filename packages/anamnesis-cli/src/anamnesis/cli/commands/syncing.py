"""`anamnesis sync` as people run it: progress, a clear result, a non-zero exit on trouble.

The hook form (`anamnesis sync --quiet`, what SessionStart runs) never gets here: it is
dispatched to the hooks package before this app loads, and fails open.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.context import JsonFlag, open_store
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.cli.locations import claude_dir
from anamnesis.store import (
    MalformedNote,
    StoreError,
    new_id,
    parse_note,
    resolve_machine_id,
    resolve_remote,
)
from anamnesis.store import serialize_note as serialize
from anamnesis.store import validate_note as validate
from anamnesis.sync import STRATEGIES, SyncBusy, SyncError, SyncResult


def register(app: typer.Typer) -> None:
    app.command()(sync)


def sync(
    resolve: Annotated[
        str | None,
        typer.Option(
            "--resolve",
            help="Settle a reported conflict: keep-both (default choice), ours or theirs.",
        ),
    ] = None,
    no_import: Annotated[
        bool, typer.Option("--no-import", help="Skip importing Claude Code's own memory.")
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="The hook form: print nothing, never fail.")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Commit, pull and push the notes, then reindex what changed."""
    del quiet  # `sync --quiet` is dispatched to the hook before this app runs
    if resolve is not None and resolve not in STRATEGIES:
        raise UsageError(f"--resolve must be one of {', '.join(STRATEGIES)}, got {resolve!r}")
    from anamnesis.hooks import sync_store  # dulwich: only when syncing

    with open_store() as store:
        machine = resolve_machine_id(store.root)
        imported = 0
        problems: list[tuple[str, str]] = []
        try:
            with console.spinner("Syncing"):  # the import is part of the wait, too
                # The session-start hook's cycle (masking what goes out first), settling
                # a conflict when asked; a resolve imports nothing new meanwhile.
                report = sync_store(
                    store,
                    machine_id=machine,
                    remote=resolve_remote(store.root),
                    claude_dir=claude_dir(),
                    import_native=not no_import and resolve is None,
                    resolve=resolve,
                    fork=None if resolve is None else _store_fork(machine),
                )
                result = report.result
                indexed = report.reindexed.indexed if report.reindexed else 0
                if report.imported is not None:
                    imported = report.imported.created + report.imported.updated
                    problems = report.imported.problems
                masked = [found.path for found in report.masked]
        except SyncBusy as exc:
            raise CliError(str(exc)) from None
        except SyncError as exc:
            raise CliError(str(exc)) from None
    for path, reason in problems:
        console.warn(f"could not import {path}: {reason}")
    for path in masked:
        console.warn(f"masked secrets in {path} before pushing it (committed as such)")
    data = {**_result(result, indexed, imported), "masked": masked}
    if as_json:
        console.print_json(data)
    else:
        if imported:
            console.say(f"imported {imported} note(s) from Claude Code's own memory")
        console.say(result.detail)
        if indexed:
            console.say(f"reindexed {indexed} note(s)")
    if result.conflicted:
        raise CliError(
            "conflict: resolve with `anamnesis sync --resolve keep-both` (or ours / theirs)"
        )
    if result.remote_error:
        raise CliError(result.remote_error)


def _result(result: SyncResult, indexed: int, imported: int) -> dict[str, Any]:
    return {
        "pushed": result.pushed,
        "pulled": result.pulled,
        "conflicted": result.conflicted,
        "conflicts": list(result.conflicts),
        "head": result.head,
        "indexed": indexed,
        "imported": imported,
        "detail": result.detail,
        "remote_error": result.remote_error or None,
    }


def _store_fork(machine_id: str) -> Any:
    """keep-both through the store's own codec: both versions stay visible as valid notes.

    Our side becomes a new note (a fresh id; it carries this machine's id: whoever wrote
    the original, the version kept here is the one this machine had); the remote's keeps
    its id. Neither supersedes the other: both are tagged ``conflict`` and name each other
    in ``conflict_with`` (an extra key the store keeps) until the user supersedes one or
    merges them. A file the codec cannot read falls back to sync's own text fork."""
    from anamnesis.store import Memory
    from anamnesis.sync import CONFLICT_KEY, CONFLICT_TAG, Forked, fork_note

    def marked(note: Memory, other_id: str) -> Memory:
        links = note.extra.get(CONFLICT_KEY)
        known: list[str] = (
            [] if links is None else [links] if isinstance(links, str) else list(links)
        )
        if other_id not in known:
            known.append(other_id)
        tags = note.tags if CONFLICT_TAG in note.tags else [*note.tags, CONFLICT_TAG]
        extra = {**note.extra, CONFLICT_KEY: known[0] if len(known) == 1 else known}
        return note.replace(tags=tags, extra=extra)

    def fork(path: str, ours: bytes, theirs: bytes) -> Forked:
        try:
            note = parse_note(ours.decode("utf-8"), path)
        except (MalformedNote, UnicodeDecodeError, StoreError):
            return fork_note(path, ours, theirs, machine_id=machine_id)
        try:
            other = parse_note(theirs.decode("utf-8"), path)
        except (MalformedNote, UnicodeDecodeError, StoreError):
            other = None  # not a note there: left as it is, ours still names its id
        try:
            fresh = validate(
                marked(note, other.id if other is not None else note.id).replace(
                    id=new_id(), machine_id=machine_id
                )
            )
            kept = theirs
            if other is not None:
                kept = serialize(validate(marked(other, fresh.id))).encode("utf-8")
        except StoreError:  # a value the codec will not write back: edit the text instead
            return fork_note(path, ours, theirs, machine_id=machine_id)
        directory = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        return Forked(f"{directory}{fresh.id}.md", serialize(fresh).encode("utf-8"), kept)

    return fork
