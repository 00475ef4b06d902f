"""`anamnesis reflect`, `merge`, `llm test` and `eval generate|approve` as a user runs them,
against a scripted OpenAI-compatible server on 127.0.0.1 (no real provider, ever)."""

from __future__ import annotations

import json

from anamnesis_testsupport.fake_llm import GITHUB_TOKEN, FakeLLMServer, api_error, openai_reply

from anamnesis.store import MemoryStore, write_config
from cli_testing import Env

PROJECT = "github.com/acme/api"


def _episodes(env: Env, count: int = 5) -> list[str]:
    with MemoryStore(env.home, mask_secrets=False) as store:
        return [
            store.write(
                type="episodic",
                title=f"session {n}",
                body=f"retried the flaky deploy, token {GITHUB_TOKEN}" if n == 0 else "deploy",
                project=PROJECT,
                tags=["session"],
            ).id
            for n in range(count)
        ]


def _sent(server: FakeLLMServer) -> str:
    return "".join(request.raw.decode() for request in server.received)


def test_reflect_is_a_dry_run_until_asked_and_says_what_it_would_cost(
    env: Env, llm: FakeLLMServer
) -> None:
    env.run("init", "--local-only")
    _episodes(env)
    done = env.run("reflect", "--project", PROJECT)
    assert done.code == 0, done.err
    assert "1 provider call(s) planned" in done.out and "dry run" in done.out
    assert llm.received == []  # nothing paid for
    data = env.run("reflect", "--project", PROJECT, "--json").json()
    assert data["dry_run"] and data["calls"] == 1 and data["input_tokens"] > 0


def test_reflect_apply_writes_durable_notes_and_a_second_apply_is_a_no_op(
    env: Env, llm: FakeLLMServer
) -> None:
    env.run("init", "--local-only")
    ids = _episodes(env)
    reply = {"notes": [{"type": "procedural", "title": "Retry deploys once",
                        "body": "The deploy is flaky: retry once before paging.",
                        "tags": ["deploy"], "sources": ids[:2], "supersedes": []}]}  # fmt: skip
    llm.queue(openai_reply(f"```json\n{json.dumps(reply)}\n```"))
    done = env.run("reflect", "--project", PROJECT, "--apply", "--json")
    assert done.code == 0, done.err
    [project] = done.json()["projects"]
    assert project["status"] == "applied" and len(project["written"]) == 1
    assert GITHUB_TOKEN not in _sent(llm)  # masked before it was sent
    with MemoryStore(env.home) as store:
        note = store.get(project["written"][0])
        assert (note.prov_source, note.confidence, note.prov_model) == (
            "reflection",
            0.6,
            "scripted-1",
        )
        assert "reflection" in note.tags
        assert all("reflected" in store.get(i).tags for i in ids)
    again = env.run("reflect", "--project", PROJECT, "--apply", "--json")
    assert again.code == 0 and again.json()["projects"] == [] and len(llm.received) == 1


def test_nothing_worth_keeping_tags_the_episodes_and_the_next_run_sends_nothing(
    env: Env, llm: FakeLLMServer
) -> None:
    env.run("init", "--local-only")
    ids = _episodes(env)
    llm.queue(openai_reply('{"notes": []}'))  # what the reflect prompt asks for in that case
    done = env.run("reflect", "--project", PROJECT, "--apply")
    assert done.code == 0, done.out + done.err
    assert "nothing worth keeping" in done.out and "tagged 5 episode(s) reflected" in done.out
    with MemoryStore(env.home) as store:
        assert all("reflected" in store.get(i).tags for i in ids)
        assert {note.type for note in store.list()} == {"episodic"}
    again = env.run("reflect", "--project", PROJECT, "--apply", "--json")
    assert again.code == 0 and again.json()["projects"] == [] and len(llm.received) == 1


def test_a_reply_that_supersedes_what_it_was_sent_retires_nothing_it_would_lose(
    env: Env, llm: FakeLLMServer
) -> None:
    env.run("init", "--local-only")
    ids = _episodes(env)
    with MemoryStore(env.home) as store:
        deploy = store.write(type="procedural", title="Deploy the api", project=PROJECT,
                             body="Run `make deploy-2` from the repo root.")  # fmt: skip
    reply = {"notes": [{"type": "procedural", "title": "Notes", "body": "Sessions happened.",
                        "sources": ids[:1], "supersedes": [deploy.id]}]}  # fmt: skip
    llm.queue(openai_reply(json.dumps(reply)))
    done = env.run("reflect", "--project", PROJECT, "--apply")
    assert done.code == 0, done.out + done.err
    assert f"'Notes' does not supersede {deploy.id}" in done.err
    assert "make deploy-2" in done.err
    found = env.run("search", "make deploy", "--project", PROJECT, "--json").json()
    assert deploy.id in json.dumps(found)


def test_an_unusable_reply_writes_nothing_and_fails(env: Env, llm: FakeLLMServer) -> None:
    env.run("init", "--local-only")
    _episodes(env)
    llm.queue(openai_reply('{"notes": [{"type": "procedural", "title": "x", "body": "y",'
                           ' "sources": ["01JC0000000000000000000000"]}]}'))  # fmt: skip
    done = env.run("reflect", "--project", PROJECT, "--apply")
    assert done.code == 1
    assert "invalid-reply" in done.out
    with MemoryStore(env.home) as store:
        assert {note.type for note in store.list()} == {"episodic"}
        assert not any("reflected" in note.tags for note in store.list())


