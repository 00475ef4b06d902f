"""run_merge on real stores: the dry run, keep and synthesize applied, and what is refused
by validation, with a scripted provider (and once through the real OpenAI provider)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.fake_llm import AWS_KEY_ID, GITHUB_TOKEN, FakeLLMServer, openai_reply

from anamnesis.reflect import LlmSettings, OpenAIProvider, ProviderTimeout
from anamnesis.reflect.merge import run_merge
from anamnesis.reflect.merge_report import (
    APPLIED,
    INVALID_REPLY,
    OVER_MAX_CALLS,
    PLANNED,
    REFUSED_BY_GATE,
    REFUSED_BY_VALIDATION,
    TOO_BIG,
)
from anamnesis.reflect.run_lock import ReflectionBusy, reflection_lock
from anamnesis.store import Memory, MemoryStore
from test_merge_support import (
    SETTINGS,
    UNRELATED,
    ScriptedProvider,
    fill,
    groups_reply,
    keep,
    snapshot,
    synthesize,
    write,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        yield opened


def test_a_dry_run_calls_nothing_and_writes_nothing(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    before = snapshot(store)
    provider = ScriptedProvider()
    report = run_merge(store, provider, SETTINGS)
    assert provider.prompts == []
    assert snapshot(store) == before
    assert [group.ids for group in report.candidates] == [(first.id, second.id)]
    (call,) = report.calls
    assert (call.project, call.groups, call.notes, call.status) == ("app", 1, 2, PLANNED)
    assert report.tokens == call.tokens > 0
    assert report.ok and report.written == [] and report.groups == []
    assert json.loads(json.dumps(report.to_dict()))["calls"][0]["status"] == PLANNED


def test_keep_supersedes_the_others_and_deletes_nothing(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    provider = ScriptedProvider(groups_reply(keep(first, second)))
    report = run_merge(store, provider, SETTINGS, apply=True)
    assert [(g.status, g.note_id) for g in report.groups] == [(APPLIED, first.id)]
    assert report.written == [first.id]
    kept = store.get(first.id)
    assert kept.supersedes == [second.id]
    assert (kept.prov_source, kept.prov_model) == ("merge", "scripted-model")
    assert (kept.title, kept.body) == (first.title, first.body)
    assert store.get(second.id).body == second.body  # retired, not deleted
    assert second.id in [note.id for note in store.list()]
    assert second.id not in [note.id for note in store.search("SQLite WAL busy_timeout")]
    # The model saw both notes whole.
    assert first.body in provider.prompts[0][1] and second.body in provider.prompts[0][1]


def wal_synthesis(first: Memory, second: Memory) -> dict[str, Any]:
    """A synthesis of ``fill``'s two WAL notes that keeps every fact of both."""
    return synthesize(
        [first, second],
        "SQLite in WAL mode",
        "Enable WAL mode and set busy_timeout on every connection: readers never block "
        "the writer. Checkpoints run when the WAL passes 1000 pages.",
        ["sqlite"],
    )


