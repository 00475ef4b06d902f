"""Applying a reflection: the notes written and their provenance, the episodes tagged
``reflected``, a second apply doing nothing, and replies that must write nothing."""

from __future__ import annotations

import json
import logging
import re
from dataclasses import replace

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer, nested_json, openai_reply

from anamnesis.reflect import OpenAIProvider, ProviderFailed, ProviderTimeout
from anamnesis.reflect.reflection import (
    ProjectPlan,
    ProposedNote,
    apply_reflection,
    plan_reflection,
    run_reflection,
)
from anamnesis.store import InvalidNote, MemoryStore, resolve_machine_id
from test_reflection_support import (
    PROJECT,
    ScriptedProvider,
    add_durable,
    add_episodes,
    files,
    good_reply,
    note,
    reply,
    settings,
)
from test_reflection_support import store as store


@pytest.fixture
def anamnesis_machine_id() -> str:
    return "test-box"


def plan_of(store: MemoryStore, project: str = PROJECT) -> ProjectPlan:
    (plan,) = plan_reflection(store, project=project, all_projects=False, settings=settings())
    return plan


def test_apply_writes_distilled_notes_and_tags_every_episode_sent(store: MemoryStore) -> None:
    episodes = add_episodes(store, 5)
    old = add_durable(store, "Run the tests")
    ids = [episode.id for episode in episodes]
    provider = ScriptedProvider(
        reply(
            note(ids[:2], supersedes=[old.id], tags=["testing", "uv"]),
            note(ids[2:3], type="semantic", title="CI runs on Linux", body="Only.", tags=()),
        )
    )
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    assert report.ok and len(provider.received) == 1
    (outcome,) = report.outcomes
    assert outcome.status == "applied" and outcome.result is not None
    assert set(outcome.result.retagged) == set(ids)  # the uncited ones too
    assert outcome.result.superseded == (old.id,)
    first, second = (store.get(new_id) for new_id in outcome.result.written)
    assert (first.type, first.title, second.type) == (
        "procedural",
        "Run the tests with uv",
        "semantic",
    )
    for written in (first, second):
        assert written.prov_source == "reflection" and written.prov_model == "scripted-model"
        assert written.confidence == 0.6 and written.project == PROJECT
        assert written.machine_id == resolve_machine_id(store.root) == "test-box"
        assert written.scope == "portable" and written.created_at
    assert first.tags == ["reflection", "testing", "uv"] and second.tags == ["reflection"]
    assert first.supersedes == [old.id] and second.supersedes == []
    # Each note names the episodes it came from (the dashboard links them).
    assert first.extra == {"sources": ids[:2]} and second.extra == {"sources": ids[2:3]}
    for episode in episodes:
        assert store.get(episode.id).tags == ["reflected"]
    current = {mem.id for mem in store.list(include_superseded=False)}
    assert old.id not in current and first.id in current
    entry = report.to_dict()["projects"][0]
    assert entry["status"] == "applied" and entry["written"] == list(outcome.result.written)


def test_a_reply_cannot_retire_the_durable_notes_it_was_sent(store: MemoryStore) -> None:
    episodes = add_episodes(store, 5)
    deploy = store.write(type="procedural", title="Deploy the api",
                         body="Run `make deploy-2` from the repo root, then watch /var/log/api.",
                         project=PROJECT)  # fmt: skip
    checklist = store.write(type="procedural", title="Release checklist",
                            body="Tag, changelog, announce.", project=PROJECT)  # fmt: skip
    fixed = store.write(type="semantic", title="Staging database host",
                        body="Staging uses db-stage-1 on port 5432.", project=PROJECT)  # fmt: skip
    everything = [deploy.id, checklist.id, fixed.id]
    text = reply(
        note([episodes[0].id], title="Misc", body="Things happened.", supersedes=everything),
        note([episodes[1].id], type="semantic", title="Staging database host moved",
             body="The staging database host is db-stage-2 now (was db-stage-1), port 5432.",
             supersedes=[fixed.id]),
    )  # fmt: skip
    report = run_reflection(store, ScriptedProvider(text), settings(), project=PROJECT, apply=True)
    assert report.ok
    (outcome,) = report.outcomes
    result = outcome.result
    assert result is not None and len(result.written) == 2
    assert result.superseded == (fixed.id,)  # a correction that keeps what it corrects
    refusals = result.refused_supersedes
    assert len(refusals) == 3 and all(
        line.startswith("'Misc' does not supersede") for line in refusals
    )
    assert "identifiers: deploy-2" in refusals[0] and "paths: /var/log/api" in refusals[0]
    assert "title probe" in refusals[1] and "'Release checklist'" in refusals[1]
    assert "db-stage-1" in refusals[2]
    misc = store.get(result.written[0])
    assert misc.supersedes == [] and misc.title == "Misc"  # written, retiring nothing
    visible = {mem.id for mem in store.list(include_superseded=False)}
    assert {deploy.id, checklist.id} <= visible and fixed.id not in visible
    assert [mem.id for mem in store.search("make deploy", project=PROJECT)][:1] == [deploy.id]
    assert report.to_dict()["projects"][0]["refused_supersedes"] == list(refusals)