def test_without_a_provider_reflect_says_how_to_choose_one(env: Env) -> None:
    env.run("init", "--local-only")
    _episodes(env)
    assert env.run("reflect", "--project", PROJECT).code == 0  # planning needs no LLM
    done = env.run("reflect", "--project", PROJECT, "--apply")
    assert done.code == 1
    assert "llm.provider claude-code" in done.err and "Traceback" not in done.err


def test_reflect_needs_one_project_or_all(env: Env) -> None:
    env.run("init", "--local-only")
    assert env.run("reflect").code == 2
    assert env.run("reflect", "--project", PROJECT, "--all").code == 2


def test_llm_test_reports_latency_or_exactly_what_is_wrong(env: Env, llm: FakeLLMServer) -> None:
    env.run("init", "--local-only")
    llm.queue(openai_reply("ok"))
    done = env.run("llm", "test")
    assert done.code == 0 and done.out.startswith("openai, model scripted-1: answered in")
    llm.queue(api_error(401, "bad key"))
    failed = env.run("llm", "test")
    assert failed.code == 1 and "401" in failed.err and len(llm.received) == 2  # no retry


def test_llm_settings_are_checked_when_set_and_keys_never_stored(env: Env) -> None:
    env.run("init", "--local-only")
    assert env.run("config", "set", "llm.provider", "claude-code").code == 0
    wrong = env.run("config", "set", "llm.provider", "gpt")
    assert wrong.code == 2 and "claude-code" in wrong.err
    pasted = env.run("config", "set", "llm.api_key_env", "sk-proj-abcdefghijklmnopqrstuvwxyz0123")
    assert pasted.code == 2 and "sk-proj" not in pasted.err
    assert "sk-proj" not in (env.home / "config.json").read_text()


def test_merge_dry_run_then_apply_supersedes_and_deletes_nothing(
    env: Env, llm: FakeLLMServer
) -> None:
    env.run("init", "--local-only")
    body = "run the migrations before deploying the api, then restart the workers"
    with MemoryStore(env.home) as store:
        first = store.write(type="procedural", title="Deploy order", body=body, project=PROJECT)
        second = store.write(type="procedural", title="Deploy order steps", body=body + " again",
                             project=PROJECT)  # fmt: skip
    dry = env.run("merge", "--project", PROJECT, "--json")
    assert dry.code == 0 and len(dry.json()["candidates"]) == 1 and llm.received == []
    llm.queue(openai_reply(json.dumps(
        {"groups": [{"ids": [first.id, second.id], "action": "keep", "keep": first.id}]}
    )))  # fmt: skip
    done = env.run("merge", "--project", PROJECT, "--apply", "--json")
    assert done.code == 0, done.err
    assert [group["status"] for group in done.json()["groups"]] == ["applied"]
    with MemoryStore(env.home) as store:
        assert second.id in store.get(first.id).supersedes
        assert store.get(second.id).title == "Deploy order steps"  # superseded, not deleted


def test_eval_generate_then_approve_then_run(env: Env, llm: FakeLLMServer) -> None:
    env.run("init", "--local-only")
    with MemoryStore(env.home) as store:
        body = "the api keeps 20 connections per worker"
        note = store.write(type="semantic", title="Postgres pool size", body=body, project=PROJECT)
    assert "eval generate" in env.run("eval", "run").err  # no cases yet: says how to get some
    llm.queue(openai_reply(json.dumps(
        {"queries": [{"id": note.id, "query": "how many connections does each worker hold"}]}
    )))  # fmt: skip
    made = env.run("eval", "generate", "--n", "5", "--json")
    assert made.code == 0, made.err
    [qid] = made.json()["generated"]
    assert "no approved cases" in env.run("eval", "run").err
    assert env.run("eval", "approve", "nonexistent").code == 1
    assert env.run("eval", "approve", qid).out.strip() == "approved 1 case(s)"
    ran = env.run("eval", "run", "--mode", "keyword", "--json")
    assert ran.code == 0, ran.err


def test_reflect_apply_is_committed_for_sync_at_once(env: Env, llm: FakeLLMServer) -> None:
    env.run("init", "--local-only")
    write_config({"remote": str(env.root / "remote.git")}, env.home)
    env.run("sync")  # makes the repository (the remote is unreachable: that is fine)
    ids = _episodes(env)
    reply = {"notes": [{"type": "semantic", "title": "Deploys flake", "body": "Retry once.",
                        "sources": ids, "supersedes": []}]}  # fmt: skip
    llm.queue(openai_reply(json.dumps(reply)))
    done = env.run("reflect", "--project", PROJECT, "--apply", "--json")
    assert done.code == 0, done.err
    assert done.json()["commit"]
    from dulwich.objects import Commit
    from dulwich.repo import Repo

    with Repo(str(env.home / "memory")) as repo:
        head = repo[repo.head()]
        assert isinstance(head, Commit)
        assert head.message.decode().startswith("anamnesis reflect: 1 note(s), 5 reflected")
