"""The LLM session summary rewrites a captured session's note in place, keeps it capture's
own, and on any failure leaves the deterministic note as it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import (
    GITHUB_TOKEN,
    FakeLLMServer,
    ScriptedProvider,
    nested_json,
    openai_reply,
)

from anamnesis.reflect import LlmSettings, ProviderFailed
from anamnesis.reflect.session_summary import summarize_session
from anamnesis.store import (
    CAPTURE_DIGEST_KEY,
    Memory,
    MemoryStore,
    content_digest,
    is_capture_owned,
    new_id,
    write_config,
)

SETTINGS = LlmSettings(provider="openai", model="scripted-model", summarize_sessions=True)
GOOD = json.dumps({"title": "Fixed the flaky deploy", "summary": "Retry once; page after."})


def _captured(store: MemoryStore, body: str = "user asked to fix the deploy") -> Memory:
    title = "Session: fix deploy"
    note = Memory(id=new_id(), type="episodic", title=title, body=body, project="p",
                  tags=["session", "session-end"],
                  extra={CAPTURE_DIGEST_KEY: content_digest(title, body)})  # fmt: skip
    return store.put(note)


@pytest.fixture
def store(isolated_home: Path) -> MemoryStore:
    return MemoryStore(isolated_home, mask_secrets=False)


def test_the_note_is_rewritten_in_place_and_stays_captures_own(store: MemoryStore) -> None:
    note = _captured(store, body=f"deploy with token {GITHUB_TOKEN}")
    provider = ScriptedProvider(f"Here you go:\n```json\n{GOOD}\n```")
    done = summarize_session(store, note.id, provider, SETTINGS)
    assert done is not None and done.id == note.id
    again = store.get(note.id)
    assert (again.title, again.body) == ("Fixed the flaky deploy", "Retry once; page after.")
    assert again.prov_model == "scripted-model" and again.updated_at >= note.updated_at
    assert again.created_at == note.created_at and again.tags == note.tags
    assert is_capture_owned(again)  # the next capture of the session updates it, no follow-up
    assert GITHUB_TOKEN not in provider.sent


@pytest.mark.parametrize(
    "reply",
    [
        "not json",
        '{"title": "", "summary": "x"}',
        '{"title": "t"}',
        '{"title": ' + nested_json() + "}",
    ],
)
def test_an_unusable_reply_keeps_the_captured_note(store: MemoryStore, reply: str) -> None:
    note = _captured(store)
    assert summarize_session(store, note.id, ScriptedProvider(reply), SETTINGS) is None
    assert store.get(note.id) == note


def test_a_note_edited_by_hand_is_not_sent_nor_touched(store: MemoryStore) -> None:
    note = _captured(store)
    store.put(note.replace(body="my own words now"))
    provider = ScriptedProvider()
    assert summarize_session(store, note.id, provider, SETTINGS) is None
    assert provider.prompts == [] and store.get(note.id).body == "my own words now"


def test_a_provider_failure_is_raised_and_nothing_written(store: MemoryStore) -> None:
    note = _captured(store)
    with pytest.raises(ProviderFailed):
        summarize_session(store, note.id, ScriptedProvider(ProviderFailed("500")), SETTINGS)
    assert store.get(note.id) == note


def _run_step(home: Path, note_id: str, **env: str) -> subprocess.CompletedProcess[str]:
    variables = {**os.environ, "ANAMNESIS_HOME": str(home), **env}
    return subprocess.run(
        [sys.executable, "-m", "anamnesis.reflect.session_summary", note_id],
        capture_output=True, text=True, env=variables, timeout=60, check=False,
    )  # fmt: skip


def test_the_detached_step_runs_only_when_turned_on(store: MemoryStore) -> None:
    note = _captured(store)
    server = FakeLLMServer().queue(openai_reply(GOOD))
    server.start()
    try:
        llm = {"ANAMNESIS_LLM_PROVIDER": "openai", "ANAMNESIS_LLM_MODEL": "m",
               "ANAMNESIS_LLM_BASE_URL": server.url}  # fmt: skip
        off = _run_step(store.root, note.id, **llm)
        assert (off.returncode, off.stdout, off.stderr) == (0, "", "")
        assert server.received == [] and store.get(note.id) == note
        write_config({"llm.summarize_sessions": "true"}, store.root)
        on = _run_step(store.root, note.id, **llm)
        assert (on.returncode, on.stderr) == (0, "")
        assert store.get(note.id).title == "Fixed the flaky deploy"
    finally:
        server.stop()


def test_the_detached_step_never_fails_and_logs_why(store: MemoryStore) -> None:
    note = _captured(store)
    write_config({"llm.summarize_sessions": "true", "llm.provider": "openai"}, store.root)
    done = _run_step(store.root, note.id)  # no model set: the provider cannot be made
    assert (done.returncode, done.stderr) == (0, "")
    logged = (store.root / "logs" / "reflect.log").read_text()
    assert "needs a model" in logged and store.get(note.id) == note
