"""What must never leave a machine does not reach the remote, in any commit (scenario 4)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from anamnesis_testsupport.repos import every_object, paths_ever_committed, tip_files

from e2e_support import (
    ASK,
    FIXTURE,
    World,
    end_session,
    place_transcript,
    project_checkout,
)

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"
PASSWORD = "Tr0ub4dor-e2e-Secret"
SECRETS = (AWS_KEY.encode(), PASSWORD.encode())


def plant_secrets(transcript: Path) -> None:
    """Add credentials to the user's first prompt, the way people paste them."""
    lines = transcript.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        record = json.loads(line)
        if record.get("type") == "user" and record["message"]["content"] == ASK:
            record["message"]["content"] = (
                f"{ASK} Deploy it with AWS key {AWS_KEY} and password={PASSWORD} please."
            )
            lines[index] = json.dumps(record)
            break
    else:
        raise AssertionError(f"the fixture has no user line asking {ASK!r}")
    transcript.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_machine_local_notes_and_secrets_never_reach_the_remote(
    world: World, transcripts: Path
) -> None:
    laptop, desktop = world.laptop, world.desktop
    local = laptop.write(
        "Laptop VPN socket",
        "the vpn socket is /run/laptop-only-e2e.sock",
        "--scope",
        "machine-local",
    )
    portable = laptop.write("Shared deploy rule", "deploys go through the e2e-shared-pipeline")
    assert local["scope"] == "machine-local"
    api = project_checkout(laptop.user / "code" / "api", "git@github.com:acme/api.git")
    transcript = place_transcript(laptop, transcripts / FIXTURE, api)
    plant_secrets(transcript)
    assert AWS_KEY in transcript.read_text(encoding="utf-8")

    captured_id, synced = end_session(laptop, transcript, api)
    assert "pushed" in synced, synced
    laptop.sync()
    desktop.sync()

    # The walk sees what was pushed (so the absence checks below can fail) ...
    objects = every_object(world.remote)
    assert any(portable["id"].encode() in raw for _kind, raw in objects)
    captured = tip_files(world.remote)[f"episodic/{captured_id}.md"]
    assert b"[REDACTED]" in captured
    assert b"AKIA" not in captured
    # ... and no object of any kind, reachable or not, holds the local note or a secret.
    for kind, raw in objects:
        assert local["id"].encode() not in raw, kind
        assert b"laptop-only-e2e" not in raw, kind
        for secret in SECRETS:
            assert secret not in raw, (kind, secret)
    paths = paths_ever_committed(world.remote)
    assert f"semantic/{portable['id']}.md" in paths
    assert not [path for path in paths if local["id"] in path]

    # Laptop keeps its local note; desktop never sees it.
    assert [hit["id"] for hit in laptop.search("vpn socket")] == [local["id"]]
    assert desktop.search("vpn socket") == []
    assert desktop.run("show", local["id"]).code != 0
    assert [hit["id"] for hit in desktop.search("e2e-shared-pipeline")] == [portable["id"]]
    # Nor do the secrets sit in any plain file of either store (notes, index, logs).
    for machine in (laptop, desktop):
        for path in machine.home.rglob("*"):
            if path.is_file() and ".git" not in path.parts:
                data = path.read_bytes()
                assert not [s for s in SECRETS if s in data], path
    # Only the note's files are in the remote: no lock files, no temp files, no index.
    assert all(re.fullmatch(r"(semantic|episodic|procedural)/\w{26}\.md", p) for p in paths)

    # The transcript copy keeps them: the check above is not vacuous about where they were.
    assert AWS_KEY in transcript.read_text(encoding="utf-8")
    assert shutil.which("git", path=laptop.env["PATH"]) is None