def test_a_second_apply_over_the_same_episodes_is_a_no_op(store: MemoryStore) -> None:
    add_episodes(store, 5)
    plan = plan_of(store)
    provider = ScriptedProvider(good_reply(plan))
    assert run_reflection(store, provider, settings(), project=PROJECT, apply=True).ok
    after_first = files(store)
    # min_episodes=1: not one episode of the run is left to plan, not merely too few.
    again = run_reflection(store, provider, settings(), project=PROJECT, min_episodes=1, apply=True)
    assert again.ok and again.plans == () and again.outcomes == ()
    assert len(provider.received) == 1 and files(store) == after_first


def test_nothing_worth_keeping_is_an_answer_the_episodes_are_not_sent_again(
    store: MemoryStore,
) -> None:
    episodes = add_episodes(store, 5)
    add_durable(store, "Release steps")
    provider = ScriptedProvider('{"notes": []}')  # the answer the prompt itself asks for
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    assert report.ok
    (outcome,) = report.outcomes
    assert outcome.status == "applied" and outcome.result is not None
    assert outcome.result.written == () and set(outcome.result.retagged) == {
        episode.id for episode in episodes
    }
    assert [mem.title for mem in store.list(type="procedural")] == ["Release steps"]
    again = run_reflection(store, provider, settings(), project=PROJECT, min_episodes=1, apply=True)
    assert again.plans == () and len(provider.received) == 1  # nothing sent, nothing paid


def test_a_fenced_reply_is_accepted_and_an_empty_model_names_the_provider(
    store: MemoryStore,
) -> None:
    add_episodes(store, 5)
    provider = ScriptedProvider(good_reply(plan_of(store)).join(["```json\n", "\n```"]), model="")
    (outcome,) = run_reflection(store, provider, settings(), project=PROJECT, apply=True).outcomes
    assert outcome.status == "applied" and outcome.result is not None
    assert store.get(outcome.result.written[0]).prov_model == "scripted"


FOREIGN = "01ARZ3NDEKTSV4RRFFQ69G5FAV"  # a well-formed id that was never sent

BAD_REPLIES = {
    "not json": ("Sorry, I cannot help with that.", "holds no JSON object"),
    "broken json": ('{"notes": [{"type": "procedural",}]}', "not valid JSON"),
    "nested too deep": (
        '{"notes": ' + nested_json() + "}",
        "unusable: JSON nested 100001 levels deep",
    ),
    "a list": ("[1, 2]", "no JSON object"),
    "no notes key": ('{"items": []}', '"notes" list'),
    "notes not a list": ('{"notes": {"a": 1}}', '"notes" list'),
    "every note refused": (reply(note([FOREIGN])), "no note in the reply can be used"),
    "foreign source": (reply(note([FOREIGN])), "not an episode that was sent"),
    "foreign supersedes": (
        reply(note(["SENT"], supersedes=[FOREIGN])),
        "not a durable note that was sent",
    ),
    "supersedes an episode": (
        reply(note(["SENT"], supersedes=["SENT"])),
        "not a durable note that was sent",
    ),
    "empty title": (reply(note(["SENT"], title="  ")), '"title" must be non-empty'),
    "empty body": (reply(note(["SENT"], body="\n ")), '"body" must be non-empty'),
    "episodic type": (reply(note(["SENT"], type="episodic")), "\"type\" is 'episodic'"),
    "no sources": (reply(note([])), '"sources" must be a non-empty list'),
    "tags not strings": (reply(note(["SENT"], tags=[1])), '"tags" must be a list of strings'),  # type: ignore[list-item]
}


