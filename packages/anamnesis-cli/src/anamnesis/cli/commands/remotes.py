"""Several remotes: `remote add/list/remove/check` and `share ID --to NAME`.

What a remote is, how notes are routed and moved, is ops' (``anamnesis.ops``: the
remotes' config, pins, mirror cycle and tombstones); these commands only ask and show.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

import typer

from anamnesis.cli import console
from anamnesis.cli.commands import remote_keys
from anamnesis.cli.context import JsonFlag, get_note, open_home
from anamnesis.cli.display.tables import Column, show
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.ops import (
    DEFAULT_REMOTE,
    CodecError,
    RemoteConfigError,
    RemoteSpec,
    add_remote,
    apply_moves,
    pending_moves,
    remotes_state,
    remove_remote,
    set_rules,
    share,
)

REMOTE_COLUMNS = [
    Column("name"),
    Column("url", cut=1),
    Column("rules", cut=2),
    Column("notes"),
    Column("state", cut=3),
]
# A remote's rules, as `remote add` and `remote set` take them (each repeatable).
ProjectsRule = Annotated[
    list[str] | None,
    typer.Option("--projects", metavar="GLOB", help="Notes of projects matching GLOB."),
]
ScopesRule = Annotated[
    list[str] | None,
    typer.Option("--scopes", metavar="SCOPE", help="global (no project) or project."),
]
TagsRule = Annotated[
    list[str] | None, typer.Option("--tags", metavar="TAG", help="Notes with any TAG.")
]
MOVE_COLUMNS = [Column("id"), Column("from"), Column("to"), Column("title", cut=1)]


def register(app: typer.Typer) -> None:
    remote = typer.Typer(help="The remotes notes sync with, and which notes go where.")

    @remote.callback(invoke_without_command=True)
    def remote_root(ctx: typer.Context) -> None:
        if ctx.invoked_subcommand is None:
            raise UsageError(
                "missing a command: add, list, set, remove or check (see `anamnesis remote --help`)"
            )

    remote.command(name="add")(remote_add)
    remote.command(name="list")(remote_list)
    remote.command(name="set")(remote_set)
    remote.command(name="remove")(remote_remove)
    remote.command(name="check")(remote_check)
    remote_keys.register(remote)  # key, add-recipient: encrypted remotes
    app.add_typer(remote, name="remote")
    app.command(name="share")(share_note)


def remote_add(
    name: Annotated[str, typer.Argument(help="Its name: lower-case letters, digits, '-'.")],
    url: Annotated[str, typer.Argument(help="A git remote: a path, ssh:// or https:// URL.")],
    projects: ProjectsRule = None,
    scopes: ScopesRule = None,
    tags: TagsRule = None,
    encrypt: Annotated[bool, typer.Option("--encrypt", help="Push ciphertext only (age).")] = False,
) -> None:
    """Add a remote; notes matching its rules (every rule given) go to it, first match
    in the order remotes were added; the `remote` setting takes the rest."""
    spec = RemoteSpec(
        name=name,
        url=url,
        projects=tuple(projects or ()),
        scopes=tuple(scopes or ()),
        tags=tuple(tags or ()),
        encrypt=encrypt,
    )
    with open_home() as (home, _store):
        try:
            add_remote(home, spec)
        except RemoteConfigError as exc:
            raise UsageError(str(exc)) from None
        except CodecError as exc:  # an encrypted remote that could not be set up here
            raise CliError(f"{exc}; remote {name} was not added") from None
        rules = _rules(spec) or "no rule: only notes shared to it (`anamnesis share ID --to NAME`)"
        console.say(f"added remote {name}: {rules}")
        if encrypt:
            remote_keys.say_encrypted(home, spec)
    console.say("run `anamnesis sync` to sync it")


def remote_list(as_json: JsonFlag = False) -> None:
    """Each remote, in routing order, with its rules and state (nothing is contacted)."""
    with open_home() as (home, _store):
        states = remotes_state(home)
    rows = [state.as_dict() for state in states]
    if as_json:
        console.print_json(rows)
        return
    if not rows:
        console.say("no remote: notes stay on this machine")
        return
    show(
        REMOTE_COLUMNS,
        [
            [
                row["name"],
                row["url"],
                _rules_of(row) if row["name"] != DEFAULT_REMOTE else "the rest",
                str(row["pinned"]),
                row["detail"],
            ]
            for row in rows
        ],
    )


def remote_set(
    name: Annotated[str, typer.Argument(help="The remote's name.")],
    projects: ProjectsRule = None,
    scopes: ScopesRule = None,
    tags: TagsRule = None,
    clear: Annotated[
        bool, typer.Option("--clear", help="Drop every rule (only shared notes go to it).")
    ] = False,
) -> None:
    """Change a remote's rules (the criteria given replace its own). Nothing moves by
    itself: `anamnesis remote check` lists the notes the new rules would move."""
    if not clear and projects is None and scopes is None and tags is None:
        raise UsageError("give --projects, --scopes, --tags or --clear")
    with open_home() as (home, _store):
        try:
            spec = set_rules(
                home,
                name,
                projects=() if clear else _given(projects),
                scopes=() if clear else _given(scopes),
                tags=() if clear else _given(tags),
            )
        except RemoteConfigError as exc:
            raise UsageError(str(exc)) from None
        moves = pending_moves(home)
    console.say(f"remote {name}: {_rules(spec) or 'no rule: only notes shared to it'}")
    if moves:
        console.say(
            f"{len(moves)} note(s) would now go elsewhere; nothing moved: "
            "`anamnesis remote check` lists them, `--apply` moves them"
        )


def _given(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def remote_remove(name: Annotated[str, typer.Argument(help="The remote's name.")]) -> None:
    """Remove a remote; its sync folder is set aside, never deleted, and the notes pinned
    to it stay here (share them to another remote to send them on)."""
    with open_home() as (home, _store):
        try:
            aside = remove_remote(home, name)
        except RemoteConfigError as exc:
            raise UsageError(str(exc)) from None
    console.say(f"removed remote {name}")
    if aside is not None:
        console.say(f"its sync folder was kept at {aside}")


def remote_check(
    apply: Annotated[bool, typer.Option("--apply", help="Move them (default: list).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Notes whose remote the rules would now change; --apply moves them."""
    with open_home() as (home, store):
        moves = pending_moves(home)
        titles = {}
        for move in moves:
            try:
                titles[move.note_id] = store.get(move.note_id).title
            except Exception:
                titles[move.note_id] = ""
        if apply and moves:
            try:
                apply_moves(home, store, moves)
            except RemoteConfigError as exc:
                raise CliError(str(exc)) from None
    if as_json:
        console.print_json({"applied": apply, "moves": [move.as_dict() for move in moves]})
        return
    if not moves:
        console.say("every note is on the remote its rules give")
        return
    show(
        MOVE_COLUMNS,
        [[m.note_id, m.source or "-", m.to, titles.get(m.note_id, "")] for m in moves],
    )
    if apply:
        console.say(f"moved {len(moves)} note(s): `anamnesis sync` sends them")
    else:
        console.say("to move them: `anamnesis remote check --apply`")


def share_note(
    memory_id: Annotated[str, typer.Argument(metavar="ID", help="The note's id.")],
    to: Annotated[str, typer.Option("--to", metavar="NAME", help="The remote to move it to.")],
    as_json: JsonFlag = False,
) -> None:
    """Move a note to another remote; the one it leaves gets a tombstone."""
    with open_home() as (home, store):
        note = get_note(store, memory_id)
        try:
            move = share(home, store, note.id, to)
        except RemoteConfigError as exc:
            raise UsageError(str(exc)) from None
    if as_json:
        console.print_json({**move.as_dict(), "moved": move.moved})
    elif not move.moved:
        console.say(f"{move.note_id} is on {to} already")
    else:
        console.say(f"moved {move.note_id} to {to}: `anamnesis sync` sends it")


def _rules(spec: RemoteSpec) -> str:
    return _rules_of({"projects": spec.projects, "scopes": spec.scopes, "tags": spec.tags})


def _rules_of(row: Mapping[str, Any]) -> str:
    parts = [
        f"{key} " + ",".join(str(value) for value in row[key])
        for key in ("projects", "scopes", "tags")
        if row.get(key)
    ]
    return "; ".join(parts) or "shared only"
