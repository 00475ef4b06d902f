"""`anamnesis stats`: what this machine's sessions used, recorded by the real hook processes
(`anamnesis inject`, `anamnesis prompt`), read back as JSON and as a person reads it on an
80-column terminal. Notes never used are listed, never touched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from anamnesis_testsupport.checkouts import checkout

from anamnesis.store import MemoryStore
from cli_testing import Env, write
from tty_testing import ULID, cells, on_terminal

P = "github.com/acme/api"
LONG_TITLE = "How the deploy runs the migrations first and then restarts every worker in turn"
ASK = "how many postgres connections does each worker keep in its pool?"


def aged(env: Env, title: str, days_ago: int) -> str:
    """A durable note of the project, created ``days_ago`` days before now."""
    with MemoryStore(env.home) as store:
        note = store.write(type="semantic", title=title, body=f"{title}.", project=P)
        (old,) = [n for n in store.list() if n.id == note.id]
        stamp = f"2020-01-{days_ago % 28 + 1:02d}T00:00:00+00:00" if days_ago > 60 else None
        if stamp:
            store.put(old.replace(created_at=stamp, updated_at=stamp))
    return note.id


@pytest.fixture
def used(env: Env, tmp_path: Path) -> dict[str, str]:
    """A session started and prompted twice through the hooks, in the project's clone."""
    work = checkout(tmp_path / "src" / "api", "git@github.com:acme/api.git")
    pool = write(env, "Postgres pool", "each worker keeps 20 postgres connections in its pool",
                 "--project", P)  # fmt: skip
    deploy = write(env, LONG_TITLE, "make deploy", "--project", P)
    stale = aged(env, "Fabric deploys to the old cluster", days_ago=400)
    session = {"session_id": "s1", "cwd": str(work)}
    started = env.run_process("inject", stdin=json.dumps(session))
    assert started.code == 0 and "Postgres pool" in started.out, started.err
    asked = env.run_process("prompt", stdin=json.dumps({**session, "session_id": "s2",
                                                        "prompt": ASK}))  # fmt: skip
    assert "Postgres pool" in asked.out, asked.err
    unrelated = {**session, "session_id": "s2", "prompt": "what colour is the spring banner?"}
    assert env.run_process("prompt", stdin=json.dumps(unrelated)).out == ""
    return {"pool": pool, "deploy": deploy, "stale": stale}


def test_stats_json_counts_each_event_and_names_the_notes(env: Env, used: dict[str, str]) -> None:
    result = env.run("stats", "--json")
    assert result.code == 0, result.err
    data = result.json()
    assert data["days"] == 30
    assert data["events"]["injected"] == {"runs": 1, "found": 1, "notes": 3, "rate": 1.0}
    assert data["prompt_recall"] == {"runs": 2, "found": 1, "notes": 1, "rate": 0.5}
    top = data["most_used"][0]
    assert (top["id"], top["title"], top["uses"]) == (used["pool"], "Postgres pool", 2)
    assert (top["injected"], top["recalled"], top["searched"], top["fetched"]) == (1, 1, 0, 0)
    # Older than the window, and used at a session's start: not "never used".
    assert data["never_used"] == [] and data["never_used_count"] == 0
    assert data["problem"] is None


def test_notes_never_used_are_listed_for_review_and_left_alone(env: Env, tmp_path: Path) -> None:
    stale = aged(env, "Fabric deploys to the old cluster", days_ago=400)
    young = write(env, "Ruff formats the code", "uv run ruff format", "--project", P)
    before = MemoryStore(env.home).file_of(stale).read_bytes()
    data = env.run("stats", "--json", "--days", "7").json()
    assert [note["id"] for note in data["never_used"]] == [stale]  # not the new note
    assert young not in json.dumps(data)
    assert MemoryStore(env.home).file_of(stale).read_bytes() == before  # untouched
    assert env.run("show", stale).code == 0 and stale in env.run("list").out


def test_stats_reads_well_at_80_columns(env: Env, used: dict[str, str]) -> None:
    for n in range(3):
        aged(env, f"{LONG_TITLE} ({n})", days_ago=100 + n)
    screen = on_terminal(env, "stats", "--limit", "2")
    assert screen.code == 0, screen.err
    for line in screen.lines:
        assert cells(line) <= 80, (cells(line), line)
    text = screen.text
    assert "prompts         2, found notes for 1 (50%): 1 note" in text
    assert used["pool"] in ULID.findall(text)  # ids whole, copyable
    assert "Never used in 30 days: 3 durable notes older than that" in text
    assert re.search(r"and 1 more: `anamnesis stats --days 30 --limit 3`", text), text
    assert any(line.startswith(used["pool"]) and "Postgres pool" in line for line in screen.lines)
    cut = [line for line in screen.lines if "How the deploy runs" in line]
    assert cut and all(line.endswith("…") for line in cut)  # titles cut to fit, ids kept


def test_nothing_recorded_yet_says_so(env: Env) -> None:
    result = env.run("stats")
    assert result.code == 0, result.err
    assert "Used most: nothing recorded yet" in result.out
    assert "session starts  none" in result.out


@pytest.mark.parametrize("args", [["--days", "0"], ["--limit", "0"], ["--days", "x"]])
def test_a_bad_window_is_a_usage_error(env: Env, args: list[str]) -> None:
    assert env.run("stats", *args).code == 2


def test_without_a_store_it_says_to_init(bare: Env) -> None:
    result = bare.run("stats")
    assert result.code == 1 and "anamnesis init" in result.err
    assert not bare.home.exists()