@pytest.mark.parametrize("case", BAD_REPLIES)
def test_an_unusable_reply_writes_nothing_and_says_why(
    store: MemoryStore, case: str, caplog: pytest.LogCaptureFixture
) -> None:
    episodes = add_episodes(store, 5)
    add_durable(store, "Release steps")
    text, why = BAD_REPLIES[case]
    text = text.replace('"SENT"', json.dumps(episodes[0].id))
    before = files(store)
    provider = ScriptedProvider(text)
    with caplog.at_level(logging.WARNING, logger="anamnesis.reflect"):
        report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    assert files(store) == before
    assert not report.ok
    (outcome,) = report.outcomes
    assert outcome.status == "invalid-reply" and why in outcome.reason
    assert outcome.result is None
    assert repr(text[:200]) in caplog.text
    assert report.to_dict()["projects"][0]["reason"] == outcome.reason


def test_a_mixed_reply_applies_the_good_note_and_keeps_the_bad_ones_sources(
    store: MemoryStore,
) -> None:
    episodes = add_episodes(store, 5)
    ids = [episode.id for episode in episodes]
    text = reply(note(ids[:2]), note([ids[2], FOREIGN], title="Invented"))
    report = run_reflection(store, ScriptedProvider(text), settings(), project=PROJECT, apply=True)
    assert report.ok
    (outcome,) = report.outcomes
    assert outcome.result is not None and len(outcome.result.written) == 1
    assert outcome.refused == (
        f"note 2 ('Invented'): \"sources\" cites {FOREIGN!r}, "
        "which is not an episode that was sent",
    )
    # The refused note's episode stays for another run; the rest were read and tagged.
    assert set(outcome.result.retagged) == {ids[0], ids[1], ids[3], ids[4]}
    assert "reflected" not in store.get(ids[2]).tags
    titles = [mem.title for mem in store.list(type="procedural")]
    assert titles == ["Run the tests with uv"]


def test_max_calls_stops_early_and_names_the_projects_not_reached(store: MemoryStore) -> None:
    for project in ("a", "b", "c"):
        add_episodes(store, 5, project=project)
    plans = plan_reflection(store, project=None, all_projects=True, settings=settings())
    provider = ScriptedProvider(*(good_reply(plan) for plan in plans[:2]))
    report = run_reflection(
        store, provider, settings(), project=None, all_projects=True, apply=True, max_calls=2
    )
    assert report.ok and len(provider.received) == 2
    assert [o.project for o in report.outcomes] == ["a", "b"] and report.not_reached == ("c",)
    statuses = [entry["status"] for entry in report.to_dict()["projects"]]
    assert statuses == ["applied", "applied", "not-reached"]
    assert len(plan_reflection(store, project="c", all_projects=False, settings=settings())) == 1


def test_a_provider_error_fails_its_project_only(store: MemoryStore) -> None:
    for project in ("a", "b"):
        add_episodes(store, 5, project=project)
    plan_b = plan_of(store, "b")
    provider = ScriptedProvider(ProviderTimeout("no answer in 60 s"), good_reply(plan_b))
    report = run_reflection(
        store, provider, settings(), project=None, all_projects=True, apply=True
    )
    assert not report.ok
    failed, applied = report.outcomes
    assert (failed.project, failed.status, failed.reason) == (
        "a",
        "provider-error",
        "no answer in 60 s",
    )
    assert (applied.project, applied.status) == ("b", "applied")
    assert len(plan_reflection(store, project=None, all_projects=True, settings=settings())) == 1
    failing = ScriptedProvider(ProviderFailed("HTTP 500"))
    report = run_reflection(store, failing, settings(), project="a", apply=True)
    assert report.outcomes[0].reason == "HTTP 500"


