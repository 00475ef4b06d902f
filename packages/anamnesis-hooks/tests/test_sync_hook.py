"""The sync hook: import native memory, sync, and make pulled notes searchable at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from dulwich.repo import Repo

from anamnesis.hooks.syncing import sync_store
from anamnesis.ops import Home
from anamnesis.store import MemoryStore
from hooks_testing import run_hook


def test_a_pulled_note_is_searchable_without_a_reindex(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "remote.git"
    remote.mkdir()
    monkeypatch.setenv("ANAMNESIS_GIT_REMOTE", str(remote))
    Repo.init_bare(str(remote), default_branch=b"main").close()
    with MemoryStore(tmp_path / "laptop") as laptop, MemoryStore(tmp_path / "desktop") as desktop:
        note = laptop.write(
            type="semantic",
            title="Kubernetes ingress quirk",
            body="use pathType",
            machine_id="laptop",
        )
        first = sync_store(Home(laptop.root, machine_id="laptop"), laptop)
        assert first.result.pushed
        second = sync_store(Home(desktop.root, machine_id="desktop"), desktop)
        assert second.reindexed is not None and second.reindexed.indexed == 1
        found = desktop.search("ingress")
        assert [m.id for m in found] == [note.id]
        assert found[0].machine_id == "laptop"
        laptop.delete(note.id)
        sync_store(Home(laptop.root, machine_id="laptop"), laptop)
        sync_store(Home(desktop.root, machine_id="desktop"), desktop)
        assert desktop.search("ingress") == []


def test_native_memory_is_imported_before_the_sync(tmp_path: Path) -> None:
    claude = tmp_path / "claude"
    (claude / "projects" / "-x" / "memory").mkdir(parents=True)
    (claude / "projects" / "-x" / "memory" / "pref.md").write_text("Prefer tabs.\n")
    with MemoryStore(tmp_path / "home") as store:
        report = sync_store(Home(store.root, machine_id="laptop"), store, claude_dir=claude)
        assert report.imported is not None and report.imported.created == 1
        assert report.result.committed  # the imported note went into the local commit


SECRET = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"  # synthetic, GitHub's token shape


def every_blob(remote: Path) -> list[bytes]:
    repo = Repo(str(remote))
    try:
        return [
            repo.object_store[sha].as_raw_string()
            for sha in repo.object_store
            if repo.object_store[sha].type_name == b"blob"
        ]
    finally:
        repo.close()


def test_a_secret_typed_into_a_note_by_hand_never_reaches_the_remote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    remote = tmp_path / "remote.git"
    remote.mkdir()
    monkeypatch.setenv("ANAMNESIS_GIT_REMOTE", str(remote))
    Repo.init_bare(str(remote), default_branch=b"main").close()
    with MemoryStore(tmp_path / "laptop") as store:
        note = store.write(type="semantic", title="CI token", body="stored in the vault")
        sync_store(Home(store.root, machine_id="laptop"), store)
        path = store.file_of(note.id)
        # Edited by hand, in an editor: nothing masked it on the way in.
        path.write_text(path.read_text().replace("stored in the vault", f"token {SECRET}"))
        hand_made = store.memory_dir / "semantic" / "deploy.md"
        hand_made.write_text(f"---\ntitle: {SECRET}\n---\nbroken frontmatter? no: fine\n")
        report = sync_store(Home(store.root, machine_id="laptop"), store)
        assert report.result.pushed
        assert sorted(Path(found.path).name for found in report.masked) == sorted(
            [path.name, hand_made.name]
        )
        assert SECRET not in path.read_text() and "[REDACTED]" in store.get(note.id).body
        assert store.search("token")[0].id == note.id  # reindexed as masked
        # The hand-made file (no id yet) is masked value by value: still adoptable.
        (adopted,) = store.reindex().adopted
        assert store.get(adopted.memory_id).title == "[REDACTED]"
    assert all(SECRET.encode() not in blob for blob in every_blob(remote))
    repo = Repo(str(remote))
    try:
        messages = [entry.commit.message for entry in repo.get_walker()]
    finally:
        repo.close()
    assert any(b"masked 2 secret(s) in 2 note(s) before syncing" in m for m in messages)


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    """Claude Code's folder with one project's memory."""
    memory = tmp_path / "claude" / "projects" / "-home-me-src-api" / "memory"
    memory.mkdir(parents=True)
    (memory / "feedback_testing.md").write_text(
        "---\nname: Run tests with -x\ntype: feedback\n---\n"
        "Always run `pytest -x` before pushing.\n"
    )
    (memory / "user_role.md").write_text(
        "---\ntype: user\n---\n# Backend engineer\n\nPrefers Go.\n"
    )
    return tmp_path / "claude"


def test_the_sync_hook_imports_from_claude_config_dir(
    claude: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    done = run_hook("sync", "--quiet")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    with MemoryStore(isolated_home) as store:
        titles = {m.title for m in store.list()}
    assert "Run tests with -x" in titles and "Backend engineer" in titles
