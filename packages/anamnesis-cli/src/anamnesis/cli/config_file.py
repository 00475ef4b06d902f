"""config.json as the CLI sees it: read strictly, values checked before they are written.

The store reads the file best-effort (a broken one counts as ``{}``) so that hooks and the
MCP server never fail on it. The CLI also rewrites the file, and rewriting it from that
``{}`` would silently drop the remote, so a command that writes the file refuses a broken
one before changing anything, and a command that only reads it says once that its settings
are being ignored.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any

from anamnesis.cli import console
from anamnesis.cli.errors import USAGE, CliError
from anamnesis.ops import Home
from anamnesis.store import NoteLimits, write_config

# The store's limit: a machine id is written into every note this machine makes.
MAX_MACHINE_ID = NoteLimits.MACHINE_ID_CHARS


def _llm_settings() -> dict[str, str]:
    from anamnesis.reflect import LLM_SETTINGS

    return dict(LLM_SETTINGS)


def _recall_settings() -> dict[str, str]:
    from anamnesis.hooks import RECALL_SETTINGS

    return dict(RECALL_SETTINGS)


RECALL_KEYS = tuple(_recall_settings())

CONFIG_KEYS = {
    "machine_id": "this machine's name in notes (default: the hostname)",
    "remote": "the git remote notes sync through (none: this machine only)",
    "embed_model": "the embedding model for the vectors extra",
    "embed_model_path": "a local folder holding that model's .onnx file (instead of a download)",
    "search_mode": "the default search: keyword, vector or hybrid",
    "keyword_ranking": "content (default: a query's stop words left out) or spec (spec 002)",
    "compact.min_tokens": "`anamnesis compact` rewrites notes longer than this (default 1500)",
    **_recall_settings(),
    **_llm_settings(),
}


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


def default_machine_id() -> str:
    """This host's name, reduced to what reads well in a note: ``laptop``, ``build-01``."""
    name = socket.gethostname().split(".")[0].lower()
    return re.sub(r"[^a-z0-9_-]+", "-", name).strip("-") or "machine"


def check_machine_id(value: str, *, source: str = "machine_id", code: int = USAGE) -> str:
    """A machine id as stored: one short printable line without path separators, since it
    lands in every note's frontmatter, in commit authors and in conflict file names."""
    text = value.strip()
    problem = ""
    if not text:
        problem = "is empty"
    elif len(text) > MAX_MACHINE_ID:
        problem = f"is longer than {MAX_MACHINE_ID} characters"
    elif not text.isprintable():
        problem = "contains a line break or another control character"
    elif "/" in text or "\\" in text:
        problem = "contains a path separator (/ or \\)"
    if problem:
        raise CliError(
            f"{source} {problem}: {value!r}; use one short name such as {default_machine_id()!r}",
            code=code,
        )
    return text


def normalize_remote(remote: str) -> str:
    """A remote as stored: local paths made absolute (syncs run from any folder)."""
    from anamnesis.sync import is_local

    text = remote.strip()
    if not text or any(ch.isspace() for ch in text) or not text.isprintable():
        raise CliError(f"not a usable git remote: {remote!r}", code=USAGE)
    if is_local(text) and not text.startswith("file://"):
        return str(Path(text).expanduser().resolve())
    return text


def check_key(key: str) -> None:
    if key not in CONFIG_KEYS:
        known = "; ".join(f"{k}: {v}" for k, v in CONFIG_KEYS.items())
        raise CliError(f"unknown setting {key!r}; settings are {known}", code=USAGE)


def checked_value(key: str, value: str) -> str:
    """A setting's value as `config set` stores it, or a one-line usage error."""
    if not value.strip():
        raise CliError(f"{key} cannot be empty; use `anamnesis config unset {key}`", code=USAGE)
    if key == "remote":
        return normalize_remote(value)
    if key == "machine_id":
        return check_machine_id(value)
    if key == "embed_model_path":
        return check_model_path(value)
    if key == "search_mode":
        return check_search_mode(value)
    if key == "keyword_ranking":
        return check_keyword_ranking(value)
    if key == "compact.min_tokens":
        return check_min_tokens(value)
    if key.startswith("prompt_recall."):
        return check_recall_value(key, value)
    if key.startswith("llm."):
        from anamnesis.reflect import InvalidLlmSetting, check_setting

        try:
            return check_setting(key, value)
        except InvalidLlmSetting as exc:
            raise CliError(str(exc), code=USAGE) from None
    text = value.strip()
    if not text.isprintable():
        raise CliError(f"{key} must be one line of text: {value!r}", code=USAGE)
    return text


def check_recall_value(key: str, value: str, *, source: str = "", code: int = USAGE) -> str:
    """A prompt recall setting as stored (``true``/``false``, a budget in characters), or a
    one-line error naming where the value came from (``source``, default: the key)."""
    from anamnesis.hooks import InvalidRecallSetting, check_recall_setting

    try:
        return check_recall_setting(key, value)
    except InvalidRecallSetting as exc:
        message = str(exc)
        if source:
            message = message.replace(key, source, 1)
        raise CliError(message, code=code) from None


def check_min_tokens(
    value: object, *, source: str = "compact.min_tokens", code: int = USAGE
) -> str:
    """A positive whole number of tokens, as text (``2000``; ``2000.0`` is read as 2000)."""
    text = str(value).strip()
    try:
        number = float(text) if not isinstance(value, bool) else 0.0
    except ValueError:
        number = 0.0
    if not (number.is_integer() and number >= 1):  # NaN and inf are not integers
        raise CliError(f"{source} must be a whole number greater than 0, not {value!r}", code=code)
    return str(int(number))


def check_search_mode(value: str, *, source: str = "search_mode", code: int = USAGE) -> str:
    from anamnesis.store import SEARCH_MODES

    text = value.strip()
    if text not in SEARCH_MODES:
        choices = ", ".join(SEARCH_MODES)
        raise CliError(f"{source} must be one of {choices}, got {value!r}", code=code)
    return text


def check_keyword_ranking(value: str, *, source: str = "keyword_ranking", code: int = USAGE) -> str:
    from anamnesis.store import KEYWORD_RANKINGS

    text = value.strip()
    if text not in KEYWORD_RANKINGS:
        choices = ", ".join(KEYWORD_RANKINGS)
        raise CliError(f"{source} must be one of {choices}, got {value!r}", code=code)
    return text


def check_model_path(value: str, *, source: str = "embed_model_path", code: int = USAGE) -> str:
    """An existing folder with an ``.onnx`` file, stored absolute (commands run anywhere).
    Checked now: the store would otherwise find out at the next search, and fall back to
    keyword search with a warning instead of saying what is wrong with the setting."""
    folder = Path(value.strip()).expanduser()
    problem = ""
    try:
        if not folder.is_dir():
            problem = "is not an existing folder"
        elif not any(folder.glob("*.onnx")):
            problem = "holds no .onnx model file"
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror or exc})"
    if problem:
        raise CliError(
            f"{source} {value.strip()!r} {problem}; point it at a folder with the model's "
            ".onnx file and its tokenizer files",
            code=code,
        )
    return str(folder.resolve())