def test_synthesize_writes_a_new_note_superseding_the_group(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    store.update(second.id, confidence=0.7, scope="machine-local")
    reply = groups_reply(wal_synthesis(first, second))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    (outcome,) = report.groups
    assert outcome.status == APPLIED and report.written == [outcome.note_id]
    merged = store.get(outcome.note_id)
    assert merged.id not in (first.id, second.id)
    assert merged.supersedes == [first.id, second.id]
    assert (merged.project, merged.type, merged.prov_source) == ("app", "procedural", "merge")
    assert merged.prov_model == "scripted-model"
    assert merged.tags == ["sqlite", "merged"]
    assert merged.confidence == 1.0  # the group's highest
    assert merged.scope == "machine-local"  # one of its notes never leaves this machine
    assert [note.id for note in store.search("WAL busy_timeout checkpoints")] == [merged.id]
    assert {first.id, second.id} <= {note.id for note in store.list()}


@pytest.mark.parametrize(
    ("first_until", "second_until", "merged_until"),
    [
        ("2999-01-31", "2999-03-31T12:00:00+00:00", "2999-03-31T12:00:00+00:00"),  # the last
        ("2999-01-31", "", ""),  # one of them holds for good: so does the merged note
        ("", "", ""),
    ],
)
def test_a_merged_note_holds_as_long_as_its_group_and_asks_review_first(
    store: MemoryStore, first_until: str, second_until: str, merged_until: str
) -> None:
    first, second, _others = fill(store)
    store.update(first.id, valid_until=first_until, review_after="2999-06-01")
    store.update(second.id, valid_until=second_until, review_after="2999-05-01")
    reply = groups_reply(wal_synthesis(first, second))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    merged = store.get(report.written[0])
    assert (merged.valid_until, merged.review_after) == (merged_until, "2999-05-01")


def test_a_kept_note_keeps_its_own_validity_and_asks_review_first(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    store.update(first.id, valid_until="2999-01-31")
    store.update(second.id, review_after="2999-05-01")
    run_merge(store, ScriptedProvider(groups_reply(keep(first, second))), SETTINGS, apply=True)
    kept = store.get(first.id)
    assert (kept.valid_until, kept.review_after) == ("2999-01-31", "2999-05-01")


def test_keep_retires_no_note_whose_facts_the_kept_note_lacks(store: MemoryStore) -> None:
    body = "Deploy the api with `make deploy-{n}` after the migrations have run on staging."
    two = write(store, "Deploying the api", body.format(n=2))
    three = write(store, "Deploying the api", body.format(n=3))
    write(store, *UNRELATED[0])
    before = snapshot(store)
    report = run_merge(
        store, ScriptedProvider(groups_reply(keep(two, three))), SETTINGS, apply=True
    )
    (outcome,) = report.groups
    assert outcome.status == REFUSED_BY_GATE and report.written == []
    assert outcome.reason.startswith(f"{three.id}'s facts are not all in the note replacing it")
    assert "deploy-3" in outcome.reason and outcome.losses == ()
    assert snapshot(store) == before
    assert three.id in {note.id for note in store.list(include_superseded=False)}


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (  # drops the 1000 pages of both
            "Enable WAL mode and set busy_timeout on every connection: readers never block.",
            "numbers: 1000",
        ),
        (  # adds what neither note said
            "Enable WAL mode and set busy_timeout on every connection; checkpoints at 1000 "
            "pages. Install it with curl https://get.example.sh first.",
            "the new note says what none of them did: adds urls: https://get.example.sh",
        ),
    ],
)
def test_a_synthesis_keeps_every_fact_and_adds_none(
    store: MemoryStore, body: str, named: str
) -> None:
    first, second, _others = fill(store)
    before = snapshot(store)
    reply = groups_reply(synthesize([first, second], "SQLite in WAL mode", body, ["sqlite"]))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    (outcome,) = report.groups
    assert outcome.status == REFUSED_BY_GATE and named in outcome.reason, outcome.reason
    assert report.written == [] and snapshot(store) == before


LOCAL_TEXT = "The spare charger for this laptop lives in the blue drawer by the window."


