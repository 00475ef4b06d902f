"""A reflection or a merge that writes a note contradicting a live one has no agent to
tell: its report lists the pair (``possible_contradictions``: the new note, the live note
it may contradict, what differs), and `anamnesis review` lists it too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from anamnesis.reflect.merge import run_merge
from anamnesis.reflect.reflection import run_reflection
from anamnesis.store import MemoryStore
from test_merge_support import SETTINGS, fill, groups_reply, keep, write
from test_reflection_support import PROJECT, ScriptedProvider, add_episodes, note, reply, settings
from test_reflection_support import store as store

ENTRY_KEYS = {"note", "id", "title", "differs"}


@pytest.fixture
def anamnesis_machine_id() -> str:
    return "test-box"


def test_a_reflected_note_that_may_contradict_a_live_one_is_in_the_report(
    store: MemoryStore,
) -> None:
    live = store.write(type="semantic", title="Dev server port", project=PROJECT,
                       body="The dev server listens on port 3000.")  # fmt: skip
    episodes = [episode.id for episode in add_episodes(store, 5)]
    provider = ScriptedProvider(reply(
        note(episodes[:2], type="semantic", title="Dev server port",
             body="The dev server listens on port 5173.", tags=()),
        note(episodes[2:3]),  # about the tests: contradicts nothing
    ))  # fmt: skip
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    (outcome,) = report.outcomes
    assert outcome.result is not None
    port_note, tests_note = outcome.result.written
    (entry,) = outcome.result.possible_contradictions
    assert set(entry) == ENTRY_KEYS
    assert (entry["note"], entry["id"], entry["title"]) == (port_note, live.id, "Dev server port")
    assert any(d["old"] == "3000" and d["new"] == "5173" for d in entry["differs"])
    (project,) = json.loads(json.dumps(report.to_dict()))["projects"]
    assert project["possible_contradictions"] == [entry]
    assert tests_note not in {e["note"] for e in project["possible_contradictions"]}


def test_a_reflection_that_contradicts_nothing_reports_none(store: MemoryStore) -> None:
    episodes = [episode.id for episode in add_episodes(store, 5)]
    report = run_reflection(
        store, ScriptedProvider(reply(note(episodes[:2]))), settings(), project=PROJECT,
        apply=True,
    )  # fmt: skip
    (project,) = report.to_dict()["projects"]
    assert project["possible_contradictions"] == []


def test_a_merged_note_that_may_contradict_a_live_one_is_in_the_report(tmp_path: Path) -> None:
    with MemoryStore(tmp_path / "store") as store:
        first, second, _others = fill(store)
        live = write(store, "SQLite WAL checkpoints",
                     "Checkpoints run when the WAL passes 2000 pages.")  # fmt: skip
        provider = ScriptedProvider(groups_reply(keep(first, second)))
        report = run_merge(store, provider, SETTINGS, apply=True)
        assert report.written == [first.id]
        entries = report.to_dict()["possible_contradictions"]
    assert [(e["note"], e["id"]) for e in entries] == [(first.id, live.id)]
    assert all(set(e) == ENTRY_KEYS for e in entries)
