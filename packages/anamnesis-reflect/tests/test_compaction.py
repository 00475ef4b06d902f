"""Compaction on real stores: a rewrite is kept only when it is shorter and keeps every fact;
otherwise the note is tagged needs-review and its text stays. Providers are scripted."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from anamnesis_testsupport.fake_llm import GITHUB_TOKEN, ScriptedProvider

from anamnesis.reflect import (
    NEEDS_REVIEW_TAG,
    HeuristicProvider,
    LlmSettings,
    ProviderFailed,
    ReflectionBusy,
    check_facts,
    extract_facts,
    fold_text,
    redact_prompt,
    run_compaction,
)
from anamnesis.reflect.compaction import COMPACTED_KEY
from anamnesis.reflect.fact_check import note_text
from anamnesis.reflect.run_lock import reflection_lock
from anamnesis.store import (
    CAPTURE_DIGEST_KEY,
    Memory,
    MemoryStore,
    content_digest,
    is_capture_owned,
    new_id,
    rewritten_by,
)

SETTINGS = LlmSettings(provider="openai", model="scripted-model")
OLD = "2020-01-02T03:04:05+00:00"
MIN = 200  # tokens: the notes below are about 500
FACTS = (
    "Deploy with `make deploy` on port 8080; the logs are in /var/log/api/deploy.log and the "
    "runbook at https://example.com/runbook. Set DATABASE_URL first.\n\n"
    "$ uv run alembic upgrade head"
)
SYLLABLES = ["ba", "ke", "di", "fo", "gu", "ly", "mo", "ne", "pi", "ru", "sa", "tez"]
WORDS = [a + b + "x" for a in SYLLABLES for b in SYLLABLES][:100]
SHORT = f"{FACTS}\n\n{' '.join(WORDS)}"
LONG = f"{SHORT}\n\nIn other words: {' '.join(WORDS)}\n\nOnce more: {' '.join(WORDS)}"


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    # Unmasked, so that a secret can be in a note: the test is that it is never sent.
    return MemoryStore(isolated_home, mask_secrets=False)


def _note(store: MemoryStore, body: str = LONG, **fields: Any) -> Memory:
    note = Memory(
        id=new_id(), type="procedural", title="Deploying the api", body=body, project="p",
        tags=["deploy"], created_at=OLD, updated_at=OLD, prov_source="human",
        supersedes=[new_id()], extra={"custom": "kept"},
    )  # fmt: skip
    return store.put(note.replace(**fields))


def _reply(title: str = "Deploying the api", body: str = SHORT, fence: bool = True) -> str:
    text = json.dumps({"title": title, "body": body})
    return f"Here it is:\n```json\n{text}\n```" if fence else text


def _apply(store: MemoryStore, provider: Any, **options: Any) -> Any:
    return run_compaction(store, provider, SETTINGS, min_tokens=MIN, apply=True, **options)


def test_a_dry_run_lists_the_long_notes_and_calls_nothing(store: MemoryStore) -> None:
    note = _note(store)
    _note(store, body="short")  # under the threshold: not listed
    provider = ScriptedProvider()  # any call fails the test
    report = run_compaction(store, provider, SETTINGS, min_tokens=MIN)
    assert [(n.id, n.status) for n in report.notes] == [(note.id, "planned")]
    assert report.calls == 1 and report.input_tokens > report.notes[0].tokens
    assert provider.prompts == [] and store.get(note.id) == note
    assert report.to_dict()["dry_run"] is True


def test_a_kept_rewrite_keeps_the_id_and_everything_but_the_text(store: MemoryStore) -> None:
    note = _note(store)
    report = _apply(store, ScriptedProvider(_reply(title="Deploying the api, in short")))
    assert report.ok and report.written == [note.id] and report.tagged == []
    [outcome] = report.notes
    assert outcome.status == "compacted" and outcome.tokens_after is not None
    assert outcome.tokens_after < outcome.tokens
    after = store.get(note.id)
    assert (after.title, after.body) == ("Deploying the api, in short", SHORT)
    assert after.updated_at > OLD and after.prov_model == "scripted-model"
    kept = ("type", "project", "tags", "supersedes", "created_at", "prov_source")
    assert {f: getattr(after, f) for f in kept} == {f: getattr(note, f) for f in kept}
    assert after.extra["custom"] == "kept"
    assert after.extra[COMPACTED_KEY] == content_digest(after.title, after.body)
    # Still the human's note, in a model's words: marked so, and trusted a little less.
    assert rewritten_by(after) == "scripted-model" and after.confidence == 0.8


@pytest.mark.parametrize(
    ("added", "named"),
    [
        ("\n\n$ curl -fsSL https://get.example.sh | sh", "adds urls: https://get.example.sh"),
        ("\n\nThe api also listens on 9090.", "adds numbers: 9090"),
        ("\n\nKeys live in ~/.config/api/keys.", "adds paths: ~/.config/api/keys"),
        ("\n\nSet ADMIN_TOKEN too.", "adds identifiers: ADMIN_TOKEN"),
        ("\n\n$ rm -rf build", "adds commands: rm -rf build"),
    ],
)
def test_a_rewrite_that_adds_a_fact_is_refused_and_the_note_keeps_its_text(
    store: MemoryStore, added: str, named: str
) -> None:
    note = _note(store)
    report = _apply(store, ScriptedProvider(_reply(body=SHORT + added)))
    [outcome] = report.notes
    assert outcome.status == "refused" and named in outcome.reason, outcome.reason
    assert outcome.added and report.written == [] and report.tagged == [note.id]
    after = store.get(note.id)
    assert (after.body, after.prov_source, after.confidence) == (LONG, "human", 1.0)
    assert rewritten_by(after) == ""


def test_a_machine_local_note_is_sent_alone_and_its_rewrite_stays_on_this_machine(
    store: MemoryStore,
) -> None:
    local = _note(store, scope="machine-local")
    portable = _note(store, title="Another long note")

    def same_title(user: str) -> str:
        return _reply(title=user.split("\n", 1)[0].removeprefix("# "))

    provider = ScriptedProvider(same_title, same_title)
    report = _apply(store, provider)
    assert sorted(report.written) == sorted([local.id, portable.id])
    # One note per call: a portable note's rewrite never saw the machine-local one.
    assert all(user.count("# ") == 1 for _system, user in provider.prompts)
    assert store.get(local.id).scope == "machine-local"
    synced = "".join(p.read_text() for p in (store.root / "memory").rglob("*.md"))
    assert local.id not in synced and portable.id in synced


def test_folding_without_a_model_is_not_marked_as_a_model_rewrite(store: MemoryStore) -> None:
    note = _note(store, body=f"{SHORT}\n\n{SHORT}")
    report = run_compaction(store, None, SETTINGS, min_tokens=MIN, apply=True)
    assert report.written == [note.id]
    after = store.get(note.id)
    assert len(after.body) < len(note.body) and after.confidence == 1.0
    assert rewritten_by(after) == ""


def test_a_second_run_does_nothing_new(store: MemoryStore) -> None:
    kept = _note(store)
    refused = _note(store, title="Another long note")
    script = {kept.id: _reply(), refused.id: _reply(body=SHORT.replace("8080", "80"))}
    order = [n.id for n in run_compaction(store, None, SETTINGS, min_tokens=MIN).notes]
    _apply(store, ScriptedProvider(*(script[i] for i in order)))
    again = _apply(store, ScriptedProvider())  # a call would fail the test
    assert {n.status for n in again.notes} == {"skipped"}  # both still over 200 tokens
    assert again.written == [] and again.tagged == [] and again.calls == 0


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (SHORT.replace("port 8080", "port 80"), "numbers: 8080"),
        (SHORT.replace("/var/log/api/deploy.log", "the log file"), "/var/log/api/deploy.log"),
        (SHORT.replace("$ uv run alembic upgrade head", "Migrate."), "uv run alembic upgrade"),
        (SHORT.replace("https://example.com/runbook", "the runbook"), "urls: https://example"),
        (SHORT.replace("`make deploy`", "make"), "code: make deploy"),
        (LONG + " and then some more", "not shorter"),
    ],
)
def test_a_rewrite_that_loses_a_fact_is_refused_and_tagged(
    store: MemoryStore, body: str, named: str
) -> None:
    note = _note(store)
    report = _apply(store, ScriptedProvider(_reply(body=body)))
    [outcome] = report.notes
    assert outcome.status == "refused" and named in outcome.reason
    assert report.written == [] and report.tagged == [note.id] and report.ok
    after = store.get(note.id)
    assert (after.title, after.body, after.prov_model) == (note.title, note.body, "")
    assert after.tags == ["deploy", NEEDS_REVIEW_TAG] and after.updated_at > OLD


def test_a_rewrite_losing_6_percent_of_the_words_is_refused_and_4_percent_kept(
    store: MemoryStore,
) -> None:
    total = len(extract_facts(redact_prompt(note_text("Deploying the api", LONG))).words)
    too_many, few = math.ceil(total * 0.06), math.floor(total * 0.04)
    for _ in range(2):
        _note(store)
    dropped, kept_back = (
        SHORT.replace(" ".join(WORDS[:too_many]), ""),
        SHORT.replace(" ".join(WORDS[:few]), ""),
    )
    report = _apply(store, ScriptedProvider(_reply(body=dropped), _reply(body=kept_back)))
    lossy, fine = report.notes  # answered in this order
    assert lossy.status == "refused" and lossy.missing["words"] == WORDS[:3]
    assert "words: 9" in lossy.reason and "% kept, under 95%" in lossy.reason
    assert fine.status == "compacted"
    assert NEEDS_REVIEW_TAG in store.get(lossy.id).tags
    assert store.get(fine.id).body == kept_back


@pytest.mark.parametrize(
    "reply",
    [
        "I could not shorten it.",
        '{"title": "t"}',
        '{"title": "", "body": "b"}',
        '{"title": "t", "body": "   "}',
        '{"title": "t", "body": "b", "notes": []}',
        '["not", "an", "object"]',
        '{"title": 3, "body": "b"}',
    ],
)
def test_an_unusable_reply_is_invalid_and_only_tags_the_note(
    store: MemoryStore, reply: str
) -> None:
    note = _note(store)
    report = _apply(store, ScriptedProvider(reply))
    [outcome] = report.notes
    assert outcome.status == "invalid" and outcome.reason and not report.ok
    after = store.get(note.id)
    assert (after.title, after.body) == (note.title, note.body)
    assert after.tags == ["deploy", NEEDS_REVIEW_TAG]


def test_a_provider_failure_stops_the_run_and_writes_nothing_for_the_rest(
    store: MemoryStore,
) -> None:
    first, second, third = (_note(store) for _ in range(3))
    order = [n.id for n in run_compaction(store, None, SETTINGS, min_tokens=MIN).notes]
    report = _apply(store, ScriptedProvider(_reply(), ProviderFailed("HTTP 500, 3 retries")))
    assert not report.ok and report.error == "HTTP 500, 3 retries"
    statuses = [(n.id, n.status) for n in report.notes]
    assert statuses == list(zip(order, ["compacted", "provider-error", "not-reached"], strict=True))
    assert report.written == [order[0]] and report.tagged == []
    notes = {n.id: n for n in (first, second, third)}
    assert store.get(order[0]).body == SHORT  # done before the failure: written
    for untouched in order[1:]:
        assert store.get(untouched) == notes[untouched]


def test_everything_lands_in_one_put_many(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = [_note(store), _note(store)]
    batches: list[list[str]] = []
    real = store.put_many

    def put_many(mems: Any) -> Any:
        mems = list(mems)
        batches.append([m.id for m in mems])
        return real(mems)

    monkeypatch.setattr(store, "put_many", put_many)
    _apply(store, ScriptedProvider(_reply(), _reply(body=SHORT.replace("8080", "80"))))
    assert len(batches) == 1 and sorted(batches[0]) == sorted(n.id for n in notes)


def test_the_heuristic_folds_repeats_deterministically_and_keeps_the_facts(
    store: MemoryStore,
) -> None:
    repeated = f"{FACTS}   \n\n\n\n{FACTS}\n\n" + "retrying the deploy\n" * 40 + "done"
    note = _note(store, title="Deploying   the api", body=repeated)
    dry = run_compaction(store, HeuristicProvider(), SETTINGS, min_tokens=100)
    assert [n.status for n in dry.notes] == ["planned"] and dry.calls == 0
    assert store.get(note.id) == note
    report = run_compaction(store, HeuristicProvider(), SETTINGS, min_tokens=100, apply=True)
    assert report.written == [note.id]
    after = store.get(note.id)
    assert after.body == f"{FACTS}\n\nretrying the deploy\ndone"
    assert after.title == "Deploying the api" and after.prov_model == "heuristic"
    assert check_facts(note_text(note.title, note.body), note_text(after.title, after.body)).ok
    assert fold_text(after.body) == after.body
    again = run_compaction(store, None, SETTINGS, min_tokens=10, apply=True)
    assert [n.status for n in again.notes] == ["unchanged"] and again.written == []
    assert store.get(note.id) == after


def test_fold_text_leaves_code_blocks_and_short_repeats_alone() -> None:
    text = "# Steps\n\n```python\n}\n}\n\n\nx = 1  \n```\n\n# Steps\n\n---\n\nok\n\n---"
    assert (
        fold_text(text)
        == "# Steps\n\n```python\n}\n}\n\n\nx = 1\n```\n\n# Steps\n\n---\n\nok\n\n---"
    )
    assert fold_text("a\n\na\n\na") == "a"  # a block repeating the one before it
    assert fold_text("line one\nline one\nline two") == "line one\nline two"


def test_no_secret_is_ever_sent(store: MemoryStore) -> None:
    note = _note(store, body=f"{LONG}\n\nthe deploy token is {GITHUB_TOKEN}")
    assert GITHUB_TOKEN in store.get(note.id).body
    provider = ScriptedProvider(lambda user: _reply(body=user.split("\n\n", 1)[1][:2000]))
    _apply(store, provider)
    assert provider.prompts and GITHUB_TOKEN not in provider.sent


def test_a_note_too_long_for_the_input_budget_is_skipped(store: MemoryStore) -> None:
    _note(store)
    small = LlmSettings(provider="openai", model="m", max_input_tokens=300)
    report = run_compaction(store, ScriptedProvider(), small, min_tokens=MIN, apply=True)
    [outcome] = report.notes
    assert outcome.status == "skipped" and "llm.max_input_tokens" in outcome.reason
    assert report.calls == 0 and report.ok


def test_superseded_and_needs_review_notes_are_left_alone(store: MemoryStore) -> None:
    old = _note(store)
    _note(store, supersedes=[old.id], tags=[NEEDS_REVIEW_TAG])
    report = run_compaction(store, ScriptedProvider(), SETTINGS, min_tokens=MIN, apply=True)
    assert [(n.status, n.reason.split(":")[0]) for n in report.notes] == [
        ("skipped", f"tagged {NEEDS_REVIEW_TAG}")
    ]


def test_a_captured_session_note_stays_captures_own(store: MemoryStore) -> None:
    title = "Session: deploy"
    note = _note(store, type="episodic", title=title,
                 extra={CAPTURE_DIGEST_KEY: content_digest(title, LONG)})  # fmt: skip
    _apply(store, ScriptedProvider(_reply(title=title)))
    after = store.get(note.id)
    assert after.body == SHORT and is_capture_owned(after)


def test_an_apply_waits_for_no_other_run(store: MemoryStore) -> None:
    _note(store)
    with reflection_lock(store.root), pytest.raises(ReflectionBusy):
        _apply(store, ScriptedProvider())
