"""`anamnesis review --confirm`'s side: the configured model asked about candidate pairs
before the list, its summary, each pair's verdict line and JSON, the review order, and the
exit status; with no LLM configured, a message saying how to choose one. Against a scripted
OpenAI-compatible server on 127.0.0.1 (no real provider, ever)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from typing import Any

import pytest
from anamnesis_testsupport.fake_llm import FakeLLMServer, api_error, openai_reply

from anamnesis.cli.commands import review_confirm
from anamnesis.cli.errors import CliError
from anamnesis.store import Contradiction, Difference, Memory, MemoryStore
from cli_testing import Env, Result, note_bytes


@pytest.fixture
def store(env: Env, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryStore]:
    for name, value in env.environment().items():
        monkeypatch.setenv(name, value)
    with MemoryStore(env.home) as opened:
        yield opened


def two_pairs(store: MemoryStore) -> list[Contradiction]:
    def note(title: str, body: str) -> Memory:
        return store.write(type="procedural", title=title, body=body, project="app")

    port = Contradiction(
        note("Dev server port", "The dev server listens on port 3000."),
        note("Dev server port", "The dev server listens on port 8080 now."),
        (Difference("port", "dev server port", "3000", "8080"),),
    )
    ports = Contradiction(
        note("API port", "The API server listens on port 9000."),
        note("Admin port", "The admin server listens on port 9100."),
        (Difference("port", "server listens on port", "9000", "9100"),),
    )
    return [ports, port]


def use(server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "openai")
    monkeypatch.setenv("ANAMNESIS_LLM_MODEL", "scripted-1")
    monkeypatch.setenv("ANAMNESIS_LLM_BASE_URL", server.url)
    monkeypatch.setenv("ANAMNESIS_LLM_TIMEOUT", "5")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    fake = FakeLLMServer()
    fake.start()
    use(fake, monkeypatch)
    yield fake
    fake.stop()


def reply(*entries: dict[str, Any]) -> str:
    return "```json\n" + json.dumps({"verdicts": list(entries)}) + "\n```"


def files(store: MemoryStore) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for p in sorted(store.memory_dir.rglob("*.md"))}


def test_the_batch_runs_says_what_came_of_it_and_orders_the_list(
    store: MemoryStore, server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = two_pairs(store)
    before = files(store)
    server.queue(
        openai_reply(
            reply(
                {"pair": "p1", "verdict": "compatible", "reason": "two different servers"},
                {"pair": "p2", "verdict": "contradicts", "reason": "3000 became 8080"},
            )
        )
    )
    summary = review_confirm.confirm_pairs(store, pairs)
    out, err = capsys.readouterr()
    assert "model (openai, scripted-1): asked about 2 pair(s) in 1 call(s), about " in out
    assert "1 contradict, 1 compatible, 0 unsure" in out
    assert "no note was changed" in out and err == ""
    assert summary["ok"] and summary["counts"]["contradicts"] == 1
    assert review_confirm.exit_code(summary) == 0

    verdicts = review_confirm.model_verdicts(store, pairs)
    ordered = review_confirm.review_order(pairs, verdicts)
    assert ordered == [pairs[1], pairs[0]]  # confirmed first, the dismissed pair last
    assert [verdicts[pair.ids].label() for pair in ordered] == [
        "model: contradicts (3000 became 8080)",
        "model: compatible (two different servers)",
    ]
    assert review_confirm.listed_last(verdicts) == (
        "1 pair(s) the model called compatible are listed last, marked: a model's word "
        "settles nothing; settle them as any other"
    )
    assert review_confirm.verdict_json(verdicts[pairs[0].ids]) == {
        "verdict": "compatible",
        "reason": "two different servers",
        "provider": "openai",
        "model": "scripted-1",
        "checked_at": verdicts[pairs[0].ids].checked_at,
    }
    assert review_confirm.verdict_json(None) is None
    assert files(store) == before

    # A second run asks nothing: both pairs are judged and unchanged.
    summary = review_confirm.confirm_pairs(store, pairs)
    out, _err = capsys.readouterr()
    assert summary["calls"] == 0 and len(server.received) == 1
    assert "2 pair(s) already judged by the model, unchanged since (--again asks again)" in out


def test_json_mode_prints_nothing_but_returns_the_summary(
    store: MemoryStore, server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = two_pairs(store)
    server.queue(openai_reply(reply({"pair": "p2", "verdict": "unsure"})))
    summary = review_confirm.confirm_pairs(store, pairs, as_json=True)
    out, _err = capsys.readouterr()
    assert out == ""
    assert summary["unanswered"] == 1 and summary["verdicts"][0]["notes"] == list(pairs[1].ids)
    json.dumps(summary)  # JSON-ready


def test_a_failing_provider_is_said_the_list_still_follows_and_the_exit_is_1(
    store: MemoryStore, server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = two_pairs(store)
    before = files(store)
    server.queue(*[api_error(500, "boom")] * 4)
    summary = review_confirm.confirm_pairs(store, pairs)
    _out, err = capsys.readouterr()
    assert "the provider failed, the batch stopped:" in err and "HTTP 500" in err
    assert review_confirm.exit_code(summary) == 1
    assert review_confirm.model_verdicts(store, pairs) == {}
    assert files(store) == before


def test_no_llm_configured_says_how_to_choose_one_and_asks_nothing(
    store: MemoryStore, capsys: pytest.CaptureFixture[str]
) -> None:
    pairs = two_pairs(store)
    summary = review_confirm.confirm_pairs(store, pairs)
    out, err = capsys.readouterr()
    assert out == ""
    assert "no LLM is configured (llm.provider is heuristic)" in err
    assert "`anamnesis config set llm.provider claude-code`" in err
    assert "`anamnesis review --confirm`" in err
    assert summary == {
        "provider": "heuristic",
        "model": "",
        "ok": True,
        "skipped": "no LLM configured",
    }
    assert review_confirm.exit_code(summary) == 0
    assert review_confirm.exit_code(None) == 0
    assert review_confirm.listed_last({}) == ""


def test_a_provider_that_cannot_start_is_one_error_line(
    store: MemoryStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANAMNESIS_LLM_PROVIDER", "openai")  # no model set
    with pytest.raises(CliError, match=r"llm\.model"):
        review_confirm.confirm_pairs(store, two_pairs(store))


# -- through `anamnesis review` ----------------------------------------------------------------


@pytest.fixture
def review(env: Env) -> Env:
    """``env``, once the `review` command exists (it is another change's; this file's
    functions are what it calls)."""
    if importlib.util.find_spec("anamnesis.cli.commands.review") is None:
        pytest.skip("no `anamnesis review` command in this tree yet")
    return env


def port_notes(env: Env) -> tuple[str, str]:
    with MemoryStore(env.home) as store:
        older = store.write(
            type="semantic", title="Dev server port", body="The dev server runs on port 3000.",
            project="github.com/acme/web",
        )  # fmt: skip
        newer = store.write(
            type="semantic", title="Dev server port", body="The dev server runs on port 5173.",
            project="github.com/acme/web",
        )  # fmt: skip
    return older.id, newer.id


def test_review_confirm_asks_once_shows_each_verdict_and_changes_no_note(
    review: Env, llm: FakeLLMServer
) -> None:
    ids = port_notes(review)
    before = note_bytes(review)
    llm.queue(openai_reply(reply({"pair": "p1", "verdict": "contradicts", "reason": "moved"})))
    done = review.run_process("review", "--confirm")
    assert done.code == 0, done.err
    assert "model (openai, scripted-1): asked about 1 pair(s) in 1 call(s)" in done.out
    assert "model: contradicts (moved)" in done.out
    assert len(llm.received) == 1 and note_bytes(review) == before
    # Later listings show the verdict without asking; --json carries it on the pair.
    listed: Result = review.run("review", "--json")
    assert listed.code == 0, listed.err
    (pair,) = listed.json()["contradictions"]
    assert pair["notes"] == list(ids) and pair["model"]["verdict"] == "contradicts"
    assert "confirm" not in listed.json() and len(llm.received) == 1
    # --again asks anew; a failing provider is exit 1, and the list still comes.
    llm.queue(*[api_error(500, "boom")] * 4)
    failed = review.run("review", "--confirm", "--again", "--json")
    assert failed.code == 1
    data = failed.json()
    assert "HTTP 500" in data["confirm"]["error"] and not data["confirm"]["ok"]
    assert data["contradictions"][0]["model"]["verdict"] == "contradicts"  # the one kept
    assert note_bytes(review) == before


def test_review_confirm_without_an_llm_says_how_to_choose_one(review: Env) -> None:
    port_notes(review)
    done = review.run_process("review", "--confirm")
    assert done.code == 0, done.err
    assert "no LLM is configured (llm.provider is heuristic)" in done.err
    assert "1 possible contradiction" in done.out  # the list, unconfirmed
    usage = review.run("review", "--again")
    assert usage.code == 2 and "--again goes with --confirm" in usage.err
