"""Prompt-time recall's settings: on or off, and its budget.

Each comes from the hook's flag (``--budget``), else an environment variable, else
config.json, else the default. They are declared once, as the store's config keys
(:func:`recall_config_keys`): ``anamnesis config set`` checks a value with
:func:`check_recall_setting` before storing it; a value edited into the file by hand that
does not read is ignored here (the default applies) and named by ``anamnesis doctor``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from anamnesis.store import ConfigKey

ENABLED_KEY = "prompt_recall.enabled"
BUDGET_KEY = "prompt_recall.budget"
ENABLED_ENV = "ANAMNESIS_PROMPT_RECALL"
BUDGET_ENV = "ANAMNESIS_PROMPT_RECALL_BUDGET"

DEFAULT_BUDGET = 2000
# The frame, the closing line and one note cut short must fit; Claude Code replaces hook
# output over 10,000 characters with a preview.
MIN_BUDGET = 1000
MAX_BUDGET = 10000


def recall_config_keys() -> tuple[ConfigKey, ...]:
    """Prompt recall's settings, declared for ``anamnesis config`` and doctor (the store's
    config-key record is imported here, never on the hooks' hot path)."""
    from anamnesis.store import ConfigKey, checking

    def check(key: str) -> Callable[[str, str], str]:
        return checking(key, check_recall_setting, InvalidRecallSetting)

    return (
        ConfigKey(
            ENABLED_KEY, "add related notes to each prompt's context: true or false (default true)",
            default="true", env=(ENABLED_ENV,), choices=("true", "false"),
            check=check(ENABLED_KEY), lenient=True, owner="hooks",
        ),
        ConfigKey(
            BUDGET_KEY,
            f"the most characters a prompt's recalled notes may take "
            f"({MIN_BUDGET}-{MAX_BUDGET}, default {DEFAULT_BUDGET})",
            default=str(DEFAULT_BUDGET), env=(BUDGET_ENV,), check=check(BUDGET_KEY),
            lenient=True, owner="hooks",
        ),
    )  # fmt: skip


_ON = ("true", "on", "yes", "1")
_OFF = ("false", "off", "no", "0")


class InvalidRecallSetting(ValueError):
    """A prompt recall setting whose value does not read."""


def check_recall_setting(key: str, value: object, where: str = "") -> str:
    """A setting's value as config.json stores it (``true``/``false``, a whole number), or
    :class:`InvalidRecallSetting` saying what would be accepted (``where``: where the
    value came from, for the message; default: the key)."""
    where = where or key
    if key == ENABLED_KEY:
        switch = _switch(value)
        if switch is None:
            raise InvalidRecallSetting(f"{where} must be true or false, got {value!r}")
        return "true" if switch else "false"
    if key == BUDGET_KEY:
        number = _whole(value)
        if number is None or not MIN_BUDGET <= number <= MAX_BUDGET:
            raise InvalidRecallSetting(
                f"{where} must be a whole number of characters from {MIN_BUDGET} to "
                f"{MAX_BUDGET}, got {value!r}"
            )
        return str(number)
    raise InvalidRecallSetting(f"unknown prompt recall setting {key!r}")


def recall_enabled(config: Mapping[str, Any]) -> bool:
    """``ANAMNESIS_PROMPT_RECALL``, else config.json's ``prompt_recall.enabled``, else on."""
    for value in (os.environ.get(ENABLED_ENV), config.get(ENABLED_KEY)):
        switch = _switch(value)
        if switch is not None:
            return switch
    return True


def recall_budget(config: Mapping[str, Any]) -> int:
    """``ANAMNESIS_PROMPT_RECALL_BUDGET``, else config.json's ``prompt_recall.budget``, else
    :data:`DEFAULT_BUDGET`; values outside the bounds are ignored."""
    for value in (os.environ.get(BUDGET_ENV), config.get(BUDGET_KEY)):
        number = _whole(value)
        if number is not None and MIN_BUDGET <= number <= MAX_BUDGET:
            return number
    return DEFAULT_BUDGET


def _switch(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip():
        text = value.strip().lower()
        if text in _ON:
            return True
        if text in _OFF:
            return False
    return None


def _whole(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None
