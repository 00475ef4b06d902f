"""A transcript line the reader cannot parse costs that line, never the session's note.

One line nested about 1,000 levels deep made ``json`` raise RecursionError, which ended the
capture: the whole session note was lost. Every unreadable line (nested too deep, not
JSON, not UTF-8, over the line cap) is now skipped and counted, and the count is logged.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from anamnesis_testsupport import TRANSCRIPTS

from anamnesis.hooks.capture import capture_session
from anamnesis.hooks.transcript import MAX_LINE_BYTES, parse_transcript
from anamnesis.store import MemoryStore
from hooks_testing import assistant, captures_filed, checkout, run_hook, transcript, user

REAL = TRANSCRIPTS / "DRMacIver__coverage-test-fix.jsonl"
needs_fixtures = pytest.mark.skipif(not REAL.is_file(), reason="../shared fixtures absent")

DEEP_OBJECT = b'{"a":' * 1000 + b"1" + b"}" * 1000
DEEP_ARRAY = b"[" * 100_000 + b"]" * 100_000
NOT_UTF8 = b'{"type": "user", "message": {"content": "caf\xe9 \xff\xfe"}}'
POISON = [DEEP_OBJECT, DEEP_ARRAY, NOT_UTF8]


def _poisoned(source: Path, target: Path, *, long_line: bool = False) -> Path:
    """``source`` with the poisoned lines inserted in its middle (a copy in a temp folder)."""
    lines = source.read_bytes().splitlines()
    middle = len(lines) // 2
    extra = (
        [*POISON, b'{"type": "user", "message": ' + b"x" * (MAX_LINE_BYTES + 1)]
        if long_line
        else POISON
    )
    target.write_bytes(b"\n".join([*lines[:middle], *extra, *lines[middle:]]) + b"\n")
    return target


def test_each_unreadable_line_is_skipped_and_counted(tmp_path: Path) -> None:
    path = transcript(
        tmp_path / "t.jsonl",
        [user("Fix the flaky login test", sessionId="s-1"),
         assistant([{"type": "text", "text": "Looking at it."}], "m1")],
    )  # fmt: skip
    _poisoned(path, path, long_line=True)
    with path.open("a") as handle:
        handle.write(
            '{"type": "assistant", "message": {"id": "m2", "content": '
            '[{"type": "text", "text": "Fixed: one cookie jar per test."}]}}\n'
        )
    session = parse_transcript(path)
    assert session.first_prompt == "Fix the flaky login test"
    assert session.last_outcome == "Fixed: one cookie jar per test."
    assert (session.bad_lines, session.long_lines) == (3, 1)
    assert session.skipped_lines() == (
        "3 unreadable lines (not a JSON object, cut off, not UTF-8 or nested too deep)"
        " and 1 line over the 4 MiB line cap"
    )


@needs_fixtures
def test_the_capture_hook_keeps_a_real_session_with_poisoned_lines(
    isolated_home: Path, tmp_path: Path
) -> None:
    work = checkout(tmp_path / "api", "git@github.com:acme/api.git")
    with MemoryStore(tmp_path / "clean") as clean:  # the note the unpoisoned session makes
        expected = capture_session(clean, REAL, machine_id="m", cwd=str(work), session_id="abc")
    assert expected.note is not None
    poisoned = _poisoned(REAL, tmp_path / "poisoned.jsonl")
    done = run_hook("capture", "--no-sync", stdin={
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit", "session_id": "abc",
        "transcript_path": str(poisoned), "cwd": str(work),
    })  # fmt: skip
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    captures_filed()  # the hook queued the note; the background worker files it
    with MemoryStore(isolated_home) as store:
        [note] = store.list()
    assert (note.id, note.title, note.body) == (
        expected.note.id, expected.note.title, expected.note.body,
    )  # fmt: skip
    log = (isolated_home / "logs" / "hooks.log").read_text(encoding="utf-8")
    assert f"{poisoned}: skipped 3 unreadable lines" in log
    assert "Traceback" not in log and "RecursionError" not in log
