"""Which sessions are worth a note, and what the note says."""

from __future__ import annotations

from anamnesis.hooks.summarize import HeuristicSummarizer, is_trivial
from anamnesis.hooks.transcript import ParsedSession


def session(**fields: object) -> ParsedSession:
    parsed = ParsedSession()
    for name, value in fields.items():
        setattr(parsed, name, value)
    return parsed


def test_trivial_sessions() -> None:
    assert is_trivial(session())
    assert is_trivial(session(last_outcome="ok"))
    assert is_trivial(session(first_prompt="/model", last_outcome="Kept model."))
    assert not is_trivial(session(first_prompt="/model", last_outcome="x" * 60))
    assert not is_trivial(session(first_prompt="why does the build fail?", last_outcome="no idea"))
    assert not is_trivial(session(files_touched=["a.py"]))


def test_heuristic_summary_sections() -> None:
    summary = HeuristicSummarizer().summarize(
        session(
            first_prompt="Fix the flaky login test\nit fails on CI only",
            git_branch="fix/login",
            files_touched=[f"f{i}.py" for i in range(35)],
            last_outcome="Fixed: shared cookie jar.",
        )
    )
    assert summary is not None
    assert summary.title == "Fix the flaky login test"
    assert summary.body.startswith("**Ask:** Fix the flaky login test\nit fails on CI only")
    assert "**Branch:** fix/login" in summary.body
    assert "**Files touched (35):**\n- f0.py" in summary.body
    assert "- ... and 5 more" in summary.body
    assert summary.body.endswith("**Outcome:** Fixed: shared cookie jar.")


def test_long_asks_are_clipped_and_titles_short() -> None:
    summary = HeuristicSummarizer().summarize(session(first_prompt="word " * 500, last_outcome="y"))
    assert summary is not None
    assert len(summary.title) <= 80
    assert summary.body.split("\n\n")[0].endswith(" ...")
