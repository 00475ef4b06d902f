"""Validity in time on a session's path: a note past its valid_until is never in the block a
session starts with, nor added at a prompt; a note valid until a later day is, and so is a
note due for review (due is a mark, never a reason to hide). Real hook processes over a
real store."""

from __future__ import annotations

from pathlib import Path

import pytest

from anamnesis.store import MemoryStore
from hooks_testing import checkout, run_hook

P = "github.com/acme/api"
ASK = "why is the postgres connection pool exhausted when the workers start?"


@pytest.fixture
def work(tmp_path: Path) -> Path:
    return checkout(tmp_path / "clone", "https://github.com/acme/api")


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    with MemoryStore(isolated_home) as opened:
        # Each pair says the same thing; one of each is past its valid_until.
        for when, tag in (("2020-01-31", "gone"), ("2999-12-31", "kept")):
            opened.write(type="semantic", title=f"Pool size ({tag})", project=P,
                         body=f"postgres connection pool exhausted: workers start {tag}-pool",
                         valid_until=when)  # fmt: skip
            opened.write(type="procedural", title=f"Use uv run ({tag})", valid_until=when,
                         body=f"always `uv run pytest` ({tag}-global)")  # fmt: skip
        opened.write(type="semantic", title="Pool review", project=P, review_after="2020-01-01",
                     body="postgres connection pool exhausted by workers: due-pool")  # fmt: skip
    return MemoryStore(isolated_home)


def _hook(name: str, work: Path, **event: str) -> str:
    done = run_hook(name, stdin={"session_id": "s1", "cwd": str(work), **event})
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    return done.stdout


def test_an_expired_note_is_never_in_the_session_start_block(
    store: MemoryStore, work: Path
) -> None:
    block = _hook("inject", work, hook_event_name="SessionStart", source="startup")
    assert "kept-pool" in block and "kept-global" in block  # valid until a later day
    assert "due-pool" in block  # due for review: still recalled
    assert "gone-pool" not in block and "gone-global" not in block
    assert "(gone)" not in block


def test_an_expired_note_is_never_added_at_a_prompt(store: MemoryStore, work: Path) -> None:
    added = _hook("prompt", work, hook_event_name="UserPromptSubmit", prompt=ASK)
    assert "kept-pool" in added and "due-pool" in added
    assert "gone-pool" not in added


def test_the_note_comes_back_once_its_date_is_moved(store: MemoryStore, work: Path) -> None:
    gone = next(n for n in store.list(project=P) if n.title == "Pool size (gone)")
    store.update(gone.id, valid_until="")
    store.close()
    added = _hook("prompt", work, hook_event_name="UserPromptSubmit", prompt=ASK, session="s2")
    assert "gone-pool" in added
