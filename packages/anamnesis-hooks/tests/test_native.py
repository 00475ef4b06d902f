"""Claude Code's own memory files, mirrored into the store, idempotently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.hooks.native import import_native_memory
from anamnesis.store import MemoryStore, derived_id


@pytest.fixture
def claude(tmp_path: Path) -> Path:
    root = tmp_path / "claude"
    project = root / "projects" / "-home-me-src-api"
    memory = project / "memory"
    memory.mkdir(parents=True)
    (project / "0b1c.jsonl").write_text(
        json.dumps({"type": "user", "cwd": "/nonexistent/src/API", "message": {"content": "hi"}})
        + "\n"
    )
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
            "api",
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


def test_no_claude_folder_is_not_an_error(tmp_path: Path, isolated_home: Path) -> None:
    with MemoryStore(isolated_home) as store:
        report = import_native_memory(store, claude_dir=tmp_path / "absent", machine_id="laptop")
        assert (report.created, report.problems) == (0, [])
