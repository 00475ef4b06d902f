"""Encrypted remotes: `remote key` (this machine's age public key) and `remote
add-recipient NAME KEY [--label L]` (a member added, every note sealed again and pushed).

What sealing is, and who may read, is ops' (``anamnesis.ops``: ``machine_public_key``,
``add_member``, ``membership``); these commands only ask and show.
"""

from __future__ import annotations

from typing import Annotated

import typer

from anamnesis.cli import console
from anamnesis.cli.context import JsonFlag, open_home
from anamnesis.cli.errors import CliError, UsageError
from anamnesis.ops import (
    CodecError,
    Home,
    RecipientsError,
    RemoteConfigError,
    RemoteSpec,
    add_member,
    machine_public_key,
    membership,
)


def register(remote: typer.Typer) -> None:
    remote.command(name="key")(remote_key)
    remote.command(name="add-recipient")(remote_add_recipient)


def remote_key(as_json: JsonFlag = False) -> None:
    """This machine's public key for encrypted remotes (made the first time it is asked
    for): give it to a member, who adds it to a remote's recipients (remote
    add-recipient)."""
    with open_home() as (home, _store):
        try:
            key = machine_public_key(home)
        except CodecError as exc:
            raise CliError(str(exc)) from None
        path = home.layout.age_identity
    if as_json:
        console.print_json({"public_key": key, "path": str(path)})
    else:
        console.say(key)


def remote_add_recipient(
    name: Annotated[str, typer.Argument(help="The encrypted remote's name.")],
    key: Annotated[str, typer.Argument(metavar="KEY", help="The member's public key (age1...).")],
    label: Annotated[
        str,
        typer.Option("--label", metavar="LABEL", help="Whose key it is (stored in the clear)."),
    ] = "",
    as_json: JsonFlag = False,
) -> None:
    """Let another machine read an encrypted remote: add its key to the remote's
    recipients and push every note of it sealed again for the new set."""
    with open_home() as (home, _store):
        try:
            added = add_member(home, name, key, label)
        except (RemoteConfigError, RecipientsError) as exc:
            raise UsageError(str(exc)) from None
        except CodecError as exc:
            raise CliError(str(exc)) from None
    if as_json:
        console.print_json(added.as_dict())
    else:
        who = f"{label} ({added.key})" if label else added.key
        console.say(
            f"added {who} to {name}'s recipients ({len(added.recipients)} now); "
            f"{added.resealed} note(s) sealed again"
        )
        for path, why in added.unreadable:
            console.warn(f"left as it was: {path}: {why}")
        if added.pushed:
            console.say(f"pushed: that machine reads {name} at its next `anamnesis sync`")
    if not added.pushed:
        raise CliError(
            f"{name}: {added.remote_error or 'not pushed'}; the change is committed here "
            "and goes out at the next `anamnesis sync`"
        )


def say_encrypted(home: Home, spec: RemoteSpec) -> None:
    """After `remote add --encrypt`: whom the remote is sealed to, and what this machine
    must do when it is not one of them."""
    state = membership(home, spec)
    recipients = state.recipients or ()
    console.say(
        f"{spec.name} is encrypted (age) to {len(recipients)} key(s); this machine's is "
        f"{state.public_key}"
    )
    advice = state.advice()
    if advice:
        console.warn(advice)
