"""`anamnesis review --confirm --wide`: the model is also asked about the store's wider net
(pairs the rules leave out whose notes hold different values of one kind), each marked as
such in the prompt; such a pair is listed, marked, only while the model's "contradicts"
for it holds (later reviews too, without asking again), and is settled like any other.
Against a scripted OpenAI-compatible server on 127.0.0.1 (no real provider, ever)."""

from __future__ import annotations

import json
from typing import Any

from anamnesis_testsupport.fake_llm import FakeLLMServer, openai_reply

from anamnesis.store import MemoryStore
from cli_testing import Env, Result, note_bytes

WEB = "github.com/acme/web"
API = "github.com/acme/api"


def notes(env: Env) -> dict[str, str]:
    """A pair the rules find (in API) and two servers' ports the rules leave out (in WEB):
    in review order, the rules' pair is p1 and the wider net's is p2."""
    with MemoryStore(env.home) as store:

        def write(title: str, body: str, project: str) -> str:
            return store.write(type="semantic", title=title, body=body, project=project).id

        return {
            "old port": write("Dev server port", "The dev server runs on port 3000.", API),
            "new port": write("Dev server port", "The dev server runs on port 5173.", API),
            "api": write("API server port", "The API server listens on port 9000.", WEB),
            "admin": write("Admin server port", "The admin server listens on port 9100.", WEB),
        }


def verdicts(*pairs: tuple[str, str]) -> str:
    entries = [{"pair": name, "verdict": verdict, "reason": "read"} for name, verdict in pairs]
    return json.dumps({"verdicts": entries})


def prompt(server: FakeLLMServer, call: int = 0) -> str:
    text: str = server.received[call].json["messages"][-1]["content"]
    return text


def listed(done: Result) -> dict[tuple[str, ...], dict[str, Any]]:
    assert done.code == 0, done.err
    return {tuple(pair["notes"]): pair for pair in done.json()["contradictions"]}


def test_the_wider_net_is_asked_about_marked_and_a_confirmed_pair_listed(
    env: Env, llm: FakeLLMServer
) -> None:
    ids = notes(env)
    before = note_bytes(env)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"), ("p2", "contradicts"))))

    done = env.run("review", "--confirm", "--wide", "--json")

    pairs = listed(done)
    wider = pairs[(ids["api"], ids["admin"])]
    assert wider["wider"] is True and wider["model"]["verdict"] == "contradicts"
    assert wider["differs"] == [{"kind": "port", "subject": "", "old": "9000", "new": "9100"}]
    assert pairs[(ids["old port"], ids["new port"])]["wider"] is False
    assert done.json()["confirm"]["wider"] == 1 and done.json()["confirm"]["candidates"] == 2
    sent = prompt(llm)
    assert "=== pair p1 ===" in sent and "=== pair p2 (wider net) ===" in sent
    assert (
        "most such pairs are about different things"
        in llm.received[0].json["messages"][0]["content"]
    )
    assert note_bytes(env) == before  # a verdict changes no note

    # Later reviews list it on the kept verdict, asking nothing; a person reads why.
    shown = env.run("review")
    assert shown.code == 0, shown.err
    assert "wider net: listed on the model's word (the rules do not find it)" in shown.out
    assert "2 possible contradictions" in shown.out
    assert len(llm.received) == 1


def test_a_wider_pair_the_model_does_not_confirm_is_never_listed(
    env: Env, llm: FakeLLMServer
) -> None:
    ids = notes(env)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"), ("p2", "compatible"))))

    first = listed(env.run("review", "--confirm", "--wide", "--json"))
    again = listed(env.run("review", "--confirm", "--wide", "--json"))  # nothing new to ask

    for pairs in (first, again, listed(env.run("review", "--json"))):
        assert list(pairs) == [(ids["old port"], ids["new port"])]
    assert len(llm.received) == 1


def test_an_edit_drops_the_verdict_and_with_it_the_wider_pair(env: Env, llm: FakeLLMServer) -> None:
    ids = notes(env)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"), ("p2", "contradicts"))))
    assert (ids["api"], ids["admin"]) in listed(env.run("review", "--confirm", "--wide", "--json"))

    with MemoryStore(env.home) as store:
        store.update(ids["admin"], body="The admin server listens on port 9200.")

    assert (ids["api"], ids["admin"]) not in listed(env.run("review", "--json"))
    # asked again, it is listed again with what it says now
    llm.queue(openai_reply(verdicts(("p1", "contradicts"))))
    pairs = listed(env.run("review", "--confirm", "--wide", "--json"))
    assert pairs[(ids["api"], ids["admin"])]["differs"][0]["new"] == "9200"
    assert "=== pair p1 (wider net) ===" in prompt(llm, 1)  # the rules' pair was known


def test_a_confirmed_wider_pair_is_settled_like_any_other(env: Env, llm: FakeLLMServer) -> None:
    ids = notes(env)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"), ("p2", "contradicts"))))
    listed(env.run("review", "--confirm", "--wide", "--json"))

    kept = env.run("review", "keep", ids["admin"], "--over", ids["api"])

    assert kept.code == 0, kept.err
    assert f"{ids['api']} (API server port) is superseded by it" in kept.out
    assert (ids["api"], ids["admin"]) not in listed(env.run("review", "--json"))
    with MemoryStore(env.home) as store:
        assert store.get(ids["admin"]).supersedes == [ids["api"]]


