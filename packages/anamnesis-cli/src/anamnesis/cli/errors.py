"""The one error type commands raise: a message for stderr and an exit status."""

from __future__ import annotations

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
