"""config.json as the CLI sees it: read strictly, values checked before they are written.

The store reads the file best-effort (a broken one counts as ``{}``) so that hooks and the
MCP server never fail on it. The CLI also rewrites the file, and rewriting it from that
``{}`` would silently drop the remote, so a command that writes the file refuses a broken
one before changing anything, and a command that only reads it says once that its settings
are being ignored.

Which keys there are, and how each value is checked, is each package's declaration
(:class:`~anamnesis.store.ConfigKey`): :func:`config_keys` gathers them, and `config`,
doctor and the configuration docs' test derive from that.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

from anamnesis.cli import console
from anamnesis.cli.errors import USAGE, CliError, suggest
from anamnesis.hooks import recall_config_keys
from anamnesis.ops import Home
from anamnesis.store import (
    ConfigKey,
    InvalidSetting,
    Record,
    store_config_keys,
    write_config,
)
from anamnesis.sync import is_local, redact_url

MIN_TOKENS_KEY = "compact.min_tokens"
# Where every setting is listed, with its value now and where that comes from.
LIST_ALL = suggest("config", "list", "--all")


def config_keys() -> dict[str, ConfigKey]:
    """Every setting config.json may hold, by key, as each package declares it now: the
    store's, the CLI's own, prompt recall's (the hooks) and the ``llm.*`` (reflection)."""
    # reflect (~20 modules, ~30 ms): loaded by the commands that use it, not every command
    from anamnesis.reflect import llm_config_keys

    keys = [*store_config_keys(), *cli_config_keys(), *recall_config_keys(), *llm_config_keys()]
    return {key.key: key for key in keys}


def cli_config_keys() -> tuple[ConfigKey, ...]:
    """The settings the CLI itself reads."""
    from anamnesis.reflect import COMPACT_MIN_TOKENS  # reflect: see config_keys()

    return (
        ConfigKey(
            MIN_TOKENS_KEY,
            f"`anamnesis compact` rewrites notes longer than this (default {COMPACT_MIN_TOKENS})",
            default=str(COMPACT_MIN_TOKENS),
            check=_min_tokens,
            owner="cli",
        ),
    )


class ConfigUnreadable(CliError):
    """config.json exists but holds no usable settings; nothing may overwrite it."""

    def __init__(self, path: Path, problem: str) -> None:
        super().__init__(
            f"{path} {problem}; nothing was changed: fix it by hand, "
            "or move it aside and run `anamnesis init`"
        )
        self.path = path
        self.problem = problem


