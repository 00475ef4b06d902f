"""A model's reply is untrusted input: `reflect`, `merge` and `compact --apply` against a
scripted server on 127.0.0.1 whose replies are malformed, endless or nested too deep. Each
ends in one clear error with exit status 1, never a traceback, and never reads without end."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from anamnesis_testsupport.fake_llm import (
    FakeLLMServer,
    Scripted,
    endless_openai_reply,
    nested_json,
    openai_reply,
)

from anamnesis.store import MemoryStore
from cli_testing import Env, Result, anamnesis_script

PROJECT = "github.com/acme/api"
DEEP = '{"notes": ' + nested_json() + "}"  # each command's JSON object, nested too deep
# What the command may grow to reading an endless reply: about 70 MB measured with the
# default bound (llm.max_reply_bytes, 4 MiB); reading on until the timeout grows it by
# 13 MB a second (the fake server's pace): 274 MB at 20 s.
MAX_RSS_KB = 150 * 1024


def _reflectable(env: Env) -> None:
    with MemoryStore(env.home) as store:
        for n in range(5):
            store.write(type="episodic", title=f"session {n}", body="deploy", project=PROJECT)


def _mergeable(env: Env) -> None:
    body = "run the migrations before deploying the api, then restart the workers"
    with MemoryStore(env.home) as store:
        store.write(type="procedural", title="Deploy order", body=body, project=PROJECT)
        store.write(type="procedural", title="Deploy order steps", body=body, project=PROJECT)


def _compactable(env: Env) -> None:
    with MemoryStore(env.home) as store:
        store.write(type="semantic", title="Long", body="word " * 2000, project=PROJECT)


SETUPS = {
    "reflect": (_reflectable, ["reflect", "--project", PROJECT, "--apply"]),
    "merge": (_mergeable, ["merge", "--apply"]),
    "compact": (_compactable, ["compact", "--min-tokens", "200", "--apply"]),
}


def _unusable(done: Result) -> None:
    """One clear error, exit status 1, no crash."""
    said = done.out + done.err
    assert done.code == 1, said
    assert "unusable" in said, said
    assert "unexpected error" not in said and "Traceback" not in said, said


@pytest.mark.parametrize("where", ["the reply", "the API's envelope"])
@pytest.mark.parametrize("command", SETUPS)
def test_json_nested_too_deep_is_an_unusable_reply(
    env: Env, llm: FakeLLMServer, command: str, where: str
) -> None:
    env.run("init", "--local-only")
    setup, args = SETUPS[command]
    setup(env)
    envelope = Scripted(200, nested_json().encode())
    llm.queue(openai_reply(DEEP) if where == "the reply" else envelope)
    _unusable(env.run(*args))


def test_a_reply_without_end_is_cut_at_the_bound_in_bounded_memory(
    env: Env, llm: FakeLLMServer
) -> None:
    env.run("init", "--local-only")
    _reflectable(env)
    endless = endless_openai_reply()
    llm.queue(endless)
    env.variables["ANAMNESIS_LLM_TIMEOUT"] = "20"
    started = time.monotonic()
    done, peak_kb = _run_measured(env, "reflect", "--project", PROJECT, "--apply")
    took = time.monotonic() - started
    assert peak_kb < MAX_RSS_KB, f"peak RSS {peak_kb // 1024} MB after {took:.1f} s"
    assert endless.streamed < 16 * 1024 * 1024  # read to the bound, not to the timeout
    _unusable(done)
    # Stopped at the bound, not at the timeout (how long that took depends on the load).
    assert "more than 4194304 bytes (llm.max_reply_bytes)" in done.out + done.err


# Runs a command and reports its exit status and peak RSS. A small process of its own, not
# pytest: Linux carries the parent's high-water mark of memory into a child across its exec
# (a vfork shares the parent's memory until then), so a child of pytest would report
# pytest's own peak as its own.
_MEASURE = """
import json, os, subprocess, sys
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
code = os.waitstatus_to_exitcode(status)
with open(sys.argv[1], "w") as report:
    json.dump({"code": code, "peak_kb": usage.ru_maxrss}, report)
"""


def _run_measured(env: Env, *args: str) -> tuple[Result, int]:
    """Run ``anamnesis args`` as a process; its result and its peak RSS in KiB."""
    out, err, report = (env.root / name for name in ("out.txt", "err.txt", "rss.json"))
    with out.open("wb") as stdout, err.open("wb") as stderr:
        subprocess.run(
            [sys.executable, "-c", _MEASURE, str(report), *anamnesis_script(), *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=stderr,
            env=env.environment(),
            cwd=env.root,
            timeout=120,
            check=True,
        )
    measured = json.loads(report.read_text())
    return Result(measured["code"], _text(out), _text(err)), measured["peak_kb"]


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", "replace")


def test_a_good_reply_still_goes_through(env: Env, llm: FakeLLMServer) -> None:
    env.run("init", "--local-only")
    _mergeable(env)
    llm.queue(openai_reply(json.dumps({"groups": []})))
    done = env.run("merge", "--apply")
    assert done.code == 0, done.err