def test_a_note_the_store_refuses_leaves_nothing_written(store: MemoryStore) -> None:
    episodes = add_episodes(store, 5)
    before = files(store)
    # A lone surrogate is valid JSON but cannot be stored: put_many refuses the whole
    # batch before any file of it is visible.
    text = reply(note([episodes[0].id]), note([episodes[1].id], title="bad \ud800 title"))
    report = run_reflection(store, ScriptedProvider(text), settings(), project=PROJECT, apply=True)
    assert not report.ok and report.outcomes[0].status == "store-refused"
    assert "UTF-8" in report.outcomes[0].reason
    assert files(store) == before
    plan = plan_of(store)
    good = ProposedNote("semantic", "t", "b", (), (episodes[0].id,), ())
    with pytest.raises(InvalidNote, match="UTF-8"):
        apply_reflection(store, plan, [good, replace(good, body="\udfff")], model="m")
    assert files(store) == before
    # An episode is no durable note to supersede: apply checks ids against the plan too.
    with pytest.raises(ValueError, match="not in the plan"):
        apply_reflection(store, plan, [replace(good, supersedes=(episodes[1].id,))], model="m")
    assert files(store) == before


LOCAL_TEXT = "On this laptop the VPN profile is called otter-den-seven."


def _copies_its_whole_prompt(user: str) -> str:
    """A model that copies everything it was sent into one note, citing what it likes."""
    first = re.search(r'<episode id="([^"]+)"', user)
    assert first is not None
    return reply(note([first.group(1)], title="Everything", body=user))


def test_machine_local_content_never_reaches_a_portable_note(store: MemoryStore) -> None:
    portable = add_episodes(store, 5)
    local = add_episodes(store, 5, first_day=10, scope="machine-local", body=LOCAL_TEXT)
    store.write(type="procedural", title="VPN here", body=LOCAL_TEXT, project=PROJECT,
                scope="machine-local")  # fmt: skip
    add_durable(store, "Release steps")
    provider = ScriptedProvider(_copies_its_whole_prompt, _copies_its_whole_prompt)
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    assert report.ok
    for path, text in files(store).items():  # what the next sync would push
        if path.startswith("memory/"):
            assert LOCAL_TEXT not in text.decode(), path
    # The portable episodes and the machine-local ones are reflected apart.
    assert [plan.scope for plan in report.plans] == ["portable", "machine-local"]
    (portable_prompt, local_prompt) = (user for _system, user in provider.prompts)
    assert LOCAL_TEXT not in portable_prompt and "Release steps" in portable_prompt
    assert LOCAL_TEXT in local_prompt and "Release steps" in local_prompt
    synced, kept_here = (outcome.result for outcome in report.outcomes)
    assert synced is not None and kept_here is not None
    assert store.get(synced.written[0]).scope == "portable"
    assert store.get(kept_here.written[0]).scope == "machine-local"
    assert set(synced.retagged) == {e.id for e in portable}
    assert set(kept_here.retagged) == {e.id for e in local}


def test_apply_tags_the_episode_as_it_is_now_not_as_planned(store: MemoryStore) -> None:
    episodes = add_episodes(store, 5)
    plan = plan_of(store)
    store.update(episodes[0].id, body="edited after planning", tags=["mine"])
    proposed = ProposedNote("semantic", "t", "b", (), (episodes[0].id,), ())
    apply_reflection(store, plan, [proposed], model="m")
    edited = store.get(episodes[0].id)
    assert (edited.body, edited.tags) == ("edited after planning", ["mine", "reflected"])


def test_a_reflection_through_the_openai_provider(
    store: MemoryStore, server: FakeLLMServer
) -> None:
    episodes = add_episodes(store, 5)
    server.queue(openai_reply(good_reply(plan_of(store)).join(["```json\n", "\n```"])))
    provider = OpenAIProvider("local-model", base_url=server.url + "/v1")
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    assert report.ok
    (request,) = server.received
    system, user = (message["content"] for message in request.json["messages"])
    assert "procedural|semantic" in system and all(e.id in user for e in episodes)
    result = report.outcomes[0].result
    assert result is not None and store.get(result.written[0]).prov_model == "local-model"
    assert all("reflected" in store.get(e.id).tags for e in episodes)
