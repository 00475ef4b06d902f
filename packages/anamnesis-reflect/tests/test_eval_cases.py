"""Eval cases from the provider: generated unapproved into <root>/eval/cases.jsonl in the
store's format, validated, approved by qid or all, and never generated twice per note."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import GITHUB_TOKEN

from anamnesis.reflect import LlmSettings
from anamnesis.reflect.eval_cases import (
    GENERATED,
    UnknownCases,
    approve_cases,
    approved_cases,
    cases_path,
    generate_cases,
    load_store_cases,
)
from anamnesis.reflect.replies import InvalidReply
from anamnesis.store import Memory, MemoryStore, load_cases, recall_at_k
from test_merge_support import SETTINGS, UNRELATED, WAL, WAL_AGAIN, ScriptedProvider, write

_SENT_ID = re.compile(r"--- note (\w{26}) ---")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        for title, body in [WAL, WAL_AGAIN, *UNRELATED]:
            write(opened, title, body)
        write(opened, "A session", "We fixed the login tests.", type="episodic")
        yield opened


def answer_all(user: str) -> str:
    """A reply with a paraphrase for every note the prompt holds."""
    queries = [
        {"id": memory_id, "query": f"how to {memory_id[-4:]} thing"}
        for memory_id in _SENT_ID.findall(user)
    ]
    return json.dumps({"queries": queries})


def durable(store: MemoryStore) -> list[Memory]:
    return store.list(type=("procedural", "semantic"))


def test_generate_then_approve_round_trip(store: MemoryStore) -> None:
    provider = ScriptedProvider(answer_all)
    cases = generate_cases(store, provider, SETTINGS, n=3, seed=1)
    assert len(provider.prompts) == 1 and len(cases) == 3
    assert all(not c.approved and c.kind == GENERATED for c in cases)
    durable_ids = {note.id for note in durable(store)}
    assert {c.relevant[0] for c in cases} <= durable_ids
    assert [c.qid for c in cases] == [f"gen-{c.relevant[0]}" for c in cases]
    path = cases_path(store.root)
    assert path == store.root / "eval" / "cases.jsonl" and path.stat().st_mode & 0o777 == 0o600
    assert load_cases(path) == cases == load_store_cases(store.root)  # the store's format
    assert json.loads(path.read_text().splitlines()[0]) == {
        "qid": cases[0].qid,
        "query": cases[0].query,
        "relevant": [cases[0].relevant[0]],
        "project": "app",
        "approved": False,
        "kind": "generated",
    }
    assert approved_cases(store.root) == []
    assert approve_cases(store.root, [cases[1].qid]) == 1
    assert [c.qid for c in approved_cases(store.root)] == [cases[1].qid]
    assert approve_cases(store.root, [cases[1].qid]) == 0  # already approved
    assert approve_cases(store.root, all_cases=True) == 2
    assert len(approved_cases(store.root)) == 3
    # Approved cases run as eval cases (recall_at_k ignores none of them now).
    assert recall_at_k(store, approved_cases(store.root), (8,)).cases == 3


def test_notes_with_a_generated_case_are_not_asked_again(store: MemoryStore) -> None:
    first = generate_cases(store, ScriptedProvider(answer_all), SETTINGS, n=3, seed=1)
    provider = ScriptedProvider(answer_all)
    rest = generate_cases(store, provider, SETTINGS, n=50)
    assert len(first) + len(rest) == len(durable(store)) == 5
    assert not {c.relevant[0] for c in first} & set(_SENT_ID.findall(provider.sent))
    idle = ScriptedProvider()
    assert generate_cases(store, idle, SETTINGS) == [] and idle.prompts == []
    assert len(load_store_cases(store.root)) == 5


def test_the_same_seed_samples_the_same_notes(store: MemoryStore) -> None:
    sent = []
    for _ in range(2):
        provider = ScriptedProvider('{"queries": []}')
        generate_cases(store, provider, SETTINGS, n=2, seed=42)
        sent.append(_SENT_ID.findall(provider.sent))
    assert sent[0] == sent[1] and len(sent[0]) == 2
    assert "A session" not in provider.sent  # episodes are not durable notes


def test_bad_queries_are_dropped_and_good_ones_kept(store: MemoryStore) -> None:
    notes = durable(store)
    by_title = {note.title: note for note in notes}
    wal, tmux = by_title[WAL[0]], by_title[UNRELATED[0][0]]
    keys, ledger, again = (
        by_title[UNRELATED[2][0]],
        by_title[UNRELATED[1][0]],
        by_title[WAL_AGAIN[0]],
    )

    def reply(user: str) -> str:
        return json.dumps(
            {
                "queries": [
                    {"id": wal.id, "query": "  readers blocked by the sqlite writer  "},
                    {"id": tmux.id, "query": "restore TMUX sessions, after a reboot!"},  # title
                    {"id": keys.id, "query": ""},
                    {"id": "01ARZ3NDEKTSV4RRFFQ69G5FAV", "query": "a note never sent"},
                    {"id": ledger.id, "query": "deadlock in balances"},
                    {"id": ledger.id, "query": "ledger lock order"},  # twice: neither
                    {"id": again.id, "query": "wal checkpoints", "note": "extra key"},
                    ["not", "an", "object"],
                ]
            }
        )

    cases = generate_cases(store, ScriptedProvider(reply), SETTINGS, n=5, seed=3)
    assert [(c.relevant, c.query) for c in cases] == [
        ((wal.id,), "readers blocked by the sqlite writer")
    ]


@pytest.mark.parametrize("reply", ["no json here", '{"cases": []}', '{"queries": {}}'])
def test_an_invalid_reply_raises_and_adds_nothing(store: MemoryStore, reply: str) -> None:
    with pytest.raises(InvalidReply) as raised:
        generate_cases(store, ScriptedProvider(reply), SETTINGS, n=2, seed=1)
    assert raised.value.excerpt == reply[:200]
    assert not cases_path(store.root).exists()


def test_approving_an_unknown_qid_changes_nothing(store: MemoryStore) -> None:
    cases = generate_cases(store, ScriptedProvider(answer_all), SETTINGS, n=2, seed=1)
    before = cases_path(store.root).read_bytes()
    with pytest.raises(UnknownCases) as raised:
        approve_cases(store.root, [cases[0].qid, "gen-nope"])
    assert raised.value.qids == ("gen-nope",) and "gen-nope" in str(raised.value)
    assert cases_path(store.root).read_bytes() == before


def test_keys_the_store_does_not_know_survive_an_approve(store: MemoryStore) -> None:
    path = cases_path(store.root)
    path.parent.mkdir(parents=True)
    row = {"qid": "q1", "query": "wal", "relevant": ["01ARZ3NDEKTSV4RRFFQ69G5FAV"]}
    path.write_text(json.dumps({**row, "approved": False, "note": "mine"}) + "\n\n")
    assert approve_cases(store.root, ["q1"]) == 1
    assert json.loads(path.read_text()) == {**row, "approved": True, "note": "mine"}


def test_a_planted_secret_never_reaches_the_provider(store: MemoryStore) -> None:
    note = write(store, "Deploy with the CI token", "make deploy with the CI token set")
    path = store.file_of(note.id)
    path.write_text(path.read_text().replace("token set", f"token {GITHUB_TOKEN} set"))
    provider = ScriptedProvider(answer_all)
    generate_cases(store, provider, SETTINGS, n=50)
    assert note.id in provider.sent and GITHUB_TOKEN not in provider.sent


def test_a_small_budget_spreads_the_notes_over_a_few_calls(store: MemoryStore) -> None:
    provider = ScriptedProvider(*[answer_all] * 4)
    cases = generate_cases(store, provider, LlmSettings(max_input_tokens=260), n=5, seed=1)
    assert len(provider.prompts) > 1 and len(cases) == 5
