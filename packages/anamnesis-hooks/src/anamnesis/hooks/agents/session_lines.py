"""A session file of JSON lines (a Claude Code transcript, a Codex rollout), read safely,
and what a reader makes of it (:class:`ParsedSession`): the one place the readers' rules
live, so that every agent's capture has the same caps and the same fail-open reading.

Only a regular file is read (a FIFO would block the hook, a device never end); the file is
streamed (a huge session costs time, not memory); a line is never held whole past
:data:`MAX_LINE_BYTES` (it is counted and skipped), and reading stops at
:data:`MAX_TRANSCRIPT_BYTES`. A line that is not a JSON object (garbage, cut off mid-write,
not UTF-8, nested too deep for the parser) is counted and skipped: one bad line never costs
the session its note.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from anamnesis.store import UnsafeFile, open_regular

TYPE_CHECKING = False  # typing costs an import the hooks' hot path does without
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

# Lines longer than this are tool output (file dumps, logs): skipped unparsed.
MAX_LINE_BYTES = 4 * 1024 * 1024
# Reading stops here: a session this long has been compacted many times, and its start and
# the note made from it are in the first part anyway. The hook has seconds, not minutes.
MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
CHUNK = 1 << 16


class TranscriptUnreadable(Exception):
    """The transcript file is missing or cannot be read."""


@dataclass(slots=True)
class ParsedSession:
    """What happened in a session, as far as its transcript tells, whichever agent wrote it."""

    session_id: str = ""
    cwd: str = ""
    git_branch: str = ""
    first_prompt: str = ""
    commands: list[str] = field(default_factory=list)
    last_outcome: str = ""
    files_touched: list[str] = field(default_factory=list)
    started_at: str = ""
    ended_at: str = ""
    user_turns: int = 0
    compactions: int = 0
    # Lines skipped: not a JSON object (garbage, cut off, not UTF-8, nested too deep), and
    # longer than MAX_LINE_BYTES (tool output, never parsed).
    bad_lines: int = 0
    long_lines: int = 0
    # Set when the file was longer than MAX_TRANSCRIPT_BYTES: only its start was read.
    truncated: bool = False

    def asked(self, text: str) -> None:
        """A prompt the person typed: one more turn, and the session's ask if it is the
        first."""
        self.user_turns += 1
        if not self.first_prompt:
            self.first_prompt = text

    def typed(self, text: str) -> None:
        """What the person typed: a slash command (its name kept), else a prompt."""
        if text.startswith("/"):
            self.commands.append(text.split()[0])
        else:
            self.asked(text)

    def skipped_lines(self) -> str:
        """The lines left out, in words ("" when none were)."""
        parts = []
        if self.bad_lines:
            parts.append(
                f"{self.bad_lines} unreadable {_lines_word(self.bad_lines)} (not a JSON "
                "object, cut off, not UTF-8 or nested too deep)"
            )
        if self.long_lines:
            parts.append(
                f"{self.long_lines} {_lines_word(self.long_lines)} over the "
                f"{MAX_LINE_BYTES // (1024 * 1024)} MiB line cap"
            )
        return " and ".join(parts)


def _lines_word(count: int) -> str:
    return "line" if count == 1 else "lines"


def json_records(path: str | Path, session: ParsedSession) -> Iterator[dict[str, Any]]:
    """Each line of ``path`` that is a JSON object, in order; the lines left out are counted
    in ``session`` (``bad_lines``, ``long_lines``, ``truncated``). Raises
    :class:`TranscriptUnreadable` before the first record if the file cannot be read."""
    fd = _open_regular(path)
    with io.FileIO(fd, "rb", closefd=True) as handle:
        for raw in _lines(handle, session):
            line = raw.strip()
            if not line:
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
                session.bad_lines += 1  # garbage, cut off mid-write, or nested too deep
                continue
            if isinstance(record, dict):
                yield record
            else:
                session.bad_lines += 1


def _open_regular(path: str | Path) -> int:
    """A descriptor of the transcript, once it is known to be a regular file."""
    try:
        # An agent's folder may well be a link (dotfile managers): follow links here,
        # but read only a regular file (a FIFO would block, /dev/zero never end).
        return open_regular(path, follow=True)
    except UnsafeFile as exc:
        raise TranscriptUnreadable(f"transcript {path} was not read: {exc.strerror}") from None
    except OSError as exc:
        raise TranscriptUnreadable(
            f"cannot read transcript {path}: {exc.strerror or exc}"
        ) from None


def _lines(handle: io.FileIO, session: ParsedSession) -> Iterator[bytes]:
    """The file's lines, each cut off (skipped, and counted in ``session.long_lines``) once
    past MAX_LINE_BYTES without ever being held whole, up to MAX_TRANSCRIPT_BYTES in all.

    The caps are read from this module on every call, so that a test can lower them."""
    pending = b""
    skipping = False  # inside a line already known to be too long
    total = 0
    while chunk := handle.read(CHUNK):
        total += len(chunk)
        if total > MAX_TRANSCRIPT_BYTES:
            session.truncated = True
            return
        start = 0
        while (end := chunk.find(b"\n", start)) != -1:
            if not skipping and len(pending) + end - start > MAX_LINE_BYTES:
                session.long_lines += 1  # it ends in this chunk, over the cap all the same
            elif not skipping:
                yield pending + chunk[start:end]
            pending, skipping, start = b"", False, end + 1
        if not skipping:
            pending += chunk[start:]
            if len(pending) > MAX_LINE_BYTES:
                pending, skipping = b"", True
                session.long_lines += 1
    if pending and not skipping:
        yield pending  # at most MAX_LINE_BYTES: checked as it grew


def relative_paths(files: dict[str, None], cwd: str) -> list[str]:
    """The files a session touched, in the order first seen, each relative to ``cwd`` when
    it lies under it (an agent names some absolutely, some relatively: one name each)."""
    out: list[str] = []
    base = Path(cwd) if cwd else None
    for name in files:
        path = Path(name)
        if base is not None and path.is_absolute():
            try:
                name = path.relative_to(base).as_posix()
            except ValueError:
                pass
        if name not in out:
            out.append(name)
    return out
