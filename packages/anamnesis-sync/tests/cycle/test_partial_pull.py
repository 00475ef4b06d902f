"""While one note is in conflict, the other incoming notes land at once (and are reported
in ``changed`` so they are indexed); the conflicting one waits for ``resolve``."""

from __future__ import annotations

from pathlib import Path

from anamnesis_testsupport.repos import commit_messages

from anamnesis.sync import GitSyncBackend
from sync_testing import Machine, files, remote_files, write_note

X = "semantic/x.md"
Y = "semantic/y.md"
Z = "procedural/z.md"


def in_conflict(machine: Machine) -> tuple[GitSyncBackend, GitSyncBackend]:
    """Laptop changes X and adds Y; desktop changes X differently."""
    laptop, desktop = machine("laptop"), machine("desktop")
    write_note(laptop, X, "x original\n")
    laptop.sync()
    desktop.sync()
    write_note(laptop, X, "x from laptop\n")
    write_note(laptop, Y, "y from laptop\n")
    assert laptop.sync().pushed
    write_note(desktop, X, "x from desktop\n")
    return laptop, desktop


def test_incoming_notes_not_in_conflict_land_while_the_conflict_waits(
    machine: Machine, remote: Path
) -> None:
    _laptop, desktop = in_conflict(machine)
    before = remote_files(remote)
    result = desktop.sync()
    assert result.conflicted and not result.pushed
    assert result.conflicts == (X,)
    assert Y in result.changed and X not in result.changed
    assert files(desktop) == {X: "x from desktop\n", Y: "y from laptop\n"}
    assert remote_files(remote) == before  # nothing pushed while in conflict
    assert "1 incoming file not in conflict landed" in result.detail, result.detail
    # Still reported, by the next sync and by state(), and nothing is taken twice.
    again = desktop.sync()
    assert again.conflicted and again.conflicts == (X,) and again.changed == ()
    assert desktop.state().conflicts == (X,)
    assert files(desktop) == {X: "x from desktop\n", Y: "y from laptop\n"}


def test_notes_that_keep_arriving_during_a_conflict_land_without_false_conflicts(
    machine: Machine, remote: Path
) -> None:
    laptop, desktop = in_conflict(machine)
    desktop.sync()
    # The laptop edits the note desktop already took, and adds another.
    write_note(laptop, Y, "y edited again on the laptop\n")
    write_note(laptop, Z, "z from laptop\n")
    assert laptop.sync().pushed
    result = desktop.sync()
    assert result.conflicts == (X,)  # Y is no conflict: desktop never edited it
    assert set(result.changed) == {Y, Z}
    assert files(desktop) == {
        X: "x from desktop\n",
        Y: "y edited again on the laptop\n",
        Z: "z from laptop\n",
    }
    # Resolving pushes desktop's side without undoing anything the laptop did.
    resolved = desktop.resolve("ours")
    assert resolved.pushed and not resolved.conflicted
    laptop.sync()
    assert (
        files(laptop)
        == files(desktop)
        == {
            X: "x from desktop\n",
            Y: "y edited again on the laptop\n",
            Z: "z from laptop\n",
        }
    )
    assert {p: t.decode() for p, t in remote_files(remote).items()} == files(laptop)
    messages = commit_messages(remote)  # the take commits stayed local bookkeeping
    assert not [m for m in messages if "Anamnesis-Taken-From" in m]


def test_a_taken_note_edited_here_during_the_conflict_is_kept_and_pushed(
    machine: Machine,
) -> None:
    laptop, desktop = in_conflict(machine)
    desktop.sync()
    write_note(desktop, Y, "y edited on the desktop after it arrived\n")
    result = desktop.sync()
    assert result.conflicts == (X,)  # the edit of Y is on the version that arrived
    assert desktop.resolve("theirs").pushed
    laptop.sync()
    assert (
        files(laptop)
        == files(desktop)
        == {X: "x from laptop\n", Y: "y edited on the desktop after it arrived\n"}
    )


def test_a_conflict_that_goes_away_by_hand_syncs_normally_afterwards(
    machine: Machine, remote: Path
) -> None:
    laptop, desktop = in_conflict(machine)
    desktop.sync()
    write_note(laptop, Z, "z from laptop\n")
    laptop.sync()
    # The desktop's user settles X by taking the laptop's text: no conflict left.
    write_note(desktop, X, "x from laptop\n")
    result = desktop.sync()
    assert not result.conflicted and result.pushed, result.detail
    assert Z in result.changed
    laptop.sync()
    assert (
        files(laptop)
        == files(desktop)
        == {
            X: "x from laptop\n",
            Y: "y from laptop\n",
            Z: "z from laptop\n",
        }
    )
    assert {p: t.decode() for p, t in remote_files(remote).items()} == files(laptop)
