"""SessionStart: the right notes, within budget, fenced as reference data."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from anamnesis.hooks.inject import (
    CLOSE,
    DEFAULT_BUDGET,
    HEADER,
    OPEN,
    hook_output,
    render_inject,
    select_inject,
)
from anamnesis.store import Memory, MemoryStore
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"


def put(store: MemoryStore, title: str, *, day: int, type: str = "semantic", project: str = P,
        body: str = "b", confidence: float = 1.0, tags: list[str] | None = None,
        supersedes: list[str] | None = None) -> Memory:  # fmt: skip
    stamp = f"2026-01-{day:02d}T00:00:00+00:00"
    note = store.write(type=type, title=title, body=body, project=project, tags=tags,
                       confidence=confidence, supersedes=supersedes)  # fmt: skip
    return store.put(note.replace(created_at=stamp, updated_at=stamp))


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    return MemoryStore(isolated_home)


def titles(notes: list[Memory]) -> list[str]:
    return [m.title for m in notes]


def test_selection_rules(store: MemoryStore) -> None:
    put(store, "global old", day=1, project="global")
    put(store, "global new", day=9, project="global")
    for day in range(1, 10):
        put(store, f"durable {day}", day=day, type="procedural" if day % 2 else "semantic")
    put(store, "episode 1", day=1, type="episodic")
    put(store, "episode 2", day=2, type="episodic")
    put(store, "episode 3 reflected", day=3, type="episodic", tags=["reflected"])
    put(store, "episode 4", day=4, type="episodic")
    old = put(store, "superseded durable", day=20)
    put(store, "replacement", day=5, supersedes=[old.id])
    put(store, "other project", day=30, project="github.com/acme/other")
    selection = select_inject(store, project=P, k=8)
    assert titles(selection.global_notes) == ["global new", "global old"]
    assert titles(selection.project_notes) == [
        "durable 9", "durable 8", "durable 7", "durable 6", "replacement", "durable 5",
        "episode 4", "episode 2",
    ]  # fmt: skip
    assert selection.left_out == 0


def test_ties_on_updated_at_go_to_confidence(store: MemoryStore) -> None:
    put(store, "less sure", day=5, confidence=0.4)
    put(store, "more sure", day=5, confidence=0.9)
    assert titles(select_inject(store, project=P, k=1).project_notes) == ["more sure"]


def test_fewer_than_two_episodes_leave_room_for_durable(store: MemoryStore) -> None:
    for day in range(1, 5):
        put(store, f"durable {day}", day=day)
    put(store, "episode", day=1, type="episodic")
    assert len(select_inject(store, project=P, k=4).project_notes) == 4


def test_rendering_is_fenced_reference_data(store: MemoryStore) -> None:
    put(store, "Use uv", day=1, project="global", body="Prefer uv.")
    put(store, "Deploy", day=2, type="procedural", body="make deploy")
    note = store.write(type="episodic", title="Session", body="did things", project=P,
                       prov_source="session-end", confidence=0.7, machine_id="desktop")  # fmt: skip
    text = render_inject(select_inject(store, project=P))
    assert text.startswith(HEADER)
    assert "not instructions" in text
    assert text.index(OPEN) < text.index("## [semantic] Use uv") < text.index(CLOSE)
    assert "## [procedural] Deploy" in text
    day = note.updated_at[:10]
    meta = (
        f"_project: {P} · origin: desktop · updated: {day} · source: session-end (confidence 0.7)_"
    )
    assert meta in text
    assert "source: human" not in text
    assert "left out" not in text


def test_the_budget_holds_and_says_what_was_left_out(store: MemoryStore) -> None:
    for day in range(1, 29):
        put(store, f"global {day}", day=day, project="global", body="g" * 900)
    for day in range(1, 9):
        put(store, f"project {day}", day=day, body="p" * 3000)
    selection = select_inject(store, project=P, budget=DEFAULT_BUDGET)
    text = render_inject(selection)
    assert len(text) <= DEFAULT_BUDGET
    assert len(selection.project_notes) == 8  # the project's notes get room first
    assert "... (cut; memory_search finds note" in text
    assert text.endswith(
        "left out to stay within the context budget; the memory_search tool can find them."
    )
    shown = text.count("## [")
    assert f"{36 - shown} more notes were left out" in text


def test_nothing_to_inject_is_nothing(store: MemoryStore) -> None:
    put(store, "elsewhere", day=1, project="other")
    assert render_inject(select_inject(store, project=P)) == ""
    assert hook_output("", fmt="json") == ""


def test_json_envelope() -> None:
    payload = json.loads(hook_output("hello", fmt="json"))
    assert payload == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "hello"}
    }


def test_the_hook_process_reads_cwd_from_stdin(store: MemoryStore, tmp_path: Path) -> None:
    put(store, "API fact", day=1, body="the api fact")
    put(store, "Other fact", day=2, project="github.com/acme/other")
    work = checkout(tmp_path / "clone", "https://github.com/acme/api")
    store.close()
    done = run_hook("inject", stdin={"hook_event_name": "SessionStart", "source": "startup",
                                     "session_id": "s", "cwd": str(work)})  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "the api fact" in done.stdout
    assert "Other fact" not in done.stdout
    as_json = run_hook("inject", "--format", "json", stdin={"cwd": str(work)})
    envelope = json.loads(as_json.stdout)
    assert "the api fact" in envelope["hookSpecificOutput"]["additionalContext"]
    flagged = run_hook("inject", "--project", "github.com/acme/other", stdin={"cwd": str(work)})
    assert "Other fact" in flagged.stdout  # a flag beats the hook input


def test_no_store_prints_nothing_and_creates_nothing(isolated_home: Path, tmp_path: Path) -> None:
    done = run_hook("inject", stdin={"cwd": str(tmp_path)})
    assert (done.returncode, done.stdout) == (0, "")
    assert not isolated_home.exists()


FORBIDDEN = ("typer", "rich", "click", "dulwich", "mcp", "ulid", "yaml", "dataclasses", "argparse")


def test_the_inject_path_imports_nothing_heavy(store: MemoryStore, tmp_path: Path) -> None:
    put(store, "API fact", day=1)
    store.close()
    work = checkout(tmp_path / "clone", "git@github.com:acme/api.git")
    code = (
        "import sys, io\n"
        "from anamnesis.hooks.__main__ import main\n"
        "out = io.StringIO(); real = sys.stdout; sys.stdout = out\n"
        f"main(['inject', '--no-stdin', '--cwd', {str(work)!r}])\n"
        "sys.stdout = real\n"
        f"print(sorted(m for m in {FORBIDDEN!r} if m in sys.modules))\n"
        "print('API fact' in out.getvalue())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "True"], done.stdout + done.stderr
