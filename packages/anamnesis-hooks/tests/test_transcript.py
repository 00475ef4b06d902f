"""Real Claude Code transcripts, and every awkward shape a transcript line can take."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from anamnesis_testsupport import TRANSCRIPTS

from anamnesis.hooks.transcript import TranscriptUnreadable, parse_transcript
from hooks_testing import assistant, fixture, transcript, user

needs_fixtures = pytest.mark.skipif(not TRANSCRIPTS.is_dir(), reason="../shared fixtures absent")


@needs_fixtures
def test_hello_world_fixture() -> None:
    session = parse_transcript(fixture("DRMacIver__hello-world-script.jsonl"))
    assert session.first_prompt.startswith("Write a shell script called hello.sh")
    assert session.files_touched == ["hello.sh"]  # relative to the session cwd
    assert session.session_id == "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
    assert "completed the task" in session.last_outcome
    assert session.bad_lines == 0


@needs_fixtures
def test_coverage_fixture_with_branch_and_several_files() -> None:
    session = parse_transcript(fixture("DRMacIver__coverage-test-fix.jsonl"))
    assert session.first_prompt.startswith("Add a function called multiply_numbers")
    assert session.git_branch == "master"
    assert session.files_touched == ["src/math_utils.py", "tests/test_math_utils.py", ".gitignore"]
    assert session.last_outcome.endswith("The task is complete.")


@needs_fixtures
def test_interrupted_session_with_local_commands() -> None:
    session = parse_transcript(fixture("marot__spotter-short.jsonl"))
    assert session.first_prompt == "mix phx.server doesnt seem to start"
    assert session.cwd == "/home/marco/projects/spotter"
    assert session.files_touched == []
    assert session.last_outcome.startswith("Let me check the project structure")


@needs_fixtures
def test_every_fixture_parses() -> None:
    for path in sorted(TRANSCRIPTS.glob("*.jsonl")):
        session = parse_transcript(path)
        assert session.first_prompt, path.name
        assert session.started_at <= session.ended_at


def test_awkward_lines(tmp_path: Path) -> None:
    cwd = "/work/proj"
    path = transcript(
        tmp_path / "t.jsonl",
        [
            {"type": "summary", "summary": "older CLI title line"},
            {"type": "file-history-snapshot", "snapshot": {}},
            user(
                "Caveat: injected by a hook",
                isMeta=True,
                cwd=cwd,
                sessionId="s-1",
                timestamp="2026-05-01T10:00:00.000Z",
                gitBranch="feature/x",
            ),
            user("<command-name>/model</command-name><command-message>model</command-message>"),
            user("<local-command-stdout>Kept model</local-command-stdout>"),
            user(
                [{"type": "text", "text": "Fix the flaky login test"}],
                timestamp="2026-05-01T10:00:05Z",
            ),
            assistant([{"type": "thinking", "thinking": "hmm"}], "m1"),
            assistant(
                [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "Edit",
                        "input": {"file_path": f"{cwd}/tests/test_login.py"},
                    }
                ],
                "m1",
            ),
            user([{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}]),
            assistant(
                [
                    {
                        "type": "tool_use",
                        "name": "NotebookEdit",
                        "input": {"notebook_path": f"{cwd}/nb/analysis.ipynb"},
                    }
                ],
                "m2",
            ),
            assistant(
                [
                    {
                        "type": "tool_use",
                        "name": "Write",
                        "input": {"file_path": "/elsewhere/outside.txt"},
                    }
                ],
                "m2",
            ),
            {
                "type": "system",
                "subtype": "compact_boundary",
                "compactMetadata": {"trigger": "auto"},
            },
            user(
                "This session is being continued from a previous conversation...",
                isCompactSummary=True,
            ),
            assistant([{"type": "text", "text": "A subagent talking"}], "side", isSidechain=True),
            assistant(
                [
                    {
                        "type": "tool_use",
                        "name": "Write",
                        "input": {"file_path": f"{cwd}/from/subagent.py"},
                    }
                ],
                "side2",
                isSidechain=True,
            ),
            user("[Request interrupted by user]"),
            assistant([{"type": "text", "text": "The test was flaky because"}], "m3"),
            assistant(
                [{"type": "text", "text": "of a shared cookie jar; fixed."}],
                "m3",
                timestamp="2026-05-01T10:09:00Z",
            ),
            {"type": "progress", "data": {"type": "hook_progress"}},
            {"type": "attachment", "attachment": {"type": "memory"}},
            {"type": "some-future-record", "whatever": [1, 2, 3]},
            "this is not json at all",
            '{"type": "assistant", "message": {"id": "cut", "content": [{"type": "te',
        ],
    )
    session = parse_transcript(path)
    assert session.first_prompt == "Fix the flaky login test"
    assert session.commands == ["/model"]
    assert session.git_branch == "feature/x"
    assert session.files_touched == [
        "tests/test_login.py", "nb/analysis.ipynb", "/elsewhere/outside.txt", "from/subagent.py",
    ]  # fmt: skip
    assert session.last_outcome == "The test was flaky because\nof a shared cookie jar; fixed."
    assert session.compactions == 2  # the boundary and the summary line
    assert session.bad_lines == 2
    assert (session.started_at, session.ended_at) == (
        "2026-05-01T10:00:00.000Z",
        "2026-05-01T10:09:00Z",
    )


def test_a_compaction_summary_is_never_the_ask(tmp_path: Path) -> None:
    path = transcript(
        tmp_path / "t.jsonl",
        [
            {"type": "system", "subtype": "compact_boundary"},
            user(
                "This session is being continued from a previous conversation...",
                isCompactSummary=True,
            ),
            user("now add the retry"),
        ],
    )
    assert parse_transcript(path).first_prompt == "now add the retry"


def test_a_slash_command_with_arguments_is_the_ask_when_nothing_else_is(tmp_path: Path) -> None:
    path = transcript(
        tmp_path / "t.jsonl",
        [user("<command-name>/review</command-name><command-args>PR 123</command-args>")],
    )
    assert parse_transcript(path).first_prompt == "/review PR 123"


def test_unreadable_transcript(tmp_path: Path) -> None:
    with pytest.raises(TranscriptUnreadable, match="cannot read transcript"):
        parse_transcript(tmp_path / "missing.jsonl")


def test_large_transcripts_stream_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    filler = "x" * 2000
    with path.open("w") as handle:
        handle.write('{"type": "user", "message": {"content": "the real ask"}}\n')
        for i in range(1500):  # about 3 MB
            handle.write(f'{{"type": "assistant", "message": {{"id": "m{i}", "content": '
                         f'[{{"type": "text", "text": "{filler} {i}"}}]}}}}\n')  # fmt: skip
    assert path.stat().st_size > 3_000_000
    tracemalloc.start()
    session = parse_transcript(path)
    _current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert session.first_prompt == "the real ask"
    assert session.last_outcome.endswith(" 1499")
    assert peak < 1_000_000  # a few lines at a time, never the whole file
