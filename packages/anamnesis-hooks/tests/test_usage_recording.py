"""What the hooks record as used (the store's usage log, ``anamnesis stats``): the notes a
SessionStart block showed, the notes each prompt recalled, and each prompt that recalled
nothing. Real hook processes over a real store; a usage file that cannot be written never
changes what a hook prints."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"
ASK = "why is the postgres connection pool exhausted when the workers start?"
UNRELATED = "what colour should the marketing banner for the spring campaign be?"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return checkout(tmp_path / "clone", "https://github.com/acme/api")


@pytest.fixture
def notes(isolated_home: Path) -> dict[str, str]:
    with MemoryStore(isolated_home) as store:
        pool = store.write(type="semantic", title="Postgres connection pool",
                           body="the pool holds 20 connections per worker; workers exhaust it "
                                "when they start together.", project=P)  # fmt: skip
        deploy = store.write(type="procedural", title="Deploy", body="make deploy", project=P)
        rule = store.write(type="semantic", title="Style", body="ruff format", project="global")
    return {"pool": pool.id, "deploy": deploy.id, "rule": rule.id}


def hook(name: str, work: Path, *args: str, session: str = "s1", **fields: str) -> str:
    done = run_hook(name, *args, stdin={"session_id": session, "cwd": str(work), **fields})
    assert done.returncode == 0, done.stderr
    return done.stdout


def runs(home: Path) -> list[tuple[str, str, str, str, int]]:
    """The runs recorded, oldest first, as the file holds them."""
    with sqlite3.connect(MemoryStore(home).layout.usage_path) as conn:
        return conn.execute(
            "SELECT event, project, agent, session, notes FROM runs ORDER BY id"
        ).fetchall()


def test_inject_records_the_notes_it_showed(
    isolated_home: Path, work: Path, notes: dict[str, str]
) -> None:
    out = hook("inject", work, source="startup")
    assert "Postgres connection pool" in out
    assert runs(isolated_home) == [("injected", P, "claude-code", "s1", 3)]
    with MemoryStore(isolated_home) as store:
        counts = store.usage.counts(1)
    assert set(counts.notes) == set(notes.values())
    assert all(use.counts == {"injected": 1} for use in counts.notes.values())


def test_prompts_record_what_they_recalled_and_when_they_found_nothing(
    isolated_home: Path, work: Path, notes: dict[str, str]
) -> None:
    assert "Postgres connection pool" in hook("prompt", work, prompt=ASK)
    assert hook("prompt", work, prompt=UNRELATED) == ""
    assert hook("prompt", work, prompt=ASK) == ""  # already shown in this session: nothing new
    assert hook("prompt", work, prompt="/compact") == ""  # a command: recall never looked
    assert runs(isolated_home) == [
        ("recalled", P, "claude-code", "s1", 1),
        ("recalled", P, "claude-code", "s1", 0),
        ("recalled", P, "claude-code", "s1", 0),
    ]
    with MemoryStore(isolated_home) as store:
        assert store.usage.recall_hit_rate(1) == pytest.approx(1 / 3)
        assert store.usage.counts(1).notes[notes["pool"]].counts == {"recalled": 1}


def test_another_agents_hooks_record_that_agent(
    isolated_home: Path, work: Path, notes: dict[str, str]
) -> None:
    hook("inject", work, "--agent", "codex", session="c1")
    hook("prompt", work, "--agent", "codex", session="c1", prompt=UNRELATED)
    assert [(event, agent) for event, _p, agent, _s, _n in runs(isolated_home)] == [
        ("injected", "codex"), ("recalled", "codex"),
    ]  # fmt: skip


@pytest.mark.parametrize("damage", ["folder", "garbage"])
def test_a_usage_file_that_cannot_be_used_changes_nothing_a_hook_prints(
    isolated_home: Path, work: Path, notes: dict[str, str], damage: str
) -> None:
    clean = hook("inject", work, session="before")
    path = MemoryStore(isolated_home).layout.usage_path
    for leftover in path.parent.glob("usage.db*"):
        leftover.unlink()
    if damage == "folder":
        path.mkdir()  # no SQLite file can be opened here
    else:
        path.write_bytes(b"not a database" * 300)
    after = hook("inject", work, session="before")
    assert after == clean
    assert "Postgres connection pool" in hook("prompt", work, session="p", prompt=ASK)
    usage_log = (isolated_home / "logs" / "usage.log").read_text()
    if damage == "folder":
        assert re.search(r"record injected: OperationalError", usage_log), usage_log
        assert path.is_dir()
    else:  # moved aside, for a person; the run recorded in a fresh file
        assert "moved to usage.db.broken" in usage_log
        assert path.with_name("usage.db.broken").exists()
        assert [run[0] for run in runs(isolated_home)] == ["injected", "recalled"]
    assert not (isolated_home / "logs" / "hooks.log").exists()  # no hook failed
