"""Both machines change the same note: nothing is lost, nothing is pushed silently."""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.sync import GitSyncBackend, NothingToResolve, SyncError
from sync_testing import Machine, files, remote_files, write_note

ID = "01J9Z8YPM7Q3X2V4WT6B5N0KGD"
NOTE = (
    "---\nid: {id}\ntype: semantic\ntitle: Deploy steps\nproject: p\nprov_source: human\n"
    "confidence: 1.0\ncreated_at: '2026-01-01T00:00:00+00:00'\n"
    "updated_at: '2026-01-01T00:00:00+00:00'\ntags:\n- deploy\n---\n{body}\n"
)
PATH = f"semantic/{ID}.md"


def conflicted_pair(machine: Machine) -> tuple[GitSyncBackend, GitSyncBackend]:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, PATH, NOTE.format(id=ID, body="original"))
    laptop.sync()
    desktop.sync()
    write_note(laptop, PATH, NOTE.format(id=ID, body="laptop edit"))
    write_note(desktop, PATH, NOTE.format(id=ID, body="desktop edit"))
    laptop.sync()
    return laptop, desktop


def test_a_conflict_keeps_local_edits_and_pushes_nothing(machine: Machine, remote) -> None:  # type: ignore[no-untyped-def]
    _laptop, desktop = conflicted_pair(machine)
    before = remote_files(remote)
    result = desktop.sync()
    assert result.conflicted and not result.pushed
    assert result.conflicts == (PATH,)
    assert PATH in result.detail and "resolve" in result.detail
    assert "desktop edit" in files(desktop)[PATH]
    assert remote_files(remote) == before
    assert desktop.state().conflicts == (PATH,)
    assert desktop.sync().conflicted  # stays reported until resolved


def test_keep_both_keeps_both_versions_tagged_and_linked_neither_superseding(
    machine: Machine, remote: Path
) -> None:
    laptop, desktop = conflicted_pair(machine)
    desktop.sync()
    result = desktop.resolve("keep-both")
    assert result.pushed and not result.conflicted
    assert laptop.sync().pulled == 1
    assert files(laptop) == files(desktop)
    assert {p: t.decode() for p, t in remote_files(remote).items()} == files(laptop)
    notes = files(desktop)
    kept = notes[PATH]  # the remote version stays at its path, with its id
    assert "laptop edit" in kept and kept.startswith(f"---\nid: {ID}\n")
    forked = [text for path, text in notes.items() if path != PATH]
    assert len(forked) == 1
    fork = forked[0]
    assert "desktop edit" in fork
    new_id = fork.split("id: ", 1)[1].split("\n", 1)[0]
    assert new_id != ID and len(new_id) == 26
    assert [p for p in notes if p != PATH] == [f"semantic/{new_id}.md"]
    for text, other in ((fork, ID), (kept, new_id)):
        assert "supersedes" not in text
        assert f"conflict_with: {other}\n" in text
        assert "- conflict" in text and "- deploy" in text
    assert set(result.changed) == {PATH, f"semantic/{new_id}.md"}  # both to reindex


@pytest.mark.parametrize(
    ("strategy", "winner"), [("ours", "desktop edit"), ("theirs", "laptop edit")]
)
def test_ours_and_theirs_converge(machine: Machine, strategy: str, winner: str) -> None:
    laptop, desktop = conflicted_pair(machine)
    desktop.sync()
    result = desktop.resolve(strategy)  # type: ignore[arg-type]
    assert result.pushed
    laptop.sync()
    assert files(laptop) == files(desktop)
    assert winner in files(laptop)[PATH]
    assert len(files(laptop)) == 1


def test_edit_against_delete_keeps_the_edit_with_keep_both(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, PATH, NOTE.format(id=ID, body="original"))
    laptop.sync()
    desktop.sync()
    (laptop.repo_dir / PATH).unlink()
    laptop.sync()
    write_note(desktop, PATH, NOTE.format(id=ID, body="edited while deleted elsewhere"))
    assert desktop.sync().conflicted
    desktop.resolve("keep-both")
    laptop.sync()
    assert "edited while deleted elsewhere" in files(laptop)[PATH]
    assert files(laptop) == files(desktop)


def test_non_conflicting_changes_merge_without_asking(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", "a")
    write_note(laptop, "semantic/b.md", "b")
    laptop.sync()
    desktop.sync()
    write_note(laptop, "semantic/a.md", "a from laptop")
    write_note(desktop, "semantic/b.md", "b from desktop")
    write_note(desktop, "semantic/c.md", "c from desktop")
    laptop.sync()
    result = desktop.sync()
    assert (result.conflicted, result.pushed, result.pulled) == (False, True, 1)
    assert result.changed == ("semantic/a.md",)
    laptop.sync()
    assert (
        files(laptop)
        == files(desktop)
        == {
            "semantic/a.md": "a from laptop",
            "semantic/b.md": "b from desktop",
            "semantic/c.md": "c from desktop",
        }
    )


def test_the_same_edit_on_both_sides_is_no_conflict(machine: Machine) -> None:
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, "semantic/a.md", "v1")
    laptop.sync()
    desktop.sync()
    write_note(laptop, "semantic/a.md", "v2")
    write_note(desktop, "semantic/a.md", "v2")
    laptop.sync()
    assert not desktop.sync().conflicted


def test_resolve_without_a_conflict_says_so(machine: Machine) -> None:
    laptop = machine("laptop")
    write_note(laptop, "semantic/a.md", "x")
    laptop.sync()
    with pytest.raises(NothingToResolve):
        laptop.resolve("keep-both")
    with pytest.raises(SyncError, match="unknown strategy"):
        laptop.resolve("mine")  # type: ignore[arg-type]
