"""The settings config.json may hold, declared once each: :class:`ConfigKey` (the key, what it
does, its default, the variables that override it, its allowed values and how a value is
checked, and the package that reads it).

Each package declares its own keys next to the code that reads them (the store's here, the
hooks' prompt recall settings, reflection's ``llm.*``, the CLI's own); the CLI's ``config``
command, ``anamnesis doctor`` and the configuration docs' test gather them, so a new key is
one declaration. The record lives in the store because every package sees the store and
none sees another. Each package builds its keys when asked (:func:`store_config_keys`),
from its tables as they are then (the search modes, say), and importing this module is
for the CLI and doctor only: the hooks' hot path never loads it.
"""

from __future__ import annotations

from pathlib import Path

from anamnesis.store.note.limits import NoteLimits
from anamnesis.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    # (the value as given, where it came from for the message) -> the value as config.json
    # stores it; raises InvalidSetting.
    Check = Callable[[str, str], str]


class InvalidSetting(ValueError):
    """A setting's value that does not read: the message says where it came from and what
    would be accepted."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class ConfigKey(Record):
    """One setting of config.json.

    ``help``: one line on what it does. ``default``: what applies when it is not set, in
    words. ``env``: the environment variables that override it, the first set winning.
    ``choices``: its allowed values, when it has a few (checked here unless ``check`` is
    set). ``check``: how a value is read, when not by the choices or as one line of text.
    ``lenient``: where it is read, a bad value is ignored and the default applies
    (``anamnesis doctor`` names it); otherwise the command reading it fails. ``owner``: the
    package that reads it. ``env_is_secret``: the variables hold a secret, not this
    setting's value; one being set makes the setting its name (``llm.api_key_env``:
    ``ANAMNESIS_LLM_API_KEY`` holds a key itself), and what it holds is never shown.
    """

    __slots__ = (
        "key", "help", "default", "env", "choices", "check", "lenient", "owner", "env_is_secret",
    )  # fmt: skip

    def __init__(
        self,
        key: str,
        help: str,
        *,
        default: str,
        owner: str,
        env: tuple[str, ...] = (),
        choices: tuple[str, ...] = (),
        check: Check | None = None,
        lenient: bool = False,
        env_is_secret: bool = False,
    ) -> None:
        self.key = key
        self.help = help
        self.default = default
        self.env = env
        self.choices = choices
        self.check = check
        self.lenient = lenient
        self.owner = owner
        self.env_is_secret = env_is_secret

    def checked(self, value: str, where: str = "") -> str:
        """``value`` as config.json stores it, or :class:`InvalidSetting` saying why not
        (``where``: where the value came from, for the message; default: the key)."""
        where = where or self.key
        if self.check is not None:
            return self.check(value, where)
        text = value.strip()
        if self.choices and text not in self.choices:
            raise InvalidSetting(
                self.key, f"{where} must be one of {', '.join(self.choices)}, got {value!r}"
            )
        if not text.isprintable():
            raise InvalidSetting(self.key, f"{where} must be one line of text: {value!r}")
        return text


def checking(key: str, check: Callable[[str, str, str], str], *errors: type[Exception]) -> Check:
    """``key``'s check from a package's own ``check(key, value, where)``, whose ``errors``
    are read as :class:`InvalidSetting` (a package keeps its own error types)."""

    def checked(value: str, where: str) -> str:
        try:
            return check(key, value, where)
        except errors as exc:
            raise InvalidSetting(key, str(exc)) from None

    return checked


def store_config_keys() -> tuple[ConfigKey, ...]:
    """The settings the store reads, as its tables have them now."""
    from anamnesis.store.search.search_modes import CONFIG_KEY as SEARCH_MODE_KEY
    from anamnesis.store.search.search_modes import (
        DEFAULT_MODE,
        KEYWORD_MODE,
        KEYWORD_RANKING_ENV,
        KEYWORD_RANKING_KEY,
        KEYWORD_RANKINGS,
        SEARCH_MODE_ENV,
        SEARCH_MODES,
        USAGE_PRIOR_ENV,
        USAGE_PRIOR_KEY,
        USAGE_PRIOR_OFF,
    )
    from anamnesis.store.vectors.embedding import DEFAULT_MODEL, MODEL_ENV, MODEL_PATH_ENV

    modes = tuple(SEARCH_MODES)
    return (
        ConfigKey(
            "machine_id", "this machine's name in notes (default: the hostname)",
            default="the hostname", env=("ANAMNESIS_MACHINE_ID",), check=check_machine_id,
            owner="store",
        ),
        ConfigKey(
            "remote", "the git remote notes sync through (none: this machine only)",
            default="none: notes stay on this machine", env=("ANAMNESIS_GIT_REMOTE",),
            check=_check_remote, owner="store",
        ),
        ConfigKey(
            SEARCH_MODE_KEY, f"the default search: {_one_of(modes)}",
            default=f"{DEFAULT_MODE} where vector search runs, else {KEYWORD_MODE}",
            env=(SEARCH_MODE_ENV,), choices=modes, lenient=True, owner="store",
        ),
        ConfigKey(
            KEYWORD_RANKING_KEY,
            "content (default: a query's stop words left out) or spec (spec 002)",
            default=KEYWORD_RANKINGS[0], env=(KEYWORD_RANKING_ENV,), choices=KEYWORD_RANKINGS,
            lenient=True, owner="store",
        ),
        ConfigKey(
            USAGE_PRIOR_KEY,
            "off, or a weight from 0 to 1: search lifts notes this machine's sessions "
            "fetched or were recalled lately, by at most that share of the best score",
            default=USAGE_PRIOR_OFF, env=(USAGE_PRIOR_ENV,), check=_check_usage_prior,
            lenient=True, owner="store",
        ),
        ConfigKey(
            "embed_model", "the embedding model for the vectors extra",
            default=DEFAULT_MODEL, env=(MODEL_ENV,), owner="store",
        ),
        ConfigKey(
            "embed_model_path",
            "a local folder holding that model's .onnx file (instead of a download)",
            default="none: the model is downloaded once", env=(MODEL_PATH_ENV,),
            check=check_model_path, lenient=True, owner="store",
        ),
    )  # fmt: skip


def _one_of(choices: tuple[str, ...]) -> str:
    """``a, b or c``."""
    *rest, last = choices
    return f"{', '.join(rest)} or {last}" if rest else last


def default_machine_id() -> str:
    """This host's name, reduced to what reads well in a note: ``laptop``, ``build-01``."""
    import re
    import socket

    name = socket.gethostname().split(".")[0].lower()
    return re.sub(r"[^a-z0-9_-]+", "-", name).strip("-") or "machine"


