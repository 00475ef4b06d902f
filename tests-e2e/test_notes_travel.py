"""Notes written on one machine reach the other through the remote (scenarios 1 and 6)."""

from __future__ import annotations

from e2e_support import World, project_checkout


def test_a_note_written_on_laptop_is_found_on_desktop(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    note = laptop.write("Staging database host", "staging uses db-stg-2 behind pgbouncer")
    assert note["machine_id"] == "laptop"
    assert desktop.search("pgbouncer") == []  # nothing there before the syncs

    pushed = laptop.sync()
    assert pushed["pushed"] is True
    pulled = desktop.sync()
    assert pulled["pulled"] >= 1
    assert pulled["indexed"] == 1  # the pulled file was indexed by the sync itself

    hits = desktop.search("pgbouncer")
    assert [hit["id"] for hit in hits] == [note["id"]]
    assert hits[0]["machine_id"] == "laptop"
    assert hits[0]["title"] == "Staging database host"
    assert hits[0]["body"] == "staging uses db-stg-2 behind pgbouncer"
    # The very same file, byte for byte, on both machines.
    assert desktop.note_file(note).read_bytes() == laptop.note_file(note).read_bytes()
    assert desktop.ok("show", note["id"], "--raw").out.strip() == (
        laptop.note_file(note).read_text(encoding="utf-8").strip()
    )


def test_a_superseding_note_from_desktop_hides_the_old_one_on_laptop(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    laptop_api = project_checkout(laptop.user / "code" / "api", "git@github.com:acme/api.git")
    desktop_api = project_checkout(desktop.user / "src" / "api", "https://github.com/acme/api")
    old = laptop.write(
        "Run migrations with alembic",
        "alembic upgrade head before every deploy",
        "--type", "procedural", "--here",
        cwd=laptop_api,
    )  # fmt: skip
    assert old["project"] == "github.com/acme/api"
    laptop.sync()
    desktop.sync()
    # Before: laptop finds and injects the old note (so the checks below can fail).
    assert [hit["id"] for hit in laptop.search("migrations")] == [old["id"]]
    assert "Run migrations with alembic" in laptop.inject(laptop_api)

    new = desktop.write(
        "Run migrations with the migrate job",
        "the migrate job runs migrations before every deploy; alembic by hand is retired",
        "--type", "procedural", "--here", "--supersedes", old["id"],
        cwd=desktop_api,
    )  # fmt: skip
    assert new["project"] == "github.com/acme/api"  # an HTTPS checkout, the same project
    assert new["supersedes"] == [old["id"]]
    desktop.sync()
    laptop.sync()

    for query in ("migrations", "alembic"):  # "alembic" matches the old note best, still hidden
        hits = laptop.search(query)
        assert [hit["id"] for hit in hits] == [new["id"]], query
        assert hits[0]["machine_id"] == "desktop"
    context = laptop.inject(laptop_api)
    assert "Run migrations with the migrate job" in context
    assert "Run migrations with alembic" not in context
    assert "alembic upgrade head" not in context
    # Hidden, not lost: the old note is still listed and readable.
    assert {note["id"] for note in laptop.listed()} == {old["id"], new["id"]}
    assert laptop.ok("show", old["id"], "--json").json()["body"] == (
        "alembic upgrade head before every deploy"
    )
