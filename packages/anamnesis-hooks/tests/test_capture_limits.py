"""A huge session still gets its note: capture fits it under the store's limits (the body
cut with a line saying so) instead of writing a note too large to read back, or one the
store refuses, which would lose the session."""

from __future__ import annotations

from pathlib import Path

from anamnesis.hooks.summarize import Summary
from anamnesis.store import MemoryStore
from hooks_testing import assistant, captures_filed, run_hook, transcript, user

GITHUB_TOKEN = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic


def test_a_huge_session_is_captured_cut_to_the_limits_through_the_real_hook(
    isolated_home: Path, tmp_path: Path
) -> None:
    # 30 files with 200,000-character paths: a 6 MB summary, each line under the reader's cap.
    edits = [
        assistant(
            [{"type": "tool_use", "name": "Write", "input": {"file_path": f"{n}" + "d" * 200_000}}],
            message_id=f"msg_{n}",
        )
        for n in range(30)
    ]
    path = transcript(
        tmp_path / "huge.jsonl",
        [
            user("Generate the fixtures", sessionId="huge", cwd=str(tmp_path)),
            *edits,
            assistant([{"type": "text", "text": "Done: thirty fixtures written."}], "msg_end"),
        ],
    )
    done = run_hook(
        "capture",
        "--no-sync",
        stdin={
            "hook_event_name": "SessionEnd",
            "session_id": "huge",
            "transcript_path": str(path),
            "cwd": str(tmp_path),
        },
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    captures_filed()  # the hook queued the note (cut); the background worker files it
    assert not list((isolated_home / "queue" / "refused").glob("*"))
    for leftover in isolated_home.glob("index.db*"):  # a fresh reindex: the files alone
        leftover.unlink()
    with MemoryStore(isolated_home) as store:
        assert store.reindex().skipped == ()
        (note,) = store.list()
    size = len(note.body.encode())
    assert 900_000 < size <= 1_000_000  # NoteLimits.BODY_BYTES
    assert note.body.startswith("**Ask:** Generate the fixtures")
    assert note.body.endswith("over the 1,000,000 bytes a note may hold]")
    assert "this session's summary was 6,00" in note.body


def test_fitting_masks_first_then_cuts_every_field_to_its_limit() -> None:
    from anamnesis.hooks.pending import fit_summary
    from anamnesis.store import NoteLimits

    # Masking makes "token=..." longer: cut before masking, the store would refuse it.
    body = f"token={GITHUB_TOKEN}\n" + "token=abc\n" * 120_000
    fitted = fit_summary(Summary(title="t" * 2_000, body=body, model="m" * 500))
    assert len(fitted.title) == NoteLimits.TITLE_CHARS
    assert len(fitted.model) == NoteLimits.PROVENANCE_CHARS
    assert len(fitted.body.encode()) <= NoteLimits.BODY_BYTES
    assert GITHUB_TOKEN not in fitted.body and "token=[REDACTED]" in fitted.body
    small = Summary(title="Fix the build", body="**Ask:** fix it", model="")
    assert fit_summary(small) == small