def check_machine_id(value: str, where: str = "machine_id") -> str:
    """A machine id as stored: one short printable line without path separators, since it
    lands in every note's frontmatter, in commit authors and in conflict file names (the
    rules the store checks on every note it writes, said early)."""
    text = value.strip()
    problem = ""
    if not text:
        problem = "is empty"
    elif len(text) > NoteLimits.MACHINE_ID_CHARS:
        problem = f"is longer than {NoteLimits.MACHINE_ID_CHARS} characters"
    elif not text.isprintable():
        problem = "contains a line break or another control character"
    elif "/" in text or "\\" in text:
        problem = "contains a path separator (/ or \\)"
    if problem:
        raise InvalidSetting(
            "machine_id",
            f"{where} {problem}: {value!r}; use one short name such as {default_machine_id()!r}",
        )
    return text


def _check_usage_prior(value: str, where: str) -> str:
    from anamnesis.store.search.search_modes import USAGE_PRIOR_KEY, read_usage_prior

    weight = read_usage_prior(value)
    if weight is None:
        raise InvalidSetting(
            USAGE_PRIOR_KEY, f"{where} must be off or a number from 0 to 1, got {value!r}"
        )
    return "off" if weight == 0 else f"{weight:g}"


def _check_remote(value: str, where: str) -> str:
    text = value.strip()
    if not text or any(char.isspace() for char in text) or not text.isprintable():
        raise InvalidSetting("remote", f"not a usable git remote: {value!r}")
    return text


def check_model_path(value: str, where: str = "embed_model_path") -> str:
    """An existing folder with an ``.onnx`` file, stored absolute (commands run anywhere).
    Checked when set: the store would otherwise find out at the next search, and fall back
    to keyword search with a warning instead of saying what is wrong with the setting."""
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
        raise InvalidSetting(
            "embed_model_path",
            f"{where} {value.strip()!r} {problem}; point it at a folder with the model's "
            ".onnx file and its tokenizer files",
        )
    return str(folder.resolve())
