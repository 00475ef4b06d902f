"""The one sync cycle, against real stores sharing a bare remote made with dulwich."""

from __future__ import annotations

from pathlib import Path

import pytest
from anamnesis_testsupport.repos import bare_remote, commit_messages, every_blob

from anamnesis.ops import Home, run_sync
from anamnesis.store import redact_secrets
from anamnesis.sync import STRATEGIES, SyncError

SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape


def machine(tmp_path: Path, name: str, remote: Path) -> Home:
    return Home(tmp_path / name, machine_id=name, remote=str(remote))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_secret_typed_into_a_conflicting_note_is_masked_on_the_remote(
    tmp_path: Path, strategy: str
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    laptop, desktop = machine(tmp_path, "laptop", remote), machine(tmp_path, "desktop", remote)
    with laptop.open_store() as mine, desktop.open_store() as theirs:
        note = mine.write(type="semantic", title="Deploy", body="the deploy key is in the vault")
        run_sync(laptop, mine)
        run_sync(desktop, theirs)
        theirs.update(note.id, body="the deploy key moved to the new vault")
        run_sync(desktop, theirs)
        # Typed by hand, in an editor, on the laptop: nothing masked it on the way in.
        path = mine.file_of(note.id)
        path.write_text(path.read_text().replace("is in the vault", f"is {SECRET}"))
        conflicted = run_sync(laptop, mine)
        assert conflicted.result.conflicted, conflicted.as_dict()
        settled = run_sync(laptop, mine, resolve=strategy)  # type: ignore[arg-type]
        assert not settled.result.conflicted, settled.as_dict()
        assert settled.result.remote_error == "", settled.as_dict()
        pulled = run_sync(desktop, theirs)
        assert pulled.result.remote_error == ""
    assert not any(SECRET.encode() in blob for blob in every_blob(remote))
    for home in (laptop, desktop):
        files = list(home.layout.memory_dir.rglob("*.md"))
        assert files and not any(SECRET in file.read_text() for file in files), strategy


def test_the_report_is_one_dict_for_every_front_end(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    laptop, desktop = machine(tmp_path, "laptop", remote), machine(tmp_path, "desktop", remote)
    with laptop.open_store(mask_secrets=False) as mine, desktop.open_store() as theirs:
        mine.write(type="semantic", title="CI", body=f"token {SECRET}")
        pushed = run_sync(laptop, mine).as_dict()
        pulled = run_sync(desktop, theirs).as_dict()
    assert pushed["pushed"] is True and len(pushed["masked"]) == 1
    assert pulled["pulled"] >= 1 and pulled["indexed"] == 1 and pulled["masked"] == []
    assert set(pushed) == {
        "pushed", "pulled", "conflicted", "conflicts", "head", "indexed", "removed",
        "imported", "masked", "detail", "remote_error",
    }  # fmt: skip


def test_a_resolve_imports_nothing_and_a_sync_imports_claude_codes_memory(
    tmp_path: Path,
) -> None:
    claude = tmp_path / "claude"
    (claude / "projects" / "-x" / "memory").mkdir(parents=True)
    (claude / "projects" / "-x" / "memory" / "pref.md").write_text("Prefer tabs.\n")
    home = Home(tmp_path / "home", machine_id="laptop", remote=None)
    with home.open_store() as store:
        with pytest.raises(SyncError, match="nothing to resolve"):
            run_sync(home, store, resolve="ours", claude_dir=claude)
        assert store.list() == []  # a resolve settles what is there: it imports nothing
        synced = run_sync(home, store, claude_dir=claude)
        assert synced.as_dict()["imported"] == 1
        assert [note.machine_id for note in store.list()] == ["laptop"]


def test_each_sync_commit_names_the_notes_it_changes_never_a_secret_or_a_local_note(
    tmp_path: Path,
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    laptop = machine(tmp_path, "laptop", remote)
    with laptop.open_store(mask_secrets=False) as mine:  # as a hand edit would leave it
        pool = mine.write(type="semantic", title="Pool size", body="use 20")
        mine.write(type="semantic", title=f"CI token {SECRET}", body="for the deploys")
        mine.write(type="semantic", title="Home wifi", body="on the fridge", scope="machine-local")
        first = run_sync(laptop, mine)
        mine.update(pool.id, body="use 40")
        mine.write(type="procedural", title="Ports", body="8000")
        second = run_sync(laptop, mine)
    assert first.result.pushed and second.result.pushed
    latest, masking = commit_messages(remote)
    assert latest == "anamnesis: 1 note added, 1 edited: Ports, Pool size\n"
    # The first sync masked the token and committed everything then, saying both.
    masked_title = redact_secrets(f"CI token {SECRET}")
    assert masking.startswith("anamnesis: masked 1 secret(s) in 1 note(s) before syncing\n\n")
    assert masking.endswith(f"\n\n2 notes added: {masked_title}, Pool size\n") or masking.endswith(
        f"\n\n2 notes added: Pool size, {masked_title}\n"
    )
    assert not any(SECRET in message or "Home wifi" in message for message in (latest, masking))
