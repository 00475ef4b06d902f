"""What a hook is handed is not always what it seems: a FIFO or /dev/zero as the transcript,
a transcript larger than any session, garbage on stdin, a missing file. The hook exits 0
within its budget, reads nothing it should not, and logs one clear line saying what it got
and what it did instead (a traceback only with ANAMNESIS_DEBUG=1)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from anamnesis.hooks.agents import session_lines
from anamnesis.hooks.failopen import run_failing_open
from anamnesis.hooks.summarize import TITLE_MAX, HeuristicSummarizer, cut_at_word
from anamnesis.hooks.transcript import ParsedSession, TranscriptUnreadable, parse_transcript
from anamnesis.store import MemoryStore
from hooks_testing import captures_filed, run_hook, transcript, user


def log_lines(home: Path) -> list[str]:
    path = home / "logs" / "hooks.log"
    return path.read_text().splitlines() if path.exists() else []


def seeded(home: Path) -> None:
    with MemoryStore(home) as store:
        store.write(type="semantic", title="A note", body="so the store exists")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "link-to-dev-zero"])
def test_a_transcript_that_is_not_a_regular_file_is_refused_at_once(
    kind: str, isolated_home: Path, tmp_path: Path
) -> None:
    seeded(isolated_home)
    path = tmp_path / "session.jsonl"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dev-zero":
        path = Path("/dev/zero")
    else:
        path.symlink_to("/dev/zero")
    started = time.monotonic()
    done = run_hook("capture", "--no-sync", stdin={"transcript_path": str(path)}, timeout=30)
    assert done.returncode == 0 and done.stdout == "" and "Traceback" not in done.stderr
    assert time.monotonic() - started < 20  # refused, not read until killed
    (line,) = [line for line in log_lines(isolated_home) if "capture:" in line]
    assert "not a regular file" in line and str(path) in line and "nothing was captured" in line


def test_a_huge_line_is_never_held_whole_and_the_read_stops_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session_lines, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(session_lines, "MAX_TRANSCRIPT_BYTES", 200_000)
    monkeypatch.setattr(session_lines, "CHUNK", 512)
    path = tmp_path / "t.jsonl"
    ask = json.dumps({"type": "user", "message": {"content": "fix the parser"}})
    with path.open("w") as handle:
        handle.write(ask + "\n")
        handle.write('{"type": "assistant", "junk": "' + "x" * 50_000 + '"}\n')  # too long
        handle.write(ask.replace("fix the parser", "second ask") + "\n")
        handle.write(("garbage line\n") * 30_000)  # past the cap
    parsed = parse_transcript(path)
    assert parsed.first_prompt == "fix the parser" and parsed.user_turns == 2
    assert parsed.truncated


def test_a_missing_transcript_is_one_line_without_a_traceback(
    isolated_home: Path, tmp_path: Path
) -> None:
    seeded(isolated_home)
    missing = tmp_path / "gone.jsonl"
    assert run_hook("capture", "--no-sync", stdin={"transcript_path": str(missing)}).returncode == 0
    lines = log_lines(isolated_home)
    assert len(lines) == 1 and "Traceback" not in "\n".join(lines)
    assert f"cannot read transcript {missing}" in lines[0] and "nothing was captured" in lines[0]
    with pytest.raises(TranscriptUnreadable):
        parse_transcript(missing)


def test_garbage_on_stdin_is_logged_with_what_was_done_instead(
    isolated_home: Path, tmp_path: Path
) -> None:
    seeded(isolated_home)
    injected = run_hook("inject", stdin="\x00garbage that is not JSON")
    assert injected.returncode == 0 and "A note" in injected.stdout  # injected all the same
    captured = run_hook("capture", "--no-sync", stdin="[1, 2, 3]")
    assert captured.returncode == 0
    lines = log_lines(isolated_home)
    inject = [line for line in lines if " inject: " in line]
    capture = [line for line in lines if " capture: " in line]
    assert len(inject) == 1 and "not one JSON object" in inject[0]
    assert "garbage that is not JSON" in inject[0] and "current folder instead" in inject[0]
    assert "not one JSON object" in capture[0] and "'[1, 2, 3]'" in capture[0]
    assert "no transcript_path" in capture[1] and "nothing was captured" in capture[1]


def test_an_unexpected_failure_is_one_line_unless_debugging(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> None:
        raise RuntimeError("the disk said no")

    monkeypatch.delenv("ANAMNESIS_DEBUG", raising=False)
    assert run_failing_open("inject", lambda: tmp_path, broken) == 0
    monkeypatch.setenv("ANAMNESIS_DEBUG", "1")
    assert run_failing_open("inject", lambda: tmp_path, broken) == 0
    text = (tmp_path / "logs" / "hooks.log").read_text()
    first, second = text.split("\n", 1)
    assert first.endswith(
        "inject: failed: RuntimeError: the disk said no; nothing else was done "
        "(set ANAMNESIS_DEBUG=1 in the hook's command for the traceback)"
    )
    assert "Traceback" not in first and "Traceback (most recent call last)" in second


def test_captured_titles_are_cut_at_a_word_with_an_ellipsis() -> None:
    ask = "Refactor the authentication middleware so that expired refresh tokens are rejected"
    title = HeuristicSummarizer().summarize(ParsedSession(first_prompt=ask * 2)).title  # type: ignore[union-attr]
    assert len(title) <= TITLE_MAX and title.endswith("…")
    assert (ask * 2).startswith(title[:-1]) and (ask * 2)[len(title) - 1] == " "
    assert cut_at_word("short enough", 80) == "short enough"
    assert cut_at_word("one, two, three four", 12) == "one, two…"
    assert cut_at_word("x" * 100, 10) == "x" * 9 + "…"  # one long word: no boundary to use


def test_a_captured_session_note_has_a_whole_word_title(
    isolated_home: Path, tmp_path: Path
) -> None:
    path = transcript(tmp_path / "t.jsonl", [
        user("Investigate why the nightly export job silently drops rows whose timestamps "
             "fall inside the daylight-saving transition hour"),
    ])  # fmt: skip
    assert run_hook("capture", "--no-sync", stdin={"transcript_path": str(path)}).returncode == 0
    captures_filed()
    with MemoryStore(isolated_home) as store:
        (note,) = store.list()
    ask = (
        "Investigate why the nightly export job silently drops rows whose timestamps "
        "fall inside the daylight-saving transition hour"
    )
    assert note.title.endswith("…") and len(note.title) <= TITLE_MAX
    kept = note.title[:-1]
    assert ask.startswith(kept) and ask[len(kept)] == " "  # cut between two words


def test_a_fifo_in_the_notes_tree_never_blocks_inject(isolated_home: Path, tmp_path: Path) -> None:
    seeded(isolated_home)
    os.mkfifo(isolated_home / "memory" / "semantic" / "01JF1F0000000000000000000A.md")
    done = run_hook("inject", stdin={"cwd": str(tmp_path)}, timeout=30)
    assert done.returncode == 0 and "A note" in done.stdout
