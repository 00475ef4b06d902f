"""The remotes a home syncs with, as config.json declares them.

``remote`` (or ``ANAMNESIS_GIT_REMOTE``) is the default remote, shown as ``default``: a
config without ``remotes`` is exactly what it was before there were several. ``remotes``
is an ORDERED list of named remotes, each with the rules that route notes to it; the
first whose rules match a note takes it (routing.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from anamnesis.store import write_config

if TYPE_CHECKING:
    from anamnesis.ops.remotes.home_view import RemotesHome as Home

DEFAULT = "default"  # the name the `remote` setting is shown under
DEFAULT_REMOTE = DEFAULT  # its public name: anamnesis.ops.DEFAULT_REMOTE
REMOTES_KEY = "remotes"
SCOPES = ("global", "project")  # global: a note with no project; project: one with
_NAME = re.compile(r"[a-z][a-z0-9-]{0,31}")


class RemoteConfigError(ValueError):
    """A remote as declared (or asked for) cannot be used; the message says why."""


@dataclass(frozen=True, slots=True)
class RemoteSpec:
    """A named remote: where it is and which notes its rules take (every criterion given
    must match; none given: no note by rule, only notes shared to it)."""

    name: str
    url: str
    projects: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    encrypt: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def has_rules(self) -> bool:
        return bool(self.projects or self.scopes or self.tags)

    def as_json(self) -> dict[str, Any]:
        """As config.json keeps it (keys another version wrote are kept too)."""
        return {
            **self.extra,
            "name": self.name,
            "url": self.url,
            "projects": list(self.projects),
            "scopes": list(self.scopes),
            "tags": list(self.tags),
            "encrypt": self.encrypt,
        }


def check_name(name: str) -> str:
    """``name`` if it can name a remote: ``[a-z][a-z0-9-]{0,31}``, not ``default``."""
    if name == DEFAULT:
        raise RemoteConfigError(
            "'default' is the `remote` setting's name: choose another name for this remote"
        )
    if not _NAME.fullmatch(name):
        raise RemoteConfigError(
            f"{name!r} cannot name a remote: a lower-case letter, then up to 31 lower-case"
            " letters, digits or '-'"
        )
    return name


def check_scopes(scopes: tuple[str, ...]) -> tuple[str, ...]:
    for scope in scopes:
        if scope not in SCOPES:
            raise RemoteConfigError(f"scope {scope!r}: use {' or '.join(SCOPES)}")
    return scopes


def remote_specs(config: dict[str, Any]) -> tuple[RemoteSpec, ...]:
    """The named remotes of a config.json, in order; an entry that cannot be used (no
    name or URL, a bad name, a duplicate) is left out, never guessed at (doctor says so:
    :func:`config_problems`)."""
    specs, _problems = _read(config)
    return specs


def config_problems(config: dict[str, Any]) -> list[str]:
    """What is wrong with config.json's ``remotes`` (empty: nothing)."""
    _specs, problems = _read(config)
    return problems


def _read(config: dict[str, Any]) -> tuple[tuple[RemoteSpec, ...], list[str]]:
    raw = config.get(REMOTES_KEY)
    if raw is None:
        return (), []
    if not isinstance(raw, list):
        return (), [f"`{REMOTES_KEY}` is not a list"]
    specs: list[RemoteSpec] = []
    problems: list[str] = []
    for position, entry in enumerate(raw, 1):
        try:
            spec = _spec(entry)
        except RemoteConfigError as exc:
            problems.append(f"remote #{position}: {exc}")
            continue
        if any(known.name == spec.name for known in specs):
            problems.append(f"remote #{position}: {spec.name!r} is declared twice")
            continue
        specs.append(spec)
    return tuple(specs), problems


def _spec(entry: object) -> RemoteSpec:
    if not isinstance(entry, dict):
        raise RemoteConfigError("not an object")
    name, url = entry.get("name"), entry.get("url")
    if not isinstance(name, str) or not isinstance(url, str) or not url.strip():
        raise RemoteConfigError("needs a name and a url")
    known = {"name", "url", "projects", "scopes", "tags", "encrypt"}
    return RemoteSpec(
        name=check_name(name),
        url=url.strip(),
        projects=_strings(entry, "projects"),
        scopes=check_scopes(_strings(entry, "scopes")),
        tags=_strings(entry, "tags"),
        encrypt=entry.get("encrypt") is True,
        extra={key: value for key, value in entry.items() if key not in known},
    )


def _strings(entry: dict[str, Any], key: str) -> tuple[str, ...]:
    value = entry.get(key) or []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise RemoteConfigError(f"`{key}` is not a list of strings")
    return tuple(value)


def save_specs(home: Home, specs: tuple[RemoteSpec, ...]) -> None:
    """Write ``specs`` as config.json's ``remotes`` (the key dropped when none is left,
    so a home back to one remote has the config it had before)."""
    config = home.config()
    if specs:
        config[REMOTES_KEY] = [spec.as_json() for spec in specs]
    else:
        config.pop(REMOTES_KEY, None)
    write_config(config, home.root)
