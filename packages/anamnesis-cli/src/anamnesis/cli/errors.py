"""The one error type commands raise (a message for stderr and an exit status), and the
commands a message suggests (:func:`suggest`, :func:`backquoted`)."""

from __future__ import annotations

import shlex

FAILURE = 1
USAGE = 2


class CliError(Exception):
    """Shown as one line on stderr; the process exits with ``code``."""

    def __init__(self, message: str, code: int = FAILURE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


class UsageError(CliError):
    """The command line itself is wrong (exit status 2)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, USAGE)


def suggest(*words: str) -> str:
    """A command for a message to suggest, in backticks, quoted so that it runs as printed
    when pasted into a shell (a folder with a space in it, say): ``suggest("import",
    "jsonl", folder)``. Upper-case words (FOLDER, URL) are the placeholders a person fills
    in; `tests/test_suggestions.py` runs what the commands print."""
    return backquoted(shlex.join(["anamnesis", *words]))


def backquoted(line: str) -> str:
    """A shell line in a message, in backticks: what the CLI's convention marks as a command
    to type, and what the terminal's wrapping never splits (``display.wrapping``)."""
    return f"`{line}`"
