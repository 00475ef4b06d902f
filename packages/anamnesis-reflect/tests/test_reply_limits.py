"""A model's reply that would make a note over the store's limits (a 2 MB body, a title no
other writer accepts) writes nothing, and says which limit, through the real OpenAI
provider against a scripted server on 127.0.0.1: reflection, merge and compaction alike.
Before, such a note was written and the next reindex dropped it as over the reading cap.
A reply larger still (5 MB, 50 MB) is not even read past ``llm.max_reply_bytes``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer, openai_reply

from anamnesis.reflect import LlmSettings, OpenAIProvider, run_compaction
from anamnesis.reflect.merge import run_merge
from anamnesis.reflect.merge_report import REFUSED_BY_VALIDATION
from anamnesis.reflect.reflection import run_reflection
from anamnesis.store import Memory, MemoryStore, new_id, serialize_note
from test_merge_support import fill, groups_reply, snapshot, synthesize
from test_reflection_support import PROJECT, add_episodes, files, note, reply, settings
from test_reflection_support import store as store

# Over the store's body limit (1,000,000 bytes), under the bytes a reply may have (4 MiB).
HUGE_BODY = "x" * 2_000_000
OLD = "2020-01-02T03:04:05+00:00"
LONG_TITLE = "t" * 1_000


@pytest.fixture
def provider(server: FakeLLMServer) -> OpenAIProvider:
    return OpenAIProvider("local-model", base_url=server.url + "/v1")


def reindexes_cleanly(store: MemoryStore) -> None:
    report = store.reindex()
    assert report.skipped == (), report.skipped


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"body": HUGE_BODY}, "body: is 2,000,000 bytes, over the limit of 1,000,000"),
        ({"title": LONG_TITLE}, "title: is 1,000 characters, over the limit of 500"),
    ],
    ids=["2 MB body", "1,000-character title"],
)
def test_a_reflection_reply_over_a_limit_writes_nothing_and_names_it(
    store: MemoryStore,
    server: FakeLLMServer,
    provider: OpenAIProvider,
    fields: dict[str, str],
    reason: str,
) -> None:
    episodes = add_episodes(store, 5)
    before = files(store)
    ids = [episode.id for episode in episodes]
    server.queue(openai_reply(reply(note(ids[:2], **fields), note(ids[2:3], title="Fine"))))
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.result) == ("store-refused", None)
    assert reason in outcome.reason, outcome.reason
    assert files(store) == before  # not the fine note, not a reflected tag: all or nothing
    reindexes_cleanly(store)


@pytest.mark.parametrize("size", [5_000_000, 50_000_000], ids=["5 MB body", "50 MB body"])
def test_a_reflection_reply_past_the_reply_bound_is_unusable_and_writes_nothing(
    store: MemoryStore, server: FakeLLMServer, provider: OpenAIProvider, size: int
) -> None:
    episodes = add_episodes(store, 5)
    before = files(store)
    ids = [episode.id for episode in episodes]
    server.queue(openai_reply(reply(note(ids[:2], body="x" * size))))
    report = run_reflection(store, provider, settings(), project=PROJECT, apply=True)
    (outcome,) = report.outcomes
    assert (outcome.status, outcome.result) == ("provider-error", None)
    assert "unusable reply" in outcome.reason and "llm.max_reply_bytes" in outcome.reason
    assert files(store) == before
    reindexes_cleanly(store)


@pytest.fixture
def merge_store(tmp_path: Path) -> Iterator[MemoryStore]:
    with MemoryStore(tmp_path / "store") as opened:
        yield opened


def test_a_merge_reply_over_a_limit_is_refused_and_writes_nothing(
    merge_store: MemoryStore, server: FakeLLMServer, provider: OpenAIProvider
) -> None:
    first, second, _others = fill(merge_store)
    before = snapshot(merge_store)
    # Everything both notes say, so only the size stands in the way.
    body = f"{first.body}\n\n{second.body}\n\n{HUGE_BODY}"
    server.queue(openai_reply(groups_reply(synthesize([first, second], "WAL", body, []))))
    report = run_merge(merge_store, provider, LlmSettings(timeout_s=30.0), apply=True)
    (outcome,) = report.groups
    assert outcome.status == REFUSED_BY_VALIDATION
    assert "body: is 2,000,2" in outcome.reason and "over the limit of 1,000,000" in outcome.reason
    assert report.written == [] and snapshot(merge_store) == before
    reindexes_cleanly(merge_store)


def test_a_compaction_reply_over_a_limit_is_refused_and_the_note_kept(
    store: MemoryStore, server: FakeLLMServer, provider: OpenAIProvider
) -> None:
    # A rewrite is always shorter than its note, so a note the store read back cannot
    # become one too large to read; but its title can still break the store's limit.
    words = " ".join(f"step{n}" for n in range(300))
    original = store.write(
        type="procedural", title="Deploying", body=f"{words}\n\n{words}\n\n{words}", project="p"
    )
    title = f"Deploying: {words}"[:700]
    server.queue(openai_reply(json.dumps({"title": title, "body": words})))
    settings = LlmSettings(provider="openai", model="local-model", timeout_s=30.0)
    report = run_compaction(store, provider, settings, min_tokens=200, apply=True)
    (outcome,) = report.notes
    assert outcome.status == "invalid"
    assert "title: is 700 characters, over the limit of 500" in outcome.reason, outcome.reason
    kept = store.get(original.id)
    assert (kept.title, kept.body) == (original.title, original.body)
    reindexes_cleanly(store)


def test_a_hand_written_note_over_the_limits_is_left_alone_and_the_rest_compacted(
    store: MemoryStore,
) -> None:
    # Readable (under the reading cap) but over the body limit: the store cannot write it
    # again, not even with a tag, and the run goes on with the other notes.
    lines = "\n".join(f"line {n}: nothing repeats here" for n in range(50_000))
    big = Memory(id=new_id(), type="semantic", title="A big log", body=lines, project="p")
    path = store.memory_dir / "semantic" / f"{big.id}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(serialize_note(big.replace(created_at=OLD, updated_at=OLD)))
    reindexes_cleanly(store)
    paragraph = " ".join(f"word{n}" for n in range(60))
    small = store.write(
        type="semantic", title="Repeats", body=f"{paragraph}\n\n{paragraph}", project="p"
    )
    report = run_compaction(store, None, settings(), min_tokens=50, apply=True)
    statuses = {outcome.id: outcome.status for outcome in report.notes}
    assert statuses == {big.id: "unchanged", small.id: "compacted"}
    assert path.read_text() == serialize_note(big.replace(created_at=OLD, updated_at=OLD))
