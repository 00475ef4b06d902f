"""A Claude Code session captured on laptop is recalled in the same project on desktop
(scenario 2), through the hooks exactly as `anamnesis init` installed them."""

from __future__ import annotations

from pathlib import Path

from anamnesis_testsupport.repos import tip_files

from e2e_support import (
    ASK,
    FIXTURE,
    SESSION,
    World,
    end_session,
    place_transcript,
    project_checkout,
)


def test_a_captured_session_is_injected_in_the_same_project_on_desktop(
    world: World, transcripts: Path
) -> None:
    laptop, desktop = world.laptop, world.desktop
    laptop_api = project_checkout(laptop.user / "code" / "api", "git@github.com:acme/api.git")
    desktop_api = project_checkout(
        desktop.user / "work" / "acme-api", "https://github.com/acme/api"
    )
    desktop_web = project_checkout(desktop.user / "work" / "web", "https://github.com/acme/web")
    transcript = place_transcript(laptop, transcripts / FIXTURE, laptop_api)

    note_id, synced = end_session(laptop, transcript, laptop_api)
    assert "pushed" in synced, synced
    note = laptop.ok("show", note_id, "--json").json()
    assert note["type"] == "episodic"
    assert note["project"] == "github.com/acme/api"
    assert note["machine_id"] == "laptop"
    assert note["prov_session"] == SESSION
    assert note["title"] == ASK
    assert "hello.sh" in note["body"]
    # The background sync put the very file in the remote.
    path = f"episodic/{note_id}.md"
    assert tip_files(world.remote)[path] == (laptop.memory / path).read_bytes()

    assert desktop.sync()["pulled"] >= 1
    assert desktop.ok("project", cwd=desktop_api).out.strip() == "github.com/acme/api"
    context = desktop.inject(desktop_api)
    assert ASK in context
    assert "_captured on laptop · " in context  # another machine's session, named
    elsewhere = desktop.inject(desktop_web)
    assert ASK not in elsewhere
    assert "hello.sh" not in elsewhere
    # Hooks fail open (exit 0 whatever happens), so a failure would only show in the log.
    for machine in (laptop, desktop):
        assert not [line for line in machine.log_lines() if "failed" in line], machine.name
