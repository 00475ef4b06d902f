"""Planning and dry runs: which projects and episodes a reflection takes, the prompt it
would send (masked, within the token budget), and that a dry run calls and writes nothing."""

from __future__ import annotations

import pytest
from anamnesis_testsupport.fake_llm import GITHUB_TOKEN

from anamnesis.reflect import HeuristicProvider, InvalidLlmSetting, ProviderUnavailable
from anamnesis.reflect.reflection import plan_reflection, run_reflection
from anamnesis.reflect.reflection_prompt import REPLY_SHAPE
from anamnesis.reflect.run_lock import ReflectionBusy, reflection_lock
from anamnesis.store import MemoryStore
from test_reflection_support import (
    PROJECT,
    ScriptedProvider,
    add_durable,
    add_episodes,
    files,
    settings,
)
from test_reflection_support import store as store


def test_a_dry_run_plans_but_calls_nothing_and_writes_nothing(store: MemoryStore) -> None:
    episodes = add_episodes(store, 5)
    durable = add_durable(store, "Deploy with make release")
    before = files(store)
    provider = ScriptedProvider()
    report = run_reflection(store, provider, settings(), project=PROJECT)
    assert provider.received == []
    assert files(store) == before
    (plan,) = report.plans
    assert [sent.id for sent in plan.episodes] == [note.id for note in episodes]
    assert [sent.id for sent in plan.durable] == [durable.id]
    assert (plan.left_out, plan.calls) == (0, 1)
    assert report.ok and not report.applied and report.outcomes == ()
    assert report.calls == 1 and report.input_tokens == plan.input_tokens > 0
    summary = report.to_dict()
    assert summary["dry_run"] is True and summary["calls"] == 1
    (entry,) = summary["projects"]
    assert entry["status"] == "planned" and entry["input_tokens"] == plan.input_tokens
    assert [e["id"] for e in entry["episodes"]] == [note.id for note in episodes]
    assert entry["durable"] == [{"id": durable.id, "type": "procedural", "title": durable.title}]


def test_a_dry_run_works_with_the_heuristic_provider_and_applying_says_why_not(
    store: MemoryStore,
) -> None:
    add_episodes(store, 5)
    before = files(store)
    report = run_reflection(store, HeuristicProvider(), settings(), project=PROJECT)
    assert len(report.plans) == 1 and report.ok
    with pytest.raises(ProviderUnavailable, match=r"llm\.provider claude-code"):
        run_reflection(store, HeuristicProvider(), settings(), project=PROJECT, apply=True)
    assert files(store) == before


def test_the_prompt_shows_every_id_and_asks_for_the_reply_shape(store: MemoryStore) -> None:
    episodes = add_episodes(store, 6)
    durable = add_durable(store, "Release steps")
    (plan,) = plan_reflection(store, project=PROJECT, all_projects=False, settings=settings())
    assert REPLY_SHAPE in plan.system
    assert f"Project: {PROJECT}" in plan.user
    assert f'<note id="{durable.id}" type="procedural">' in plan.user
    positions = [plan.user.index(f'<episode id="{note.id}"') for note in episodes]
    assert positions == sorted(positions)  # oldest first
    assert plan.user.index(durable.id) < positions[0]


def test_a_project_needs_min_episodes_unreflected_and_current_ones(store: MemoryStore) -> None:
    add_episodes(store, 4)
    add_episodes(store, 2, tags=["reflected"], first_day=10)
    old = add_episodes(store, 1, first_day=20)[0]
    store.write(type="episodic", title="newer", body="replaces it", supersedes=[old.id])
    # 4 unreflected, current, project episodes (the "newer" one is in project global).

    def plans(min_episodes: int) -> list[str]:
        found = plan_reflection(
            store,
            project=PROJECT,
            all_projects=False,
            min_episodes=min_episodes,
            settings=settings(),
        )
        return [plan.project for plan in found]

    assert plans(5) == []
    assert plans(4) == [PROJECT]
    add_episodes(store, 1, first_day=25)
    assert plans(5) == [PROJECT]
    (plan,) = plan_reflection(store, project=PROJECT, all_projects=False, settings=settings())
    assert old.id not in plan.episode_ids and len(plan.episodes) == 5


