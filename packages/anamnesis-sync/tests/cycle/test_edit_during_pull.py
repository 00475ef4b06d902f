"""A note edited while a sync pulls a new version of it: neither edit is lost.

The edit lands in the middle of the real cycle: a wrapper around the real apply step
writes the file first, as an editor saving at that instant would.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.sync import GitSyncBackend
from sync_testing import Machine, edit_once_before, files, remote_files, write_note

PATH = "semantic/f.md"


def _remote_edit_pending(machine: Machine) -> tuple[GitSyncBackend, GitSyncBackend]:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, PATH, "v1")
    laptop.sync()
    desktop.sync()
    write_note(laptop, PATH, "v2 from the laptop")
    assert laptop.sync().pushed
    return laptop, desktop


@pytest.mark.parametrize("moment", ["apply_tree_change", "apply_planned"])
def test_an_edit_made_while_pulling_meets_the_remote_edit_as_a_conflict(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch, moment: str
) -> None:
    # apply_tree_change: before any file is checked; apply_planned: after the check,
    # while the new versions are being written (the last-moment re-check catches it).
    laptop, desktop = _remote_edit_pending(machine)
    calls = edit_once_before(
        monkeypatch, moment, lambda: write_note(desktop, PATH, "edited on the desktop mid-pull")
    )
    result = desktop.sync()
    assert calls, "the edit hook never ran"
    assert result.conflicted and result.conflicts == (PATH,)
    assert not result.pushed
    assert files(desktop)[PATH] == "edited on the desktop mid-pull"
    assert remote_files(remote)[PATH] == b"v2 from the laptop"
    monkeypatch.undo()
    again = desktop.sync()  # stays a conflict: the remote edit is never overwritten silently
    assert again.conflicted
    assert remote_files(remote)[PATH] == b"v2 from the laptop"
    desktop.resolve("keep-both")
    laptop.sync()
    texts = sorted(files(laptop).values())
    assert texts == ["edited on the desktop mid-pull", "v2 from the laptop"]
    assert files(laptop) == files(desktop)


def test_a_note_written_while_pulling_is_kept_and_pushed_next_time(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _laptop, desktop = _remote_edit_pending(machine)
    edit_once_before(
        monkeypatch, "apply_tree_change", lambda: write_note(desktop, "semantic/g.md", "new")
    )
    result = desktop.sync()
    assert (result.conflicted, result.pulled, result.changed) == (False, 1, (PATH,))
    assert files(desktop) == {PATH: "v2 from the laptop", "semantic/g.md": "new"}
    assert desktop.state().dirty
    assert desktop.sync().pushed
    assert remote_files(remote) == {PATH: b"v2 from the laptop", "semantic/g.md": b"new"}
    assert not desktop.state().dirty


def test_a_deletion_while_pulling_an_edit_is_a_conflict_not_a_silent_revival(
    machine: Machine, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _laptop, desktop = _remote_edit_pending(machine)
    edit_once_before(monkeypatch, "apply_tree_change", (desktop.repo_dir / PATH).unlink)
    result = desktop.sync()
    assert result.conflicted and result.conflicts == (PATH,)
    assert not (desktop.repo_dir / PATH).exists()
    assert remote_files(remote)[PATH] == b"v2 from the laptop"
