"""Helpers for the reflection tests (no tests here): a scripted in-process provider, a real
store with episodes in it, replies built from a plan, and a snapshot of every note file so
a test can say "nothing was written" byte for byte."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.fake_llm import ScriptedProvider as ScriptedProvider

from anamnesis.reflect import LlmSettings
from anamnesis.reflect.reflection import ProjectPlan
from anamnesis.store import Memory, MemoryStore, new_id

PROJECT = "github.com/me/app"


@pytest.fixture
def store(isolated_home: Path) -> Iterator[MemoryStore]:
    with MemoryStore(isolated_home) as opened:
        yield opened


def settings(max_input_tokens: int = 24_000) -> LlmSettings:
    return LlmSettings(provider="openai", model="test-model", max_input_tokens=max_input_tokens)


def add_episodes(
    store: MemoryStore,
    count: int,
    *,
    project: str = PROJECT,
    body: str = "Ran the tests with uv run pytest; the flaky one needed a fixed seed.",
    first_day: int = 1,
    **fields: Any,
) -> list[Memory]:
    """``count`` episodes, one a day from ``first_day`` of January (oldest first)."""
    notes = [
        Memory(
            id=new_id(),
            type="episodic",
            title=f"session {first_day + n}",
            body=f"{body} (day {first_day + n})",
            project=project,
            created_at=f"2026-01-{first_day + n:02d}T10:00:00+00:00",
            updated_at=f"2026-01-{first_day + n:02d}T10:00:00+00:00",
            **fields,
        )
        for n in range(count)
    ]
    return store.put_many(notes)


def add_durable(store: MemoryStore, title: str, *, project: str = PROJECT) -> Memory:
    return store.write(type="procedural", title=title, body=f"{title}: the steps.", project=project)


def note(
    sources: Sequence[str],
    *,
    type: str = "procedural",
    title: str = "Run the tests with uv",
    body: str = "uv run pytest -q; pin the seed of the flaky test.",
    tags: Sequence[str] = ("testing",),
    supersedes: Sequence[str] = (),
) -> dict[str, Any]:
    return {
        "type": type,
        "title": title,
        "body": body,
        "tags": list(tags),
        "sources": list(sources),
        "supersedes": list(supersedes),
    }


def reply(*notes: dict[str, Any], fenced: bool = False) -> str:
    text = json.dumps({"notes": list(notes)})
    return f"Here you are:\n```json\n{text}\n```\n" if fenced else text


def good_reply(plan: ProjectPlan) -> str:
    """One note citing the plan's first two episodes."""
    return reply(note([sent.id for sent in plan.episodes[:2]]))


def files(store: MemoryStore) -> dict[str, bytes]:
    """Every note file of the store (both trees), by path: the truth, byte for byte."""
    return {
        str(path.relative_to(store.root)): path.read_bytes()
        for tree in ("memory", "local")
        for path in sorted((store.root / tree).rglob("*.md"))
    }
