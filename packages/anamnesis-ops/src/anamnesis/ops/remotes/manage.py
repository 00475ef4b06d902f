"""Adding and removing named remotes (``anamnesis remote add`` / ``remove``).

Adding the first named remote pins every note already in memory/ to the default remote
(when there is one): they were pushed there, or would have been, so the new rules never
move them by themselves (``remote check`` lists the ones the rules would route elsewhere;
``--apply`` moves them). Removing a remote drops it from config.json and sets its mirror
folder aside (never deleted silently); notes pinned to it stay here, kept local, until
shared to another remote.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from anamnesis.ops.remotes.config import (
    DEFAULT,
    RemoteConfigError,
    RemoteSpec,
    check_name,
    check_scopes,
    remote_specs,
    save_specs,
)
from anamnesis.ops.remotes.mirror import note_files
from anamnesis.ops.remotes.pins import read_pins, update_pins

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home


def add_remote(home: Home, spec: RemoteSpec) -> RemoteSpec:
    """Append ``spec`` to the home's remotes (last in routing order)."""
    check_name(spec.name)
    check_scopes(spec.scopes)
    if not spec.url.strip():
        raise RemoteConfigError("a remote needs a URL")
    specs = remote_specs(home.config())
    if any(known.name == spec.name for known in specs):
        raise RemoteConfigError(f"there is a remote named {spec.name!r} already")
    if spec.encrypt:  # before anything is recorded: a remote it cannot set up is not added
        _prepare_encrypted(home, spec)
    if not specs and home.remote is not None:
        pinned = read_pins(home.layout)
        update_pins(
            home.layout,
            {rel: DEFAULT for rel in note_files(home.memory_dir) if rel not in pinned},
        )
    save_specs(home, (*specs, spec))
    return spec


def set_rules(
    home: Home,
    name: str,
    *,
    projects: tuple[str, ...] | None = None,
    scopes: tuple[str, ...] | None = None,
    tags: tuple[str, ...] | None = None,
) -> RemoteSpec:
    """Change the rules of the remote ``name`` (only the criteria given; ``()`` clears
    one). Nothing moves: a rule decides only for notes not yet pinned, and ``remote
    check`` lists the pinned notes the new rules would route elsewhere."""
    specs = remote_specs(home.config())
    found = next((spec for spec in specs if spec.name == name), None)
    if found is None:
        raise RemoteConfigError(f"no remote named {name!r} (see `anamnesis remote list`)")
    changed = replace(
        found,
        projects=found.projects if projects is None else projects,
        scopes=found.scopes if scopes is None else check_scopes(scopes),
        tags=found.tags if tags is None else tags,
    )
    save_specs(home, tuple(changed if spec.name == name else spec for spec in specs))
    return changed


def _prepare_encrypted(home: Home, spec: RemoteSpec) -> None:
    """The sealed codec's set-up of a new encrypted remote (its first recipient), when
    this copy has one (``sealed.prepare_encrypted``)."""
    from anamnesis.ops.remotes.codec import SEALED_MODULE

    try:
        module = importlib.import_module(SEALED_MODULE)
    except ModuleNotFoundError:
        return
    prepare = getattr(module, "prepare_encrypted", None)
    if prepare is not None:
        prepare(home, spec)


def remove_remote(home: Home, name: str) -> Path | None:
    """Drop the remote ``name``; where its mirror folder was set aside (None: it had
    none)."""
    specs = remote_specs(home.config())
    if not any(spec.name == name for spec in specs):
        raise RemoteConfigError(f"no remote named {name!r} (see `anamnesis remote list`)")
    save_specs(home, tuple(spec for spec in specs if spec.name != name))
    mirror = home.layout.mirror_dir(name)
    if not mirror.exists():
        return None
    aside = mirror.with_name(f"{name}.removed-{time.strftime('%Y%m%dT%H%M%S')}")
    mirror.rename(aside)
    return aside
