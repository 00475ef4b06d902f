"""Prompt-time recall between two machines: a note written on laptop is added to a
desktop prompt about it, through the UserPromptSubmit hook `init` installed, once per
session, and never when the session start already showed it."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_support import Machine, World, project_checkout


def prompt(machine: Machine, cwd: Path, text: str, session: str) -> str:
    """What the UserPromptSubmit hook adds to Claude's context for ``text``."""
    payload = {
        "session_id": session,
        "transcript_path": str(machine.claude / "projects" / "none.jsonl"),
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "prompt": text,
    }
    (done,) = machine.hook("UserPromptSubmit", payload)
    if not done.out.strip():
        return ""
    output = json.loads(done.out)["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit", output
    context: str = output["additionalContext"]
    return context


def test_a_note_from_laptop_answers_a_prompt_on_desktop_once(world: World) -> None:
    laptop, desktop = world.laptop, world.desktop
    laptop_api = project_checkout(laptop.user / "code" / "api", "git@github.com:acme/api.git")
    desktop_api = project_checkout(desktop.user / "src" / "api", "https://github.com/acme/api")
    for n in range(12):  # enough notes that the session-start block cannot show them all
        laptop.write(f"Session {n}: tidied the logging", "x" * 900, "--type", "episodic",
                     "--here", cwd=laptop_api)  # fmt: skip
    note = laptop.write(
        "Pgbouncer pool size for the API",
        "the api's pgbouncer runs in transaction mode with default_pool_size 40",
        "--type", "episodic", "--here", cwd=laptop_api,
    )  # fmt: skip
    laptop.sync()
    desktop.sync()
    question = "why does pgbouncer refuse connections, is the pool size too small?"
    added = prompt(desktop, desktop_api, question, "s1")
    assert "Pgbouncer pool size for the API" in added and "default_pool_size 40" in added
    assert prompt(desktop, desktop_api, question, "s1") == ""  # this session has it already
    assert note["title"] in prompt(desktop, desktop_api, question, "s2")  # a new session
    # The session-start block (session "start-desktop") shows the newest notes, this one
    # among them: that session's prompt does not add it again.
    assert note["title"] in desktop.inject(desktop_api)
    assert note["title"] not in prompt(desktop, desktop_api, question, "start-desktop")
    assert prompt(desktop, desktop_api, "/compact", "s3") == ""
    assert prompt(desktop, desktop_api, "thanks!", "s3") == ""
