"""Which remote a note goes to, and why.

A pin decides first (pins.py): a note that has been on a remote stays there. An unpinned
note is routed by the rules, in the order config.json lists the remotes: the first remote
whose every given criterion matches takes it (projects: a glob on the note's project key;
scopes: ``global`` is a note with no project, ``project`` one with; tags: any shared
tag). The default remote (the ``remote`` setting) takes the rest; with none, the rest
stays on this machine (committed in memory/.git, never pushed). Machine-local notes
(``local/``) go nowhere. :func:`which_remote` says it in words, for a person or a page.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from anamnesis.ops.remotes.config import DEFAULT, RemoteSpec, remote_specs
from anamnesis.ops.remotes.pins import read_pins
from anamnesis.store import GLOBAL_PROJECT, StoreError, parse_note, read_regular

if TYPE_CHECKING:
    from pathlib import Path

    from anamnesis.ops.remotes.home_view import RemotesHome as Home

# `<type>/<ULID>.md`: the only files routed; anything else in memory/ is the default
# remote's (or local), as it was with one remote.
_NOTE_PATH = re.compile(r"[a-z]+/[0-9A-HJKMNP-TV-Z]{26}\.md")


def is_note_path(rel: str) -> bool:
    return _NOTE_PATH.fullmatch(rel) is not None


def note_id(rel: str) -> str:
    """The id in a note's path (``decision/<id>.md`` -> ``<id>``)."""
    return rel.rsplit("/", 1)[-1].removesuffix(".md")


@dataclass(frozen=True, slots=True)
class NoteFacts:
    """What rules read of a note."""

    project: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Route:
    """Where a note goes: a remote's name (``default`` for the ``remote`` setting), or
    None when it stays on this machine; ``why``, in words; ``pinned``: a pin decided."""

    remote: str | None
    why: str
    pinned: bool = False


def read_facts(path: Path) -> NoteFacts | None:
    """A note file's project and tags; None when it is absent or not a readable note."""
    try:
        raw, _info = read_regular(path)
        note = parse_note(raw.decode("utf-8"), str(path))
    except (OSError, UnicodeDecodeError, StoreError):
        return None
    return NoteFacts(note.project, tuple(note.tags))


def matches(spec: RemoteSpec, facts: NoteFacts) -> bool:
    """Whether every criterion ``spec`` gives matches the note (none given: no note)."""
    if not spec.has_rules:
        return False
    is_global = facts.project in ("", GLOBAL_PROJECT)
    if spec.projects and (
        is_global or not any(fnmatch.fnmatchcase(facts.project, p) for p in spec.projects)
    ):
        return False
    if spec.scopes and ("global" if is_global else "project") not in spec.scopes:
        return False
    return not spec.tags or bool(set(spec.tags) & set(facts.tags))


class Router:
    """Routes notes with one reading of the config and the pins."""

    def __init__(
        self, specs: tuple[RemoteSpec, ...], *, has_default: bool, pins: Mapping[str, str]
    ) -> None:
        self.specs = specs
        self.has_default = has_default
        self.pins = pins
        self.names = frozenset(spec.name for spec in specs) | ({DEFAULT} if has_default else set())

    @classmethod
    def of(cls, home: Home) -> Router:
        return cls(
            remote_specs(home.config()),
            has_default=home.remote is not None,
            pins=read_pins(home.layout),
        )

    def route(self, rel: str, facts: Callable[[], NoteFacts | None]) -> Route:
        """The route of the note at ``rel`` (in memory/); ``facts`` reads it, asked only
        when no pin decides."""
        pin = self.pins.get(rel)
        if pin is not None:
            if pin in self.names:
                return Route(pin, f"pinned to {pin}: it was pushed to or pulled from it", True)
            return Route(
                None, f"pinned to {pin}, which is not a remote here any more: kept local", True
            )
        found = facts()
        if found is None:
            return self._rest("not a readable note")
        return self.by_rules(found)

    def by_rules(self, facts: NoteFacts) -> Route:
        """The route the rules give (pins aside): the first remote whose rules match."""
        for spec in self.specs:
            if matches(spec, facts):
                return Route(spec.name, f"matches {spec.name}'s rule ({_rule_text(spec)})")
        return self._rest("no rule matches it")

    def _rest(self, because: str) -> Route:
        if self.has_default:
            return Route(DEFAULT, f"{because}: the default remote takes the rest")
        return Route(None, f"{because}, and there is no default remote: it stays here")


def _rule_text(spec: RemoteSpec) -> str:
    parts = []
    if spec.projects:
        parts.append("projects " + ", ".join(spec.projects))
    if spec.scopes:
        parts.append("scopes " + ", ".join(spec.scopes))
    if spec.tags:
        parts.append("tags " + ", ".join(spec.tags))
    return "; ".join(parts)


def which_remote(home: Home, path: Path) -> Route:
    """Which remote the note file at ``path`` goes to, and why (offline: nothing is
    contacted). A machine-local note goes nowhere."""
    located = home.layout.locate(path)
    if located is None:
        return Route(None, "not a note of this home")
    scope, rel = located
    if scope != "portable":
        return Route(None, "machine-local: never synced")
    if not is_note_path(rel):
        return Route(
            DEFAULT if home.remote is not None else None,
            "not a note file: it goes with memory/'s own sync, as with one remote",
        )
    return Router.of(home).route(rel, lambda: read_facts(path))
