"""Nothing unmasked reaches the remote, whichever way the notes are pushed: each --resolve
mode (run as a real `anamnesis` process, as a user runs it), and a commit made for a later
sync (reflect's, clean --everywhere's). Real stores, real repositories made with dulwich, a
bare remote read back object by object. (The dashboard's Sync button and the MCP sync tool:
in their own suites.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anamnesis_testsupport import CannotLock, unwritable_folders
from anamnesis_testsupport.fake_llm import FakeLLMServer, openai_reply
from anamnesis_testsupport.repos import every_blob, tip_texts

from anamnesis.store import MemoryStore
from cli_testing import Env, bare_remote, machines, write

MASK = "[REDACTED]"
TOKEN = "ghp_" + "R7k2Qm9xVb4Tn8Lc3Wd6Zp1Hs5Yf0Ja7Ge2Ku"  # shaped like a GitHub token only


def note_path(env: Env, note_id: str) -> Path:
    return Path(env.run("show", note_id, "--json").json()["path"])


def type_into(path: Path, text: str) -> None:
    """An edit by hand, as an editor saves it: no store, no masking."""
    path.write_text(path.read_text(encoding="utf-8") + f"\n{text}\n", encoding="utf-8")


def in_conflict(tmp_path: Path) -> tuple[Env, Env, Path, str]:
    """Two machines that edited one note; the desktop's sync reported the conflict."""
    laptop, desktop, remote = machines(tmp_path)
    note_id = write(laptop, "Deploy", "deploy with make deploy")
    assert laptop.run("sync").code == 0
    assert desktop.run("sync").code == 0
    type_into(note_path(laptop, note_id), "then restart the workers")
    type_into(note_path(desktop, note_id), "then warm the cache")
    assert laptop.run("sync").code == 0
    conflict = desktop.run("sync", "--json")
    assert conflict.code == 1 and conflict.json()["conflicted"] is True, conflict.out
    return laptop, desktop, remote, note_id


def assert_never_in(repository: Path, *secrets: str) -> None:
    for secret in secrets:
        leaked = [blob[:80] for blob in every_blob(repository) if secret.encode() in blob]
        assert leaked == [], f"{secret[:8]}... is in {repository.name}"


@pytest.mark.parametrize("mode", ["ours", "keep-both", "theirs"])
def test_every_resolve_mode_masks_a_secret_typed_into_the_conflicting_note(
    tmp_path: Path, mode: str
) -> None:
    laptop, desktop, remote, note_id = in_conflict(tmp_path)
    conflicting = note_path(desktop, note_id)
    type_into(conflicting, f"the deploy token is {TOKEN}")
    resolved = desktop.run_process("sync", "--resolve", mode, "--json")
    assert resolved.code == 0, resolved.err
    assert resolved.json()["pushed"] is True
    assert_never_in(remote, TOKEN)
    notes = tip_texts(remote)
    ours = [text for text in notes.values() if "warm the cache" in text]
    if mode == "theirs":
        assert ours == [] and TOKEN not in conflicting.read_text()
    else:  # the version pushed is this machine's, the secret in it masked
        assert len(ours) == 1 and f"the deploy token is {MASK}" in ours[0]
    assert TOKEN not in conflicting.read_text()  # masked on disk as well
    assert laptop.run("sync").code == 0
    assert desktop.run("secrets", "scan").code == 0


def test_a_commit_made_for_sync_masks_hand_edits_first(env: Env, llm: FakeLLMServer) -> None:
    remote = bare_remote(env.root / "remote.git")
    assert env.run("init", "--yes", "--remote", str(remote)).code == 0
    edited = note_path(env, write(env, "Deploy", "how to deploy"))
    assert env.run("sync").code == 0
    project = "github.com/acme/api"
    with MemoryStore(env.home) as store:  # sessions, as capture writes them
        episodes = [
            store.write(type="episodic", title=f"session {n}", body=f"deploy flaked {n}",
                        project=project, tags=["session"]).id
            for n in range(5)
        ]  # fmt: skip
    type_into(edited, f"the deploy token is {TOKEN}")  # not a note reflect writes
    reply = {"notes": [{"type": "semantic", "title": "Deploys flake", "body": "Retry once.",
                        "sources": episodes, "supersedes": []}]}  # fmt: skip
    llm.queue(openai_reply(json.dumps(reply)))
    done = env.run("reflect", "--project", project, "--apply", "--json")
    assert done.code == 0, done.err
    assert done.json()["commit"]
    assert_never_in(env.home / "memory", TOKEN)  # nothing committed holds it
    assert env.run("sync").code == 0
    assert_never_in(remote, TOKEN)


def test_clean_everywhere_commits_nothing_unmasked(tmp_path: Path) -> None:
    laptop, desktop, remote = machines(tmp_path)
    kept = note_path(laptop, write(laptop, "Deploy", "how to deploy"))
    assert laptop.run("sync").code == 0
    type_into(kept, f"the deploy token is {TOKEN}")
    # A note the wipe cannot remove (its folder refuses changes) is left for the commit.
    with unwritable_folders() as lock:
        try:
            lock(kept.parent)
        except CannotLock as exc:
            pytest.skip(str(exc))
        cleaned = laptop.run("clean", "memory", "--yes", "--everywhere", "--json")
        assert cleaned.code == 1 and kept.exists(), cleaned.out
    assert_never_in(laptop.home / "memory", TOKEN)  # nothing committed holds it
    assert laptop.run("sync").code == 0
    assert_never_in(remote, TOKEN)
    assert desktop.run("sync").code == 0
