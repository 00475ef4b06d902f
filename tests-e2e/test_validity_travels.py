"""Validity in time travels with the note: a note written on laptop valid until a past
day is expired on desktop too (left out of search and of the session's notes, found with
--include-expired), its file the same byte for byte on both machines and on the remote;
clearing the date on desktop brings it back on laptop."""

from __future__ import annotations

from anamnesis_testsupport.repos import tip_files

from e2e_support import World, project_checkout


def test_an_expired_note_is_expired_on_the_other_machine_too(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    laptop_api = project_checkout(laptop.user / "code" / "api", "git@github.com:acme/api.git")
    desktop_api = project_checkout(desktop.user / "src" / "api", "https://github.com/acme/api")
    old = laptop.write(
        "Staging database host", "staging uses db-stg-1 behind pgbouncer",
        "--here", "--valid-until", "2020-01-31", "--review-after", "2019-12-01",
        cwd=laptop_api,
    )  # fmt: skip
    live = laptop.write(
        "Staging freeze", "no deploys to staging during the freeze (pgbouncer upgrade)",
        "--here", "--valid-until", "2999-12-31", cwd=laptop_api,
    )  # fmt: skip
    assert (old["expired"], live["expired"]) == (True, False)
    laptop.sync()
    pulled = desktop.sync()
    assert pulled["indexed"] == 2

    # The same files everywhere, the dates as written.
    for note in (old, live):
        assert desktop.note_file(note).read_bytes() == laptop.note_file(note).read_bytes()
        assert tip_files(world.remote)[f"{note['type']}/{note['id']}.md"] == (
            laptop.note_file(note).read_bytes()
        )
    assert b"valid_until: '2020-01-31'\n" in desktop.note_file(old).read_bytes()

    # Expired on desktop too: hidden from search and the session's notes, found when asked.
    assert [hit["id"] for hit in desktop.search("pgbouncer")] == [live["id"]]
    every = {hit["id"]: hit["expired"] for hit in desktop.search("pgbouncer", "--include-expired")}
    assert every == {old["id"]: True, live["id"]: False}
    block = desktop.inject(desktop_api)
    assert "Staging freeze" in block and "db-stg-1" not in block
    shown = desktop.ok("show", old["id"]).out
    assert "until 2020-01-31, expired" in shown

    # A person on desktop says it holds after all: laptop recalls it again after the sync.
    desktop.ok("edit", old["id"], "--valid-until", "")
    desktop.sync()
    laptop.sync()
    assert {hit["id"] for hit in laptop.search("pgbouncer")} == {old["id"], live["id"]}
    assert "db-stg-1" in laptop.inject(laptop_api)
    assert laptop.note_file(old).read_bytes() == desktop.note_file(old).read_bytes()
    again = laptop.ok("show", old["id"], "--json").json()
    assert (again["valid_until"], again["review_after"]) == ("", "2019-12-01")
    assert again["reviewed_at"] and again["due"] is False  # the edit was a review
