"""Claude Code's own memory files, mirrored into the store, idempotently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from dulwich.repo import Repo

from anamnesis.ops import claude_home, import_native_memory
from anamnesis.store import MemoryStore, derived_id


def clone_with_origin(path: Path, url: str) -> Path:
    """A real repository (made by dulwich) whose origin remote is ``url``."""
    path.mkdir(parents=True)
    with Repo.init(str(path)) as repo:
        config = repo.get_config()
        config.set((b"remote", b"origin"), b"url", url.encode())
        config.write_to_path()
    return path


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    project = root / "projects" / "-home-me-src-api"
    memory = project / "memory"
    memory.mkdir(parents=True)
    # The session ran in a clone: its project is the origin remote, not the folder name
    # (nor "api", the tail of the folder slug that is the last resort).
    work = clone_with_origin(tmp_path / "src" / "API", "git@github.com:Acme/Backend.git")
    (project / "0b1c.jsonl").write_text(
        json.dumps({"type": "user", "cwd": str(work), "message": {"content": "hi"}}) + "\n"
    )
    (project / "vanished.jsonl").symlink_to(tmp_path / "gone.jsonl")  # fails to stat
    (memory / "MEMORY.md").write_text("- [Testing](feedback_testing.md)\n")
    (memory / "feedback_testing.md").write_text(
        "---\nname: Run tests with -x\ndescription: stop at the first failure\n"
        "type: feedback\n---\n"
        "Always run `pytest -x` before pushing.\n"
    )
    (memory / "user_role.md").write_text(
        "---\ntype: user\n---\n# Backend engineer\n\nPrefers Go.\n"
    )
    (memory / "broken_yaml.md").write_text("---\nname: [unclosed\n---\nStill useful text.\n")
    (memory / "empty.md").write_text("")
    (memory / "not_utf8.md").write_bytes(b"\xff\xfe bad bytes")
    other = root / "projects" / "-home-me-src-web" / "memory"
    other.mkdir(parents=True)
    (other / "dup.md").write_text("Always run `pytest -x` before pushing.\n")
    return root


def test_import_maps_types_titles_projects_and_skips_bad_files(
    claude: Path, isolated_home: Path
) -> None:
    with MemoryStore(isolated_home) as store:
        report = import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert (report.created, report.updated, report.duplicates) == (3, 0, 1)
        problems = {Path(path).name for path, _why in report.problems}
        assert problems == {"empty.md", "not_utf8.md"}
        notes = {m.title: m for m in store.list()}
        testing = notes["Run tests with -x"]
        assert (testing.type, testing.prov_source, testing.project) == (
            "procedural",
            "import",
            "github.com/acme/backend",
        )
        assert testing.tags == ["imported", "claude-memory", "feedback"]
        assert testing.id == derived_id("claude-native:-home-me-src-api/feedback_testing")
        assert notes["Backend engineer"].type == "semantic"
        assert notes["Still useful text."].body == "Still useful text."
        assert all(m.scope == "portable" for m in notes.values())


def test_reimport_is_idempotent_and_edits_update_in_place(
    claude: Path, isolated_home: Path
) -> None:
    with MemoryStore(isolated_home) as store:
        import_native_memory(store, claude_dir=claude, machine_id="laptop")
        again = import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert (again.created, again.updated, again.unchanged) == (0, 0, 3)
        path = claude / "projects" / "-home-me-src-api" / "memory" / "user_role.md"
        path.write_text("---\ntype: user\n---\n# Backend engineer\n\nPrefers Go and Rust.\n")
        edited = import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert (edited.created, edited.updated) == (0, 1)
        assert store.stats().total == 3
        assert "Rust" in store.get(derived_id("claude-native:-home-me-src-api/user_role")).body


def test_a_reimport_of_files_already_imported_never_reads_every_note(
    claude: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # At 100,000 notes, reading every note's body took 9 of a no-op sync's 11 seconds: it
    # is needed only to spot a new file whose text is already a note.
    (claude / "projects" / "-home-me-src-web" / "memory" / "dup.md").unlink()
    with MemoryStore(isolated_home) as store:
        import_native_memory(store, claude_dir=claude, machine_id="laptop")

        def every_note(*_args: object, **_kwargs: object) -> list[object]:
            raise AssertionError("listed every note for files already imported")

        monkeypatch.setattr(store, "list", every_note)
        again = import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert (again.created, again.updated, again.unchanged) == (0, 0, 3)
        monkeypatch.undo()
        new = claude / "projects" / "-home-me-src-api" / "memory" / "project_db.md"
        new.write_text("Always run `pytest -x` before pushing.\n")  # a note's text already
        third = import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert (third.created, third.duplicates, third.unchanged) == (0, 1, 3)


def test_progress_counts_every_file_including_the_ones_that_fail(
    claude: Path, isolated_home: Path
) -> None:
    calls: list[tuple[int, int]] = []
    with MemoryStore(isolated_home) as store:
        report = import_native_memory(
            store,
            claude_dir=claude,
            machine_id="laptop",
            progress=lambda done, total: calls.append((done, total)),
        )
    # Six memory files (MEMORY.md is the index, not a memory): the total is known before
    # the first file, and the empty and non-UTF-8 files still count as done.
    assert calls == [(done, 6) for done in range(7)]
    assert report.created + report.duplicates + len(report.problems) == 6


def test_no_claude_folder_is_not_an_error(tmp_path: Path, isolated_home: Path) -> None:
    with MemoryStore(isolated_home) as store:
        report = import_native_memory(store, claude_dir=tmp_path / "absent", machine_id="laptop")
        assert (report.created, report.problems) == (0, [])


def test_without_a_clone_the_project_is_the_cwd_name_then_the_slug(
    claude: Path, isolated_home: Path
) -> None:
    project = claude / "projects" / "-home-me-src-web-app"
    (project / "memory").mkdir(parents=True)
    (project / "memory" / "note.md").write_text("A note about the web app.\n")
    note_id = derived_id("claude-native:-home-me-src-web-app/note")
    (project / "1.jsonl").write_text(json.dumps({"cwd": "/nonexistent/src/Web"}) + "\n")
    with MemoryStore(isolated_home) as store:
        import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert store.get(note_id).project == "web"  # the recorded cwd is gone: its name
    (project / "1.jsonl").unlink()
    with MemoryStore(isolated_home / "again") as store:
        import_native_memory(store, claude_dir=claude, machine_id="laptop")
        assert store.get(note_id).project == "app"  # nothing recorded: the slug's tail


def test_claude_home_honours_claude_config_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "cc"))
    assert claude_home() == tmp_path / "cc"
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "~/elsewhere")
    assert claude_home() == tmp_path / "me" / "elsewhere"
    monkeypatch.delenv("CLAUDE_CONFIG_DIR")
    assert claude_home() == tmp_path / "me" / ".claude"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", "")  # set but empty: the default
    assert claude_home() == tmp_path / "me" / ".claude"


def test_links_fifos_and_devices_in_claude_codes_memory_are_never_read(
    claude: Path, tmp_path: Path
) -> None:
    memory = claude / "projects" / "-home-me-src-api" / "memory"
    secret = tmp_path / "elsewhere.md"
    secret.write_text("the contents of a file outside Claude Code's folder\n")
    (memory / "linked.md").symlink_to(secret)
    (memory / "zero.md").symlink_to("/dev/zero")
    os.mkfifo(memory / "pipe.md")
    os.mkfifo(claude / "projects" / "-home-me-src-api" / "pipe.jsonl")  # a "transcript"
    with MemoryStore(tmp_path / "home") as store:
        report = import_native_memory(store, claude_dir=claude, machine_id="laptop")
        bodies = [note.body for note in store.list()]
    refused = {Path(path).name: reason for path, reason in report.problems}
    assert {"linked.md", "zero.md", "pipe.md"} <= set(refused)
    assert "symbolic link" in refused["linked.md"] and "FIFO" in refused["pipe.md"]
    assert not any("outside Claude Code's folder" in body for body in bodies)