def test_machine_local_text_never_reaches_a_portable_merge(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    write(store, "Spare charger", LOCAL_TEXT, scope="machine-local")
    write(store, "Where the spare charger is", LOCAL_TEXT.replace("this laptop", "laptops"))
    wal_body = f"{first.body} {second.body}"

    def copies_what_it_saw(user: str) -> str:
        # Merges the WAL notes, and copies the machine-local text in when it was sent.
        body = wal_body + (f" {LOCAL_TEXT}" if LOCAL_TEXT in user else "")
        if first.id not in user:
            return groups_reply()
        return groups_reply(synthesize([first, second], "SQLite in WAL mode", body, []))

    provider = ScriptedProvider(copies_what_it_saw, copies_what_it_saw)
    report = run_merge(store, provider, SETTINGS, apply=True)
    assert report.ok
    for path in sorted((store.root / "memory").rglob("*.md")):  # what a sync would push
        assert LOCAL_TEXT not in path.read_text(), path
    # The group holding the machine-local note went in a call of its own.
    assert [call.scope for call in report.calls] == ["portable", "machine-local"]
    assert LOCAL_TEXT not in provider.prompts[0][1] and LOCAL_TEXT in provider.prompts[1][1]
    (merged,) = (store.get(group.note_id) for group in report.groups if group.note_id)
    assert merged.scope == "portable" and merged.body == wal_body


# Each reply group breaks one rule; n1-n3 are the WAL notes, s1 and s2 a semantic pair,
# "x" an unrelated note that was never a candidate.
REFUSALS = {
    "foreign id": (
        {"ids": ["n1", "x"], "action": "keep", "keep": "n1"},
        "id {x} was not among the candidates",
    ),
    "one id": ({"ids": ["n1"], "action": "keep", "keep": "n1"}, "a group needs two or more ids"),
    "keep outside": (
        {"ids": ["n1", "n2"], "action": "keep", "keep": "n3"},
        "keep '{n3}' is not one of the group's ids",
    ),
    "keep missing": (
        {"ids": ["n1", "n2"], "action": "keep"},
        "keep None is not one of the group's ids",
    ),
    "twice": ({"ids": ["n1", "n1"], "action": "keep", "keep": "n1"}, "id {n1} is listed twice"),
    "types": (
        {"ids": ["n1", "s1"], "action": "keep", "keep": "n1"},
        "the group mixes notes of different types",
    ),
    "action": (
        {"ids": ["n1", "n2"], "action": "drop"},
        "action must be 'keep' or 'synthesize', not 'drop'",
    ),
    "extra key": (
        {"ids": ["n1", "n2"], "action": "keep", "keep": "n1", "why": "same"},
        "unexpected key 'why' in a keep group",
    ),
    "no title": (
        {"ids": ["n1", "n2"], "action": "synthesize", "note": {"title": " ", "body": "b"}},
        "the synthesized note needs a non-empty title",
    ),
    "no body": (
        {"ids": ["n1", "n2"], "action": "synthesize", "note": {"title": "t", "body": ""}},
        "the synthesized note needs a non-empty body",
    ),
    "no note": (
        {"ids": ["n1", "n2"], "action": "synthesize"},
        "a synthesize group needs a 'note' object",
    ),
    "tags": (
        {
            "ids": ["n1", "n2"],
            "action": "synthesize",
            "note": {"title": "t", "body": "b", "tags": "x"},
        },
        "the synthesized note's tags must be a list of text",
    ),
    "ids": ({"ids": "n1 n2", "action": "keep", "keep": "n1"}, "'ids' must be a list of note ids"),
    "store refuses": (  # a lone surrogate: valid JSON, but no file can hold it
        {"ids": ["n1", "n2"], "action": "synthesize", "note": {"title": "WAL \ud800", "body": "b"}},
        "the note cannot be written: title: contains characters that cannot be stored as UTF-8",
    ),
    "not an object": (["n1", "n2"], "a group must be a JSON object"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_an_invalid_group_is_refused_with_its_reason(store: MemoryStore, case: str) -> None:
    first, second, others = fill(store)
    third = write(store, "Use WAL mode for SQLite databases", first.body)
    s1 = write(store, "SQLite WAL", first.body, type="semantic")
    s2 = write(store, "SQLite WAL mode", second.body, type="semantic")
    ids = {"n1": first.id, "n2": second.id, "n3": third.id, "s1": s1.id, "s2": s2.id}
    ids["x"] = others[0].id
    raw, expected = REFUSALS[case]
    text = json.dumps(raw)
    for name, memory_id in ids.items():
        text = text.replace(f'"{name}"', f'"{memory_id}"')
    group = json.loads(text)
    before = snapshot(store)
    reply = "```json\n" + json.dumps({"groups": [group]}) + "\n```"
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    assert [(g.status, g.reason) for g in report.groups] == [
        (REFUSED_BY_VALIDATION, expected.format(**ids))
    ]
    assert report.ok and report.written == [] and snapshot(store) == before


def test_an_id_in_two_groups_refuses_both_and_others_still_apply(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    third = write(store, "Use WAL mode for SQLite databases", first.body)
    s1 = write(store, "SQLite WAL", first.body, type="semantic")
    s2 = write(store, "SQLite WAL mode", second.body, type="semantic")
    reply = groups_reply(keep(first, second), keep(third, second), keep(s1, s2))
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    reused = f"id {second.id} appears in more than one group"
    assert [(g.ids, g.status, g.reason) for g in report.groups] == [
        ((first.id, second.id), REFUSED_BY_VALIDATION, reused),
        ((third.id, second.id), REFUSED_BY_VALIDATION, reused),
        ((s1.id, s2.id), APPLIED, ""),
    ]
    assert report.written == [s1.id]
    assert store.get(first.id).supersedes == [] and store.get(third.id).supersedes == []


@pytest.mark.parametrize(
    "reply",
    ["I think notes 1 and 2 are the same.", '{"merges": []}', '{"groups": {"ids": []}}'],
)
def test_an_unreadable_reply_writes_nothing_and_says_so(store: MemoryStore, reply: str) -> None:
    fill(store)
    before = snapshot(store)
    report = run_merge(store, ScriptedProvider(reply), SETTINGS, apply=True)
    (call,) = report.calls
    assert call.status == INVALID_REPLY and call.excerpt == reply[:200] and call.reason
    assert not report.ok and report.written == [] and snapshot(store) == before


def test_a_provider_error_ends_the_run_with_nothing_written(store: MemoryStore) -> None:
    fill(store, "a")
    fill(store, "b")
    before = snapshot(store)
    first_reply = groups_reply()
    provider = ScriptedProvider(first_reply, ProviderTimeout("no answer in 5 s"))
    with pytest.raises(ProviderTimeout):
        run_merge(store, provider, SETTINGS, apply=True)
    assert snapshot(store) == before


def test_one_call_per_project_within_max_calls(store: MemoryStore) -> None:
    a_first, a_second, _ = fill(store, "a")
    fill(store, "b")
    provider = ScriptedProvider(groups_reply(keep(a_first, a_second)))
    report = run_merge(store, provider, SETTINGS, apply=True, max_calls=1)
    assert [(c.project, c.status) for c in report.calls] == [
        ("a", "answered"),
        ("b", OVER_MAX_CALLS),
    ]
    assert len(provider.prompts) == 1 and report.written == [a_first.id]


def test_a_group_over_the_token_budget_is_not_sent(store: MemoryStore) -> None:
    fill(store)
    provider = ScriptedProvider()
    report = run_merge(store, provider, LlmSettings(max_input_tokens=300), apply=True)
    assert [c.status for c in report.calls] == [TOO_BIG]
    assert provider.prompts == [] and report.tokens == 0


def test_a_planted_secret_never_reaches_the_provider(store: MemoryStore) -> None:
    first = write(store, "Deploy with the CI token", "export the CI token, then make deploy")
    second = write(store, "Deploy using the CI token", "make deploy with the CI token set")
    # The store masks what it writes: plant the secret in the file behind its back, as an
    # old note or a hand edit would.
    path = store.file_of(second.id)
    path.write_text(path.read_text().replace("token set", f"token {GITHUB_TOKEN} set"))
    assert GITHUB_TOKEN in store.get(second.id).body
    provider = ScriptedProvider(groups_reply(keep(first, second)))
    report = run_merge(store, provider, SETTINGS, apply=True)
    assert report.calls[0].notes == 2 and report.written == [first.id]
    assert GITHUB_TOKEN not in provider.sent and "make deploy with the CI token" in provider.sent


def test_a_busy_lock_stops_an_apply_before_any_call(store: MemoryStore) -> None:
    fill(store)
    provider = ScriptedProvider()
    with reflection_lock(store.root), pytest.raises(ReflectionBusy):
        run_merge(store, provider, SETTINGS, apply=True)
    assert provider.prompts == []


def test_merging_through_the_openai_provider(store: MemoryStore) -> None:
    first, second, _others = fill(store)
    path = store.file_of(second.id)
    path.write_text(path.read_text().replace("1000 pages", f"1000 pages ({AWS_KEY_ID})"))
    server = FakeLLMServer()
    server.queue(openai_reply(groups_reply(keep(first, second))))
    server.start()
    try:
        provider = OpenAIProvider("local-model", base_url=server.url + "/v1")
        report = run_merge(store, provider, SETTINGS, apply=True)
    finally:
        server.stop()
    assert report.written == [first.id] and report.model == "local-model"
    assert store.get(first.id).supersedes == [second.id]
    (request,) = server.received
    sent = request.raw.decode()
    assert first.id in sent and second.id in sent and AWS_KEY_ID not in sent
