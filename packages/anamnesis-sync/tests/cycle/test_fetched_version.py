"""``fetched_version``: the remote's side of a conflict, read from what was last fetched,
so a caller can tell a real conflict from the same text written twice."""

from __future__ import annotations

from pathlib import Path

from sync_testing import Machine


def test_the_remote_side_of_a_conflict_is_what_was_fetched(remote: Path, machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    for backend, text in ((laptop, "laptop's words"), (desktop, "desktop's words")):
        (backend.repo_dir / "n").mkdir(parents=True)
        (backend.repo_dir / "n" / "same.md").write_text(text)
    assert desktop.fetched_version("n/same.md") is None  # nothing fetched yet
    assert laptop.sync().pushed
    result = desktop.sync()
    assert result.conflicted and result.conflicts == ("n/same.md",)
    assert desktop.fetched_version("n/same.md") == b"laptop's words"
    assert (desktop.repo_dir / "n" / "same.md").read_bytes() == b"desktop's words"
    assert desktop.fetched_version("n/absent.md") is None
