"""Both machines edit the same note: the conflict is reported, nothing is lost, and the
resolve path brings both machines to the same notes (scenario 5)."""

from __future__ import annotations

from anamnesis_testsupport.repos import tip_files

from e2e_support import Machine, World, quiet_syncs


def conflict_with(machine: Machine, memory_id: str) -> str:
    """The ``conflict_with`` key of a note's file: the other version's id."""
    text = machine.ok("show", memory_id, "--raw").out
    (line,) = [line for line in text.splitlines() if line.startswith("conflict_with:")]
    return line.split(":", 1)[1].strip().strip("'\"")


def test_a_note_edited_on_both_machines_is_reported_kept_and_resolved(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    note = laptop.write("Release checklist", "tag the release, then publish the wheels")
    laptop.sync()
    desktop.sync()
    path = f"semantic/{note['id']}.md"
    original = (laptop.memory / path).read_text(encoding="utf-8")
    assert (desktop.memory / path).read_text(encoding="utf-8") == original

    # Hand edits, as a user would make them in an editor, on both machines.
    laptop_text = original.replace("publish the wheels", "publish the wheels; laptop: sign them")
    desktop_text = original.replace("publish the wheels", "publish the wheels; desktop: notify")
    assert laptop_text != original
    assert desktop_text != original
    (laptop.memory / path).write_text(laptop_text, encoding="utf-8")
    (desktop.memory / path).write_text(desktop_text, encoding="utf-8")

    assert laptop.sync()["pushed"] is True
    reported = desktop.run("sync", "--json")
    assert reported.code == 1, reported.describe()
    assert reported.json()["conflicted"] is True
    assert reported.json()["conflicts"] == [path]
    assert reported.json()["pushed"] is False
    assert "--resolve keep-both" in reported.err
    assert "Traceback" not in reported.err
    status = desktop.ok("status", "--json").json()
    assert status["sync"]["conflicts"] == [path]
    # Nothing lost while the conflict stands: desktop keeps its edit, the remote laptop's.
    assert (desktop.memory / path).read_text(encoding="utf-8") == desktop_text
    assert tip_files(world.remote)[path].decode("utf-8") == laptop_text

    resolved = desktop.ok("sync", "--resolve", "keep-both", "--json").json()
    assert resolved["pushed"] is True
    assert resolved["conflicted"] is False
    quiet_syncs(laptop, desktop)

    # Both machines hold the very same files ...
    assert laptop.notes() == desktop.notes()
    assert tip_files(world.remote) == laptop.notes()
    # ... with both versions, both visible: laptop's edit in place, desktop's as a new note;
    # neither replaces the other, both are tagged and each names the other.
    assert len(laptop.notes()) == 2
    for machine in (laptop, desktop):
        hits = machine.search("notify")
        assert len(hits) == 1, hits
        fork = hits[0]
        assert fork["id"] != note["id"]
        assert fork["supersedes"] == []
        assert "conflict" in fork["tags"]
        assert fork["body"] == "tag the release, then publish the wheels; desktop: notify"
        kept = machine.ok("show", note["id"], "--json").json()
        assert kept["body"] == "tag the release, then publish the wheels; laptop: sign them"
        assert "conflict" in kept["tags"] and kept["superseded_by"] == []
        assert [h["id"] for h in machine.search("sign them")] == [note["id"]]
        assert conflict_with(machine, note["id"]) == fork["id"]
        assert conflict_with(machine, fork["id"]) == note["id"]
        assert {listed["id"] for listed in machine.listed()} == {note["id"], fork["id"]}
        assert machine.ok("status", "--json").json()["sync"]["conflicts"] == []
