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
from pathlib import Path
from typing import Any

from anamnesis.cli import console
from anamnesis.cli.errors import USAGE, CliError
from anamnesis.hooks import recall_config_keys
from anamnesis.ops import Home
from anamnesis.store import ConfigKey, InvalidSetting, store_config_keys, write_config
from anamnesis.sync import is_local

MIN_TOKENS_KEY = "compact.min_tokens"


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


def check_key(key: str) -> None:
    keys = config_keys()
    if key not in keys:
        known = "; ".join(f"{k}: {v.help}" for k, v in keys.items())
        raise CliError(f"unknown setting {key!r}; settings are {known}", code=USAGE)


def checked_value(key: str, value: str) -> str:
    """A setting's value as `config set` stores it, or a one-line usage error."""
    if not value.strip():
        raise CliError(f"{key} cannot be empty; use `anamnesis config unset {key}`", code=USAGE)
    return normalize_remote(value) if key == "remote" else check_setting(key, value)
