"""Prompt-time recall's settings: on or off, and its budget.

Each comes from the hook's flag (``--budget``), else an environment variable, else
config.json, else the default. ``anamnesis config set`` checks a value with
:func:`check_recall_setting` before storing it; a value edited into the file by hand that
does not read is ignored here (the default applies) and named by ``anamnesis doctor``.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

ENABLED_KEY = "prompt_recall.enabled"
BUDGET_KEY = "prompt_recall.budget"
ENABLED_ENV = "ANAMNESIS_PROMPT_RECALL"
BUDGET_ENV = "ANAMNESIS_PROMPT_RECALL_BUDGET"

DEFAULT_BUDGET = 2000
# The frame, the closing line and one note cut short must fit; Claude Code replaces hook
# output over 10,000 characters with a preview.
MIN_BUDGET = 1000
MAX_BUDGET = 10000

RECALL_SETTINGS = {
    ENABLED_KEY: "add related notes to each prompt's context: true or false (default true)",
    BUDGET_KEY: f"the most characters a prompt's recalled notes may take "
    f"({MIN_BUDGET}-{MAX_BUDGET}, default {DEFAULT_BUDGET})",
}

_ON = ("true", "on", "yes", "1")
_OFF = ("false", "off", "no", "0")


class InvalidRecallSetting(ValueError):
    """A prompt recall setting whose value does not read."""


def check_recall_setting(key: str, value: object) -> str:
    """A setting's value as config.json stores it (``true``/``false``, a whole number), or
    :class:`InvalidRecallSetting` saying what would be accepted."""
    if key == ENABLED_KEY:
        switch = _switch(value)
        if switch is None:
            raise InvalidRecallSetting(f"{key} must be true or false, got {value!r}")
        return "true" if switch else "false"
    if key == BUDGET_KEY:
        number = _whole(value)
        if number is None or not MIN_BUDGET <= number <= MAX_BUDGET:
            raise InvalidRecallSetting(
                f"{key} must be a whole number of characters from {MIN_BUDGET} to "
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