def test_all_projects_plans_every_project_with_enough_episodes(store: MemoryStore) -> None:
    add_episodes(store, 5, project="zeta")
    add_episodes(store, 7, project="alpha")
    add_episodes(store, 2, project="beta")
    found = plan_reflection(store, project=None, all_projects=True, settings=settings())
    assert [(plan.project, len(plan.episodes)) for plan in found] == [("alpha", 7), ("zeta", 5)]
    only = plan_reflection(store, project="zeta", all_projects=False, settings=settings())
    assert [plan.project for plan in only] == ["zeta"]
    with pytest.raises(ValueError, match="not both"):
        plan_reflection(store, project="zeta", all_projects=True, settings=settings())
    with pytest.raises(ValueError, match="not both"):
        plan_reflection(store, project=None, all_projects=False, settings=settings())


def test_episodes_over_the_budget_are_left_out_newest_first(store: MemoryStore) -> None:
    episodes = add_episodes(store, 8, body="word " * 150)  # about 190 tokens each
    add_durable(store, "Release steps")
    (plan,) = plan_reflection(
        store, project=PROJECT, all_projects=False, settings=settings(max_input_tokens=1600)
    )
    assert plan.input_tokens <= 1600
    kept = len(plan.episodes)
    assert 1 <= kept < 8 and plan.left_out == 8 - kept and not plan.episode_cut
    assert [sent.id for sent in plan.episodes] == [note.id for note in episodes[:kept]]
    assert "[… cut here" not in plan.user  # episodes go whole or not at all
    assert episodes[kept].id not in plan.user


def test_an_episode_too_long_to_fit_alone_is_sent_cut(store: MemoryStore) -> None:
    (giant,) = add_episodes(store, 1, body="word " * 2000)
    small = settings(max_input_tokens=1200)
    (plan,) = plan_reflection(
        store, project=PROJECT, all_projects=False, min_episodes=1, settings=small
    )
    assert plan.episode_ids == {giant.id} and plan.episode_cut and plan.left_out == 0
    assert plan.input_tokens <= 1200


def test_a_budget_too_small_for_the_prompt_is_a_setting_error(store: MemoryStore) -> None:
    add_episodes(store, 5)
    with pytest.raises(InvalidLlmSetting, match=r"llm\.max_input_tokens is 300") as caught:
        plan_reflection(
            store, project=PROJECT, all_projects=False, settings=settings(max_input_tokens=300)
        )
    assert caught.value.key == "llm.max_input_tokens"


def test_a_secret_in_an_episode_never_reaches_the_provider(store: MemoryStore) -> None:
    # The store masks what it writes, so the secret is planted the way a hand-edited or
    # older file would hold it: through a store that does not mask.
    with MemoryStore(store.root, mask_secrets=False) as raw:
        (planted,) = add_episodes(raw, 1, body=f"export GITHUB_TOKEN={GITHUB_TOKEN} then push")
    add_episodes(store, 4, first_day=2)
    assert GITHUB_TOKEN in store.file_of(planted.id).read_text()
    provider = ScriptedProvider(RuntimeError("stop here"))
    report = run_reflection(store, provider, settings(), project=PROJECT)
    assert GITHUB_TOKEN not in report.plans[0].user and "[REDACTED]" in report.plans[0].user
    with pytest.raises(RuntimeError, match="stop here"):
        run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    ((system, user),) = provider.received
    assert GITHUB_TOKEN not in system + user
    assert planted.id in user and "[REDACTED]" in user


def test_a_second_run_is_refused_while_one_holds_the_lock(store: MemoryStore) -> None:
    add_episodes(store, 5)
    provider = ScriptedProvider()
    with reflection_lock(store.root):
        with pytest.raises(ReflectionBusy, match="another reflect or merge"):
            run_reflection(store, provider, settings(), project=PROJECT)
        with pytest.raises(ReflectionBusy):
            run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    assert provider.received == []
    assert len(run_reflection(store, provider, settings(), project=PROJECT).plans) == 1
