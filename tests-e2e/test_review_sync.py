"""A pair settled on one machine stays settled on the other after both sync: "both right"
is remembered in the notes (compatible_with), so the other machine never proposes the
pair again; "keep one" supersedes the other note, which the other machine then hides."""

from __future__ import annotations

from typing import Any

from e2e_support import Machine, World

WEB = "github.com/acme/web"
OLD = "The dev server listens on port 3000."
NEW = "The dev server listens on port 5173."


def pairs(machine: Machine) -> list[list[str]]:
    listed: dict[str, Any] = machine.ok("review", "--json").json()
    return [pair["notes"] for pair in listed["contradictions"]]


def pair_on_both(world: World) -> tuple[str, str]:
    """The same two notes on laptop and desktop, listed by `review` on each."""
    laptop, desktop = world.laptop, world.desktop
    old = laptop.write("Dev server port", OLD, "-p", WEB)["id"]
    new = laptop.write("Dev server port", NEW, "-p", WEB)
    assert [entry["id"] for entry in new["possible_contradictions"]] == [old]
    laptop.sync()
    desktop.sync()
    for machine in (laptop, desktop):
        assert pairs(machine) == [[old, new["id"]]], machine.name
    return old, new["id"]


def test_both_right_on_one_machine_is_not_asked_again_on_the_other(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    old, new = pair_on_both(world)
    settled = laptop.ok("review", "both", old, new)
    assert "both right" in settled.out
    assert pairs(laptop) == []
    assert pairs(desktop) == [[old, new]]  # not synced yet: still asked there

    laptop.sync()
    desktop.sync()
    assert pairs(desktop) == []
    desktop.ok("reindex")  # from the files alone: the settlement is in them
    assert pairs(desktop) == []
    # Both notes stay live and found, on both machines.
    for machine in (laptop, desktop):
        assert {hit["id"] for hit in machine.search("dev server port")} == {old, new}


def test_keep_one_on_one_machine_hides_the_other_note_on_both(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    old, new = pair_on_both(world)
    laptop.ok("review", "keep", new, "--over", old)
    laptop.sync()
    desktop.sync()
    assert pairs(desktop) == []
    assert [hit["id"] for hit in desktop.search("dev server port")] == [new]
    shown = desktop.ok("show", old, "--json").json()
    assert shown["superseded_by"] == [new] and shown["body"] == OLD  # hidden, never deleted
    assert old in {note["id"] for note in desktop.listed()}