def load_config(home: Home) -> dict[str, Any]:
    """The settings (``{}`` when there is no file); raises ConfigUnreadable for a file that
    cannot be read or is not a JSON object."""
    path = home.layout.config_path
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):  # no file; a bad home is the store's to say
        return {}
    except UnicodeDecodeError:
        raise ConfigUnreadable(path, "is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigUnreadable(path, f"cannot be read ({exc.strerror or exc})") from None
    if not text.strip():
        return {}  # an empty file holds no settings that a rewrite could lose
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ConfigUnreadable(path, f"is not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ConfigUnreadable(path, 'is not a JSON object like {"machine_id": "laptop"}')
    return data


def set_setting(home: Home, key: str, value: str) -> None:
    """Store one (already checked) setting in config.json, keeping the others; a broken
    file is refused by :func:`load_config`, since rewriting it would wipe it."""
    data = load_config(home)
    data[key] = value
    write_config(data, home.root)


def unset_setting(home: Home, key: str) -> None:
    """Remove one setting from config.json (refused, like a change, when the file is
    broken); nothing is written when it was not set."""
    data = load_config(home)
    if data.pop(key, None) is not None:
        write_config(data, home.root)


def config_for_reading(home: Home) -> dict[str, Any]:
    """The settings for a command that only reads them. A broken file is one warning and the
    defaults apply, as they do for the hooks and the MCP server."""
    try:
        return load_config(home)
    except ConfigUnreadable as exc:
        console.warn(
            f"{exc.path} {exc.problem}; its settings (machine_id, remote) are ignored "
            "until it is fixed"
        )
        return {}


def check_setting(key: str, value: str, *, source: str = "", code: int = USAGE) -> str:
    """``value`` as config.json stores ``key`` (its declaration's check), or a one-line
    error naming where the value came from (``source``, default: the key)."""
    try:
        return config_keys()[key].checked(value, source)
    except InvalidSetting as exc:
        raise CliError(str(exc), code=code) from None


def check_machine_id(value: str, *, source: str = "machine_id", code: int = USAGE) -> str:
    """A machine id as stored (the store's rule: it lands in every note's frontmatter, in
    commit authors and in conflict file names)."""
    return check_setting("machine_id", value, source=source, code=code)


def check_model_path(value: str, *, source: str = "embed_model_path", code: int = USAGE) -> str:
    """An existing folder with an ``.onnx`` file, stored absolute."""
    return check_setting("embed_model_path", value, source=source, code=code)


def check_min_tokens(value: object, *, source: str = MIN_TOKENS_KEY, code: int = USAGE) -> str:
    """A positive whole number of tokens, as text (``2000``; ``2000.0`` is read as 2000)."""
    try:
        return _min_tokens(value, source)
    except InvalidSetting as exc:
        raise CliError(str(exc), code=code) from None


def _min_tokens(value: object, where: str) -> str:
    text = str(value).strip()
    try:
        number = float(text) if not isinstance(value, bool) else 0.0
    except ValueError:
        number = 0.0
    if not (number.is_integer() and number >= 1):  # NaN and inf are not integers
        raise InvalidSetting(
            MIN_TOKENS_KEY, f"{where} must be a whole number greater than 0, not {value!r}"
        )
    return str(int(number))


def normalize_remote(remote: str) -> str:
    """A remote as stored: the store's check, then a local path made absolute (syncs run
    from any folder; what is local is sync's to say, which the store does not see)."""
    text = check_setting("remote", remote)
    if is_local(text) and not text.startswith("file://"):
        return str(Path(text).expanduser().resolve())
    return text


def check_key(key: str) -> ConfigKey:
    """``key``'s declaration, or a one-line usage error naming the keys it is close to
    (a typo) and where every key is listed: never the whole list."""
    keys = config_keys()
    if key in keys:
        return keys[key]
    close = close_keys(key, list(keys))
    guess = f"; did you mean {' or '.join(close)}?" if close else ""
    raise CliError(f"unknown setting {key}{guess} ({LIST_ALL} shows every setting)", code=USAGE)


def close_keys(typed: str, keys: list[str]) -> list[str]:
    """The keys ``typed`` is a typo of: the closest, and any as close within a margin
    (``prompt_recall``: both of its keys), none when nothing is close."""
    scored = sorted(
        ((SequenceMatcher(None, typed.lower(), key.lower()).ratio(), key) for key in keys),
        reverse=True,
    )
    if not scored or scored[0][0] < 0.6:
        return []
    best = scored[0][0]
    return [key for score, key in scored if score >= best - 0.1][:3]


class Effective(Record):
    """Where one setting's value comes from now: ``source`` is ``environment`` (the
    variable ``variable``), ``config.json`` or ``default`` (``value`` is then None: the
    declared default, in words, applies). ``stored``: config.json's value, also when a
    variable overrides it. ``problem``: why the value in force does not read (a lenient
    key's is then ignored and the default applies)."""

    __slots__ = ("key", "value", "source", "variable", "stored", "problem")

    def __init__(
        self,
        key: ConfigKey,
        value: str | None,
        source: str,
        *,
        variable: str | None = None,
        stored: str | None = None,
        problem: str = "",
    ) -> None:
        self.key = key
        self.value = value
        self.source = source
        self.variable = variable
        self.stored = stored
        self.problem = problem

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key.key,
            "value": self.value,
            "source": self.source,
            "variable": self.variable,
            "config_value": self.stored,
            "default": self.key.default,
            "problem": self.problem or None,
        }

    def origin(self, show: Callable[[str], str] = str) -> str:
        """Where the value in force comes from, in words (``show``: how a value is shown,
        e.g. a remote's password hidden)."""
        if self.value is None:
            return f"not set: the default applies ({self.key.default})"
        if self.source == "environment":
            over = f", over config.json's {show(self.stored)}" if self.stored is not None else ""
            where = f"from {self.variable}{over}"
        else:
            where = "from config.json"
        if self.problem:
            outcome = "ignored: the default applies" if self.key.lenient else "it fails"
            where += f"; {outcome}: {self.problem}"
        return where

    def describe(self, show: Callable[[str], str] = str) -> str:
        """One line: the setting, its value in force and where that comes from."""
        if self.value is None:
            return f"{self.key.key}: {self.origin(show)}"
        return f"{self.key.key} = {show(self.value)} ({self.origin(show)})"

    def overridden(self) -> str:
        """What to say after config.json changed while a variable decides the value here
        ("" when none does)."""
        if self.source != "environment":
            return ""
        return (
            f"{self.variable} is set in this environment and overrides config.json here "
            "(the hooks and the MCP server read config.json)"
        )


def effective_setting(
    declared: ConfigKey, config: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> Effective:
    """The value ``declared`` has now: its first variable that is set, else config.json's
    value, else its default (the order every package reads them in)."""
    environ = os.environ if environ is None else environ
    raw = config.get(declared.key)
    stored = None if raw is None else str(raw)
    for variable in declared.env:
        held = environ.get(variable, "").strip()
        if held:
            # A variable holding a secret stands for its own name (never shown).
            value = variable if declared.env_is_secret else held
            return Effective(
                declared, value, "environment", variable=variable, stored=stored,
                problem="" if declared.env_is_secret else _problem(declared, value, variable),
            )  # fmt: skip
    if stored is None:
        return Effective(declared, None, "default")
    where = f"{declared.key} in config.json"
    return Effective(
        declared, stored, "config.json", stored=stored, problem=_problem(declared, stored, where)
    )


def change_line(before: Effective, stored: str | None) -> str:
    """What `config set` (``stored``: the new value) or `config unset` (None) did, with
    the value it replaced."""
    declared = before.key
    show = redact_url if declared.key == "remote" else str  # as `config list` shows it
    was = show(before.stored) if before.stored is not None else None
    was = was or f"not set, default {declared.default}"
    if stored is None:
        if before.stored is None:
            return f"{declared.key} was not set; the default applies: {declared.default}"
        return f"{declared.key} unset (was: {was}); the default applies: {declared.default}"
    if stored == before.stored:
        return f"{declared.key} = {show(stored)} (unchanged)"
    return f"{declared.key} = {show(stored)} (was: {was})"


def _problem(declared: ConfigKey, value: str, where: str) -> str:
    try:
        declared.checked(value, where)
    except InvalidSetting as exc:
        return str(exc)
    return ""


def checked_value(key: str, value: str) -> str:
    """A setting's value as `config set` stores it, or a one-line usage error."""
    if not value.strip():
        raise CliError(f"{key} cannot be empty; use {suggest('config', 'unset', key)}", code=USAGE)
    return normalize_remote(value) if key == "remote" else check_setting(key, value)