def test_both_right_on_a_wider_pair_is_remembered_and_it_is_not_listed_again(
    env: Env, llm: FakeLLMServer
) -> None:
    ids = notes(env)
    refused = env.run("review", "both", ids["api"], ids["admin"])
    assert refused.code == 1  # not listed (yet): nothing to settle
    assert "are not a possible contradiction" in refused.err
    llm.queue(openai_reply(verdicts(("p1", "contradicts"), ("p2", "contradicts"))))
    listed(env.run("review", "--confirm", "--wide", "--json"))

    both = env.run("review", "both", ids["api"], ids["admin"])

    assert both.code == 0, both.err
    llm.queue(openai_reply(verdicts(("p1", "contradicts"))))
    done = env.run("review", "--confirm", "--wide", "--again", "--json")
    assert list(listed(done)) == [(ids["old port"], ids["new port"])]
    assert done.json()["confirm"]["wider"] == 0 and "wider net" not in prompt(llm, 1)


def test_a_wider_pair_the_model_did_not_confirm_is_not_settled(
    env: Env, llm: FakeLLMServer
) -> None:
    ids = notes(env)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"), ("p2", "unsure"))))
    listed(env.run("review", "--confirm", "--wide", "--json"))

    refused = env.run("review", "keep", ids["admin"], "--over", ids["api"])

    assert refused.code == 1
    assert "are not a possible contradiction" in refused.err
    with MemoryStore(env.home) as store:
        assert store.get(ids["admin"]).supersedes == []


def test_max_calls_bounds_a_run_and_the_rest_wait_for_the_next(
    env: Env, llm: FakeLLMServer
) -> None:
    ids = notes(env)
    budget = env.run("config", "set", "llm.max_input_tokens", "400")  # one pair a call
    assert budget.code == 0, budget.err
    llm.queue(openai_reply(verdicts(("p1", "contradicts"))))

    said = env.run("review", "--confirm", "--wide", "--max-calls", "1")
    assert "1 pair(s) did not fit this run's 1 call(s) (--max-calls" in said.err
    assert "review --confirm --wide` again asks about them" in said.err
    llm.queue(openai_reply(verdicts(("p1", "contradicts"))))
    done = env.run("review", "--confirm", "--wide", "--max-calls", "1", "--again", "--json")

    summary = done.json()["confirm"]
    assert (summary["calls"], summary["asked"], summary["not_sent"]) == (1, 1, 1)
    assert (ids["api"], ids["admin"]) not in listed(done)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"))))
    later = env.run("review", "--confirm", "--wide", "--max-calls", "1", "--json")
    assert later.json()["confirm"]["already"] == 1
    assert (ids["api"], ids["admin"]) in listed(later)


def test_the_wider_net_and_max_calls_go_with_confirm(env: Env) -> None:
    for args, said in (
        (("--wide",), "--wide goes with --confirm"),
        (("--confirm", "--max-calls", "0"), "--max-calls must be 1 or more"),
    ):
        done = env.run("review", *args)
        assert done.code == 2 and said in done.err


def test_one_pair_at_a_time_says_why_a_wider_pair_is_there(env: Env, llm: FakeLLMServer) -> None:
    ids = notes(env)
    llm.queue(openai_reply(verdicts(("p1", "unsure"), ("p2", "contradicts"))))
    listed(env.run("review", "--confirm", "--wide", "--json"))

    done = env.run("review", "-i", stdin="2\ns\n")  # keep the newer of the first pair shown

    assert done.code == 0, done.err
    first, second = done.out.split("\n2. ", 1)
    assert "1. github.com/acme/web: port: 9000 -> 9100" in first  # confirmed: shown first
    assert "listed on the model's word" in first and "model: unsure (read)" in second
    with MemoryStore(env.home) as store:
        assert store.get(ids["admin"]).supersedes == [ids["api"]]


def test_one_project_s_review_asks_about_and_lists_its_own_pairs_only(
    env: Env, llm: FakeLLMServer
) -> None:
    ids = notes(env)
    llm.queue(openai_reply(verdicts(("p1", "contradicts"))))

    done = env.run("review", "--confirm", "--wide", "--project", WEB, "--json")

    assert list(listed(done)) == [(ids["api"], ids["admin"])]
    assert "=== pair p1 (wider net) ===" in prompt(llm) and "pair p2" not in prompt(llm)
    assert list(listed(env.run("review", "--project", API, "--json"))) == [
        (ids["old port"], ids["new port"])
    ]


def test_with_no_llm_wide_asks_nothing_and_lists_the_rules_pairs(env: Env) -> None:
    ids = notes(env)

    done = env.run("review", "--confirm", "--wide", "--json")

    assert "no LLM is configured" in done.err
    assert list(listed(done)) == [(ids["old port"], ids["new port"])]
    assert done.json()["confirm"]["skipped"] == "no LLM configured"
